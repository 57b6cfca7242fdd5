"""Logging: one line per event, text by default, JSON with ``log_format = "json"``.

A redacting filter replaces every configured secret (password, api key, webhook secret, admin
token, and any bearer token the client registers at run time) with ``***`` in every record, as
a last line of defence: code never logs secrets on purpose. A secret is masked where it stands as
a whole value (after ``=``, ``:``, a quote, a space, ``>``...), never inside a longer word: with
the password ``demo``, ``demo-hotel`` stays as it is, since ``***-hotel`` would give it away.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime

from roomsync.settings import LogFormat, Settings

REDACTED = "***"
_VALUE_CHARACTERS = r"A-Za-z0-9_\-@+/"
"""Characters that continue a value: a secret next to one of them is part of something else (a dot
too, when a value character follows it: ``demo.toml``, but not the end of a sentence)."""
LONG_SECRET = 16
"""A secret this long (tokens, generated keys) is masked wherever it appears: no word contains it
by chance."""


class SecretRedactor(logging.Filter):
    """Replaces known secret strings in a record's message and arguments."""

    def __init__(self) -> None:
        super().__init__("roomsync.redactor")
        self._secrets: dict[str, re.Pattern[str]] = {}

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4 and secret not in self._secrets:
            if len(secret) >= LONG_SECRET:
                self._secrets[secret] = re.compile(re.escape(secret))
            else:
                self._secrets[secret] = re.compile(
                    rf"(?<![{_VALUE_CHARACTERS}.]){re.escape(secret)}"
                    rf"(?![{_VALUE_CHARACTERS}]|\.[{_VALUE_CHARACTERS}])"
                )

    def scrub(self, text: str) -> str:
        for secret, whole in self._secrets.items():
            if secret in text:  # the cheap test first: most lines hold no secret at all
                text = whole.sub(REDACTED, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secrets:
            record.msg = self.scrub(record.getMessage())
            record.args = None
            if record.exc_text:
                record.exc_text = self.scrub(record.exc_text)
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in ("property", "listing", "operation", "event"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info).splitlines()[-1]
        return json.dumps(entry, default=str)


REDACTOR = SecretRedactor()


def configure_logging(settings: Settings) -> SecretRedactor:
    """Send roomsync's log lines to stderr in the configured format, secrets redacted."""
    for secret in (settings.password, settings.api_key, settings.webhook_secret, settings.admin_token):
        if secret is not None:
            REDACTOR.add(secret.get_secret_value())
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format is LogFormat.JSON:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    handler.addFilter(REDACTOR)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # alembic says "Context impl SQLiteImpl." and more at every schema check, before anything the
    # operator needs (a start refused for a missing setting was 2 lines of alembic, then the one
    # line that matters); a migration that runs is logged by roomsync in one line (daemon.startup)
    for noisy in ("httpx", "httpcore", "uvicorn.access", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return REDACTOR
