"""Which PMS reservation each channel reservation became (``ReservationLinkStore``).

``claim_link`` is the outbox guard of reservation creation: the primary key
``(property_id, confirmation_code)`` lets exactly one caller insert the ``creating`` row, so two
replicas handling the same ``MakeReservation`` never both create a PMS reservation.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import NotFound, insert_for, read_tx, write_tx
from roomsync.adapters.store.tables import RESERVATION_LINK
from roomsync.core.ports import ReservationLink

L = RESERVATION_LINK.c
CREATING = "creating"
CREATED = "created"


class SqlReservationLinkStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def claim_link(
        self, property_id: str, confirmation_code: str, listing_id: str | None, at: datetime
    ) -> bool:
        values = {
            "property_id": property_id,
            "confirmation_code": confirmation_code,
            "listing_id": listing_id,
            "status": CREATING,
            "created_at": at,
            "updated_at": at,
        }
        with write_tx(self._engine) as conn:
            stmt = insert_for(conn, RESERVATION_LINK).values(values)
            stmt = stmt.on_conflict_do_nothing(index_elements=[L.property_id, L.confirmation_code])
            return conn.execute(stmt.returning(L.confirmation_code)).first() is not None

    def get_link(self, property_id: str, confirmation_code: str) -> ReservationLink | None:
        query = sa.select(RESERVATION_LINK).where(
            L.property_id == property_id, L.confirmation_code == confirmation_code
        )
        with read_tx(self._engine) as conn:
            row = conn.execute(query).one_or_none()
        return None if row is None else ReservationLink(**dict(row._mapping))

    def record_created(
        self,
        property_id: str,
        confirmation_code: str,
        pms_reservation_id: int,
        pms_customer_id: int | None,
        at: datetime,
    ) -> None:
        self._update(
            property_id,
            confirmation_code,
            status=CREATED,
            pms_reservation_id=pms_reservation_id,
            pms_customer_id=pms_customer_id,
            updated_at=at,
        )

    def set_link_status(
        self,
        property_id: str,
        confirmation_code: str,
        status: str,
        at: datetime,
        last_payout: Decimal | None = None,
    ) -> None:
        values: dict[str, Any] = {"status": status, "updated_at": at}
        if last_payout is not None:
            values["last_payout"] = last_payout
        self._update(property_id, confirmation_code, **values)

    def _update(self, property_id: str, confirmation_code: str, **values: Any) -> None:
        stmt = (
            sa.update(RESERVATION_LINK)
            .where(L.property_id == property_id, L.confirmation_code == confirmation_code)
            .values(values)
        )
        with write_tx(self._engine) as conn:
            if conn.execute(stmt).rowcount != 1:
                raise NotFound(f"property {property_id!r} has no reservation link {confirmation_code!r}")
