"""Helpers the test directories share (tests/ is on the import path: see pytest's ``pythonpath``
in pyproject.toml): scratch Postgres databases, the webhook harness and its fixtures."""
