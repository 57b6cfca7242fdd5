"""A replica builds each property's context once, and again only when its row or a secret changed
(the ownership check looks at every row every few seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roomsync.app.served_properties import ContextCache
from roomsync.core.property import PropertyRecord
from roomsync.property_context import PropertyConfigError
from roomsync.settings import Settings


def test_a_context_is_built_again_only_when_its_row_or_a_secret_changes(tmp_path: Path) -> None:
    base = Settings(base_url="http://127.0.0.1:9", data_dir=tmp_path)
    secret = tmp_path / "password"
    secret.write_text("first-pw")
    record = PropertyRecord("hotel-01", {"username": "u1", "domain": "d1"}, {"password": f"file:{secret}"})
    cache = ContextCache()

    first = cache(base, record)
    assert first.settings.username == "u1" and first.settings.password is not None
    assert first.settings.password.get_secret_value() == "first-pw"
    assert cache(base, record) is first
    assert cache(base, PropertyRecord("hotel-01", dict(record.overrides), dict(record.secret_refs))) is first

    secret.write_text("rotated-pw")  # a rotated secret is seen at the next look
    rotated = cache(base, record)
    assert rotated is not first
    assert rotated.settings.password is not None
    assert rotated.settings.password.get_secret_value() == "rotated-pw"

    paused = cache(base, PropertyRecord("hotel-01", dict(record.overrides), dict(record.secret_refs), True))
    assert paused.paused and paused is not rotated
    renamed = PropertyRecord("hotel-01", {"username": "u2", "domain": "d1"}, dict(record.secret_refs))
    changed = cache(base, renamed)
    assert changed.settings.username == "u2"

    with pytest.raises(PropertyConfigError):
        cache(base, PropertyRecord("hotel-02", {"horizon_days": 0}))
