"""The deployment's properties (``PropertyStore``): one row per property, no secret in clear.

Adding a property that exists, or changing one that does not, is refused by the database's key
(one statement each), so two admins or replicas cannot both add the same property.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from roomsync.adapters.store._sql import read_tx, write_tx
from roomsync.adapters.store.generations import MAPPING, new_generation
from roomsync.adapters.store.tables import LISTING_STATE, PROPERTY, PROPERTY_MAPPING
from roomsync.core.property import PropertyExists, PropertyNotFound, PropertyRecord

P = PROPERTY.c


class SqlPropertyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add_property(self, record: PropertyRecord) -> None:
        row = {
            "property_id": record.property_id,
            "overrides": dict(record.overrides),
            "secret_refs": dict(record.secret_refs),
            "paused": record.paused,
            "paused_reason": record.paused_reason,
            "created_at": datetime.now(UTC),
        }
        try:
            with write_tx(self._engine) as conn:
                conn.execute(sa.insert(PROPERTY).values(**row))
        except IntegrityError:
            raise PropertyExists(f"property {record.property_id} is already in the deployment") from None

    def change_property(
        self,
        property_id: str,
        *,
        overrides: Mapping[str, Any | None] | None = None,
        secret_refs: Mapping[str, str | None] | None = None,
    ) -> PropertyRecord:
        """Merge settings and secret references into the property's (a value of None unsets one)."""
        with write_tx(self._engine) as conn:
            row = conn.execute(
                sa.select(PROPERTY).where(P.property_id == property_id).with_for_update()
            ).first()
            if row is None:
                raise PropertyNotFound(f"no property {property_id} in the deployment")
            merged = _merge(row._mapping["overrides"], overrides)
            refs = _merge(row._mapping["secret_refs"], secret_refs)
            conn.execute(
                sa.update(PROPERTY)
                .where(P.property_id == property_id)
                .values(overrides=merged, secret_refs=refs)
            )
        found = self.get_property(property_id)
        assert found is not None
        return found

    def set_paused(self, property_id: str, paused: bool, reason: str | None) -> None:
        with write_tx(self._engine) as conn:
            changed = conn.execute(
                sa.update(PROPERTY)
                .where(P.property_id == property_id)
                .values(paused=paused, paused_reason=reason if paused else None)
            ).rowcount
        if not changed:
            raise PropertyNotFound(f"no property {property_id} in the deployment")

    def remove_property(self, property_id: str) -> None:
        """Remove the property and its mapping and listing states; its history (runs, webhooks,
        budget) stays until it ages out, so a mistaken removal can be added back."""
        with write_tx(self._engine) as conn:
            removed = conn.execute(sa.delete(PROPERTY).where(P.property_id == property_id)).rowcount
            if not removed:
                raise PropertyNotFound(f"no property {property_id} in the deployment")
            conn.execute(sa.delete(PROPERTY_MAPPING).where(PROPERTY_MAPPING.c.property_id == property_id))
            new_generation(conn, property_id, MAPPING)  # a kept mapping is no longer the property's
            conn.execute(sa.delete(LISTING_STATE).where(LISTING_STATE.c.property_id == property_id))

    def get_property(self, property_id: str) -> PropertyRecord | None:
        with read_tx(self._engine) as conn:
            row = conn.execute(sa.select(PROPERTY).where(P.property_id == property_id)).first()
        return _record(dict(row._mapping)) if row is not None else None

    def list_properties(self) -> list[PropertyRecord]:
        with read_tx(self._engine) as conn:
            rows = conn.execute(sa.select(PROPERTY).order_by(P.property_id)).all()
        return [_record(dict(row._mapping)) for row in rows]


def _merge(current: Mapping[str, Any] | None, change: Mapping[str, Any] | None) -> dict[str, Any]:
    merged = dict(current or {})
    for name, value in (change or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def _record(row: Mapping[str, Any]) -> PropertyRecord:
    return PropertyRecord(
        property_id=row["property_id"],
        overrides=dict(row["overrides"] or {}),
        secret_refs=dict(row["secret_refs"] or {}),
        paused=bool(row["paused"]),
        paused_reason=row["paused_reason"],
        created_at=row["created_at"],
    )
