"""What the service has that a mapping names: read once (two requests) before a mapping is loaded.

``GET Listings`` gives every authorized account's listings; one ``CombinedExtended`` read of
tonight gives every PMS room type with its price currency. ``core.mapping.mapping_problems``
then says, one line per entry, what the mapping names that the service does not have, so a
mistyped room type is refused at load time instead of closing a listing at the next sync.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from roomsync.adapters.client import ServiceClient
from roomsync.core.api.pms.availability import RoomTypeAvailabilityExtendedRequest
from roomsync.core.catalog.types import Priority
from roomsync.core.mapping import Mapping, MappingError, mapping_problems
from roomsync.core.ports import ListingKey


@dataclass(frozen=True)
class ServiceFacts:
    property_id: str
    """The property whose client read them."""
    currency: str
    room_type_ids: frozenset[int]
    listings: frozenset[ListingKey]


async def read_service_facts(client: ServiceClient, today: date) -> ServiceFacts:
    """The PMS currency and room types and the channel's listings (two requests)."""
    listings = await client.list_listings(priority=Priority.AVAILABILITY)
    tonight = await client.room_type_availability_extended(
        RoomTypeAvailabilityExtendedRequest(date_from=today, date_to=today + timedelta(days=1)),
        priority=Priority.AVAILABILITY,
    )
    currencies = {room.currency_code.upper() for room in tonight.available_rooms if room.currency_code}
    if not currencies:
        raise MappingError("the PMS did not say in which currency it prices (no currencyCode tonight)")
    if len(currencies) > 1:
        raise MappingError(f"the PMS prices in several currencies ({', '.join(sorted(currencies))})")
    pid = client.property_id
    return ServiceFacts(
        property_id=pid,
        currency=currencies.pop(),
        room_type_ids=frozenset(room.room_type_id for room in tonight.available_rooms),
        listings=frozenset(ListingKey(pid, listing.account_id, listing.listing_id) for listing in listings),
    )


def check_against_service(mapping: Mapping, facts: ServiceFacts, source: str) -> None:
    """Raise ``MappingError`` listing every entry the service does not have, one per line."""
    problems = mapping_problems(
        mapping,
        property_id=facts.property_id,
        pms_currency=facts.currency,
        room_type_ids=facts.room_type_ids,
        listings=facts.listings,
    )
    if problems:
        count = f"{len(problems)} entr{'y' if len(problems) == 1 else 'ies'}"
        raise MappingError(f"{source}: {count} the service does not have:\n  " + "\n  ".join(problems))
