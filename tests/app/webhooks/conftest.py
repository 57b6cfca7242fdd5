"""The webhook fixtures (tests/support/webhook_fixtures.py): an emulator per session, per test a
fresh roomsync receiver with its store and worker (``harness``); and a migrated database on
SQLite and on Postgres (``store_url``, tests/support/databases.py)."""

from support.databases import *  # noqa: F403 (the fixtures backend, store_url, postgres_store_url)
from support.webhook_fixtures import *  # noqa: F403 (the fixtures harness, emulator, http...)
