"""Secrets are masked where they stand as values, not wherever their letters happen to appear.

With the password ``demo`` and the domain ``demo-hotel``, masking every occurrence of ``demo``
printed ``***-hotel`` on every line: the log gave the password away instead of hiding it.
Checked through real log records passing the filter configure_logging installs.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from roomsync.app.logs import REDACTED, SecretRedactor

TOKEN = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.9f8e7d6c5b4a"


def scrubbed(redactor: SecretRedactor, message: str, *args: object) -> str:
    record = logging.LogRecord("roomsync.test", logging.INFO, __file__, 1, message, args, None)
    redactor.filter(record)
    return record.getMessage()


@pytest.fixture
def redactor() -> SecretRedactor:
    found = SecretRedactor()
    found.add("demo")
    found.add(TOKEN)
    found.add("whs-Hb6yR3dJs5")
    return found


def test_a_short_password_inside_another_value_is_left_alone(redactor: SecretRedactor) -> None:
    assert scrubbed(redactor, "requesting a new token for %s", "demo-hotel") == (
        "requesting a new token for demo-hotel"
    )
    assert scrubbed(redactor, "user demo_admin, mail demo@example.org, file demo.toml") == (
        "user demo_admin, mail demo@example.org, file demo.toml"
    )


@pytest.mark.parametrize(
    "line",
    [
        "password=demo&domain=demo-hotel",
        '{"password": "demo", "domain": "demo-hotel"}',
        "settings: password demo",
        "ROOMSYNC_PASSWORD='demo'",
        "<Password>demo</Password>",
    ],
)
def test_the_password_as_a_value_is_masked_and_the_domain_kept(redactor: SecretRedactor, line: str) -> None:
    shown = scrubbed(redactor, line)
    assert "demo-hotel" in shown or "demo-hotel" not in line
    assert REDACTED in shown
    assert shown.replace("demo-hotel", "").count("demo") == 0


def test_tokens_and_secrets_are_masked_wherever_they_stand_whole(redactor: SecretRedactor) -> None:
    shown = scrubbed(redactor, "Authorization: Bearer %s; retry with %s.", TOKEN, TOKEN)
    assert TOKEN not in shown and shown.count(REDACTED) == 2
    assert "whs-Hb6yR3dJs5" not in scrubbed(redactor, "secret=whs-Hb6yR3dJs5")


def test_a_traceback_is_scrubbed_too(redactor: SecretRedactor, tmp_path: Path) -> None:
    try:
        raise RuntimeError(f"login refused for password demo (token {TOKEN})")
    except RuntimeError:
        record = logging.LogRecord("roomsync.test", logging.ERROR, __file__, 1, "failed", (), None)
        import sys

        record.exc_info = sys.exc_info()
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    redactor.filter(record)
    assert record.exc_text is not None and TOKEN not in record.exc_text
    assert "password demo" not in record.exc_text
