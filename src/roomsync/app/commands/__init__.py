"""Sub-commands of ``roomsync``, one module per area, each exposing a ``typer.Typer`` named ``app``."""
