"""The pure core: API models, the operation catalog, desired state, diff and compile.

Nothing under this package does I/O, reads a clock or touches a database; the import-linter
contracts in pyproject.toml enforce it.
"""
