"""Logging: one line per event, text by default, JSON with ``log_format = "json"``.

A redacting filter replaces every configured secret (password, api key, webhook secret, admin
token, and any bearer token the client registers at run time) with ``***`` in every record, as
a last line of defence: code never logs secrets on purpose.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

from roomsync.settings import LogFormat, Settings

REDACTED = "***"


class SecretRedactor(logging.Filter):
    """Replaces known secret strings in a record's message and arguments."""

    def __init__(self) -> None:
        super().__init__("roomsync.redactor")
        self._secrets: set[str] = set()

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4:
            self._secrets.add(secret)

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
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
    for noisy in ("httpx", "httpcore", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return REDACTOR
