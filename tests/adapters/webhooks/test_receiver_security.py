"""The receiver with a ``webhook_secret`` demands signatures, and stores nothing from a delivery
that did not authenticate, whatever its signature header holds.

Real HTTP to roomsync's receiver (uvicorn on loopback), the real SQLite file or Postgres database.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from roomsync.core.ports import InboxStatus
from support.webhooks import HOST_A, STUDIO_A, Harness

FORGED = {"action": "ListingsUnlinked", "hostId": HOST_A, "listingIds": [STUDIO_A]}
"""A valid event a forger would love: it pauses a listing."""


def row_counts(harness: Harness) -> dict[str, int]:
    with harness.store.engine.connect() as conn:
        names = sa.inspect(conn).get_table_names()
        return {name: conn.execute(sa.text(f'SELECT count(*) FROM "{name}"')).scalar_one() for name in names}


@pytest.mark.parametrize("settings_overrides", [{"webhook_require_signature": None}])
def test_a_configured_secret_refuses_unsigned_deliveries_by_default(harness: Harness) -> None:
    before = row_counts(harness)
    refused = harness.post(FORGED, signed=False, webhook_id="forged-1")
    assert refused.status_code == 401
    assert refused.json()["succeed"] is False
    assert row_counts(harness) == before
    assert harness.inbox_counts()[InboxStatus.PENDING] == 0
    assert harness.receiver.auth.describe().startswith("signatures required")


@pytest.mark.parametrize("settings_overrides", [{"webhook_require_signature": False}])
def test_accepting_unsigned_deliveries_is_an_explicit_choice(harness: Harness) -> None:
    assert harness.post(FORGED, signed=False, webhook_id="unsigned-ok").status_code == 200
    assert "unsigned deliveries are accepted" in harness.receiver.auth.describe()


def malformed_signatures(count: int) -> list[str]:
    """Signature headers no signer produces: non-ASCII, control and odd characters, broken
    structure, huge values; all of them must be 401 and leave no trace."""
    rng = random.Random(16)
    fixed = [
        "t=1700000000,v1=ééééé",
        "t=1700000000,v1=" + "ü" * 64,
        "t=\u0661\u0667\u0660\u0660\u0660\u0660,v1=" + "a" * 64,  # Arabic-Indic digits: int() reads them
        "t=" + "9" * 400 + ",v1=" + "a" * 64,
        "t=1700000000,v1=" + "g" * 64,
        "v1=" + "a" * 64,
        "t=1700000000",
        "t=,v1=",
        "=,=,=",
        "t=1700000000,v1=" + "a" * 5000,
        "t=1700000000,v1=\u00ff" * 50,
        "\u00e9",
    ]
    alphabet = "tv1=,é☃ü\u00a0abcdef0123456789 ;:"
    randoms = [
        "x" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 120))).strip()  # h11: no edge spaces
        for _ in range(count)
    ]
    return (fixed + randoms)[:count]


def test_a_flood_of_malformed_signatures_is_401_and_stores_nothing(harness: Harness, tmp_path: Path) -> None:
    database = Path(harness.settings.effective_database_url.removeprefix("sqlite:///"))
    before_rows = row_counts(harness)
    before_size = database.stat().st_size + _wal_size(database)
    statuses: dict[int, int] = {}
    for header in malformed_signatures(1000):
        response = harness.post(
            FORGED,
            signed=False,
            headers={"X-Webhook-Signature": header.encode("utf-8")},  # type: ignore[dict-item]
        )
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
    assert statuses == {401: 1000}
    assert row_counts(harness) == before_rows
    after_size = database.stat().st_size + _wal_size(database)
    assert after_size <= before_size + 64 * 1024, (before_size, after_size)  # page-allocation noise


def _wal_size(database: Path) -> int:
    wal = Path(f"{database}-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_the_startup_log_names_the_authentication(tmp_path: Path, **_: Any) -> None:
    """What `roomsync serve` says about its receiver's authentication (checked on the description
    the daemon logs: no secret in it)."""
    from roomsync.adapters.webhooks import WebhookAuth
    from roomsync.settings import Settings

    base = {"username": "u", "password": "p", "domain": "d", "data_dir": tmp_path}
    signed = WebhookAuth.from_settings(Settings(**base, webhook_secret="s3cr3t-whs"))
    assert signed.describe().startswith("signatures required") and "s3cr3t" not in signed.describe()
    none = WebhookAuth.from_settings(Settings(**base))
    assert none.describe().startswith("NO authentication")
    opted_out = WebhookAuth.from_settings(
        Settings(**base, webhook_secret="s3cr3t-whs", webhook_require_signature=False)
    )
    assert "unsigned deliveries are accepted" in opted_out.describe()
    assert os.environ.get("ROOMSYNC_WEBHOOK_SECRET") is None
