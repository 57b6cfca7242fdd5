"""The sandbox: a stateful emulator of the whole service (documents 01, 02 and 03)."""
