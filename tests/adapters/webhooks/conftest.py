"""The webhook fixtures (tests/support/webhook_fixtures.py): an emulator per session, per test a
fresh roomsync receiver with its store and worker (``harness``)."""

from support.webhook_fixtures import *  # noqa: F403 (the fixtures harness, emulator, http...)
