"""The property's mapping of room types to listings (``MappingStore``), replaced as a whole.

Stored as rows, not as one document, so a query can ask which listings a room type feeds.
``replace_mapping`` swaps the property's listing and connected-push rows in one transaction: a
reader sees the old mapping or the new one, never a mix. (Deleting a property's
``property_mapping`` row takes its other rows with it, ON DELETE CASCADE.) Every run loads the
mapping: each replace, and a property's removal, draws a new generation (:mod:`.generations`),
and the store keeps per property the mapping of the generation it last read.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from roomsync.adapters.store._sql import insert_for, read_tx, write_tx
from roomsync.adapters.store.generations import MAPPING, KeptReads, generation_of, new_generation
from roomsync.adapters.store.tables import CONNECTED_PUSH, LISTING_MAPPING, PROPERTY_MAPPING
from roomsync.core.mapping import (
    AvailabilityRules,
    ConnectedPush,
    ListingKind,
    ListingMapping,
    Mapping,
    PriceRule,
    Restrictions,
)

LM = LISTING_MAPPING.c
CP = CONNECTED_PUSH.c


class SqlMappingStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._kept: KeptReads[Mapping] = KeptReads()
        """Per property, the mapping of the generation last read (every run loads it); a frozen
        model, shared."""

    def replace_mapping(self, property_id: str, mapping: Mapping) -> None:
        listings = [_listing_row(property_id, i, entry) for i, entry in enumerate(mapping.listings)]
        pushes = [_push_row(property_id, i, push) for i, push in enumerate(mapping.connected)]
        with write_tx(self._engine) as conn:
            # Upsert the property's row first: it locks that row, so a concurrent replace (another
            # replica loading a mapping) waits here and then replaces this one whole, last wins.
            parent = insert_for(conn, PROPERTY_MAPPING).values(
                property_id=property_id, currency=mapping.currency
            )
            conn.execute(
                parent.on_conflict_do_update(
                    index_elements=[PROPERTY_MAPPING.c.property_id],
                    set_={"currency": parent.excluded.currency},
                )
            )
            conn.execute(sa.delete(LISTING_MAPPING).where(LM.property_id == property_id))
            conn.execute(sa.delete(CONNECTED_PUSH).where(CP.property_id == property_id))
            if listings:
                conn.execute(sa.insert(LISTING_MAPPING), listings)
            if pushes:
                conn.execute(sa.insert(CONNECTED_PUSH), pushes)
            new_generation(conn, property_id, MAPPING)

    def count_listings(self, property_id: str) -> int:
        query = sa.select(sa.func.count()).select_from(LISTING_MAPPING).where(LM.property_id == property_id)
        with read_tx(self._engine) as conn:
            return int(conn.execute(query).scalar_one())

    def load_mapping(self, property_id: str) -> Mapping | None:
        with read_tx(self._engine) as conn:
            generation = generation_of(conn, property_id, MAPPING)
            kept = self._kept.get(property_id, generation)
            if kept is not None:
                return kept
            currency = conn.execute(
                sa.select(PROPERTY_MAPPING.c.currency).where(PROPERTY_MAPPING.c.property_id == property_id)
            ).scalar_one_or_none()
            if currency is None:
                self._kept.forget(property_id)
                return None
            listings = conn.execute(
                sa.select(LISTING_MAPPING).where(LM.property_id == property_id).order_by(LM.position)
            ).all()
            pushes = conn.execute(
                sa.select(CONNECTED_PUSH).where(CP.property_id == property_id).order_by(CP.position)
            ).all()
        mapping = Mapping(
            currency=currency,
            listings=tuple(listing_of_row(row._mapping) for row in listings),
            connected=tuple(_push(row._mapping) for row in pushes),
        )
        self._kept.keep(property_id, generation, (), mapping)
        return mapping


def _listing_row(property_id: str, position: int, entry: ListingMapping) -> dict[str, Any]:
    rules = entry.availability_rules
    return {
        "property_id": property_id,
        "account_id": entry.account_id,
        "listing_id": entry.listing_id,
        "position": position,
        "room_type_id": entry.room_type_id,
        "kind": entry.kind.value,
        "currency": entry.currency,
        "markup_percent": entry.price.markup_percent,
        "markup_amount": entry.price.markup_amount,
        "min_nights": entry.restrictions.min_nights,
        "max_nights": entry.restrictions.max_nights,
        "closed_to_arrival": sorted(entry.restrictions.closed_to_arrival),
        "closed_to_departure": sorted(entry.restrictions.closed_to_departure),
        "availability_rules": None if rules is None else rules.model_dump(mode="json", exclude_none=True),
    }


def listing_of_row(values: Any) -> ListingMapping:
    rules = values["availability_rules"]
    return ListingMapping(
        room_type_id=values["room_type_id"],
        account_id=values["account_id"],
        listing_id=values["listing_id"],
        kind=ListingKind(values["kind"]),
        currency=values["currency"],
        price=PriceRule(markup_percent=values["markup_percent"], markup_amount=values["markup_amount"]),
        restrictions=Restrictions(
            min_nights=values["min_nights"],
            max_nights=values["max_nights"],
            closed_to_arrival=frozenset(values["closed_to_arrival"]),
            closed_to_departure=frozenset(values["closed_to_departure"]),
        ),
        availability_rules=None if rules is None else AvailabilityRules.model_validate(rules),
    )


def _push_row(property_id: str, position: int, push: ConnectedPush) -> dict[str, Any]:
    return {
        "property_id": property_id,
        "room_type_id": push.room_type_id,
        "position": position,
        "standard": push.standard,
        "non_refundable_discount_percent": push.non_refundable_discount_percent,
    }


def _push(values: Any) -> ConnectedPush:
    return ConnectedPush(
        room_type_id=values["room_type_id"],
        standard=values["standard"],
        non_refundable_discount_percent=values["non_refundable_discount_percent"],
    )
