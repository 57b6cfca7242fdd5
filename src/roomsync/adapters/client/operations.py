"""One typed method per catalog operation: thin wrappers over :meth:`BaseClient.call`.

Generated once from the catalog and kept in step by ``tests/adapters/client/test_operations.py``,
which checks that every operation has a method of its name taking its path parameters (snake_case)
and, when it has a request model, a ``body``. List responses come back as plain lists.
"""

from __future__ import annotations

from typing import Any, TypeVar

from roomsync.adapters.client.answers import DigestedAnswer
from roomsync.adapters.client.base import BaseClient
from roomsync.core.api import base, channel, channel_manager, service
from roomsync.core.api.pms import (
    availability,
    contracts,
    customers,
    extra_charges,
    guests,
    invoices,
    payments,
    reservations,
    rooms,
)
from roomsync.core.catalog import Operation, by_name
from roomsync.core.catalog.types import Priority

__all__ = ["ServiceClient"]

ModelT = TypeVar("ModelT")


def _op(name: str) -> Operation:
    return by_name(name)


def _expect(model: type[ModelT], value: Any) -> ModelT:
    if not isinstance(value, model):  # pragma: no cover - call() decodes into the catalog model
        raise TypeError(f"expected {model.__name__}, got {type(value).__name__}")
    return value


class ServiceClient(BaseClient):
    """The service, one typed method per operation; see :class:`BaseClient` for the machinery."""

    async def get_usage(self, *, priority: Priority | None = None) -> service.Usage:
        """Requests used today and the daily quota; counts as a request itself.

        ``GET /v1/Usage``
        """
        return _expect(service.Usage, await self.call(_op("get_usage"), priority=priority))

    async def list_accounts(self, *, priority: Priority | None = None) -> list[channel.Account]:
        """All authorized host accounts.

        ``GET /v1/ChannelManager/{channel}/Accounts``
        """
        return _expect(channel.AccountList, await self.call(_op("list_accounts"), priority=priority)).root

    async def get_account(self, id: str | int, *, priority: Priority | None = None) -> channel.Account:
        """One authorized host account.

        ``GET /v1/ChannelManager/{channel}/Account/{id}``
        """
        return _expect(
            channel.Account, await self.call(_op("get_account"), params={"id": id}, priority=priority)
        )

    async def delete_account(self, id: str | int, *, priority: Priority | None = None) -> None:
        """Unauthorize a host account; answers with an empty body.

        ``DELETE /v1/ChannelManager/{channel}/Account/{id}``
        """
        await self.call(_op("delete_account"), params={"id": id}, priority=priority)

    async def list_listings(self, *, priority: Priority | None = None) -> list[channel.Listing]:
        """Listings of all accounts.

        ``GET /v1/ChannelManager/{channel}/Listings``
        """
        return _expect(channel.ListingList, await self.call(_op("list_listings"), priority=priority)).root

    async def list_account_listings(
        self,
        account_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[channel.Listing]:
        """Listings of one account.

        ``GET /v1/ChannelManager/{channel}/Listings/{accountId}``
        """
        return _expect(
            channel.ListingList,
            await self.call(
                _op("list_account_listings"), params={"accountId": account_id}, priority=priority
            ),
        ).root

    async def get_listing(
        self,
        account_id: str | int,
        listing_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> channel.ListingDetail:
        """One listing, with its currency and price.

        ``GET /v1/ChannelManager/{channel}/Listing/{accountId}/{listingId}``
        """
        return _expect(
            channel.ListingDetail,
            await self.call(
                _op("get_listing"),
                params={"accountId": account_id, "listingId": listing_id},
                priority=priority,
            ),
        )

    async def update_listing(
        self,
        body: channel.ListingUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> channel.Listing:
        """Connect, disconnect, or update a listing (inventory count, property, hasAvailability).

        ``PUT /v1/ChannelManager/{channel}/Listing``
        """
        return _expect(channel.Listing, await self.call(_op("update_listing"), body=body, priority=priority))

    async def get_availability_rules(
        self,
        account_id: str | int,
        listing_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> channel.AvailabilityRule:
        """Availability rules of a listing.

        ``GET /v1/ChannelManager/{channel}/AvailabilityRules/{accountId}/{listingId}``
        """
        return _expect(
            channel.AvailabilityRule,
            await self.call(
                _op("get_availability_rules"),
                params={"accountId": account_id, "listingId": listing_id},
                priority=priority,
            ),
        )

    async def update_availability_rules(
        self,
        body: channel.AvailabilityRulesUpdate,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change the availability rules that are sent; HTTP 200, no object.

        ``PUT /v1/ChannelManager/{channel}/AvailabilityRules``
        """
        await self.call(_op("update_availability_rules"), body=body, priority=priority)

    async def read_inventory(
        self,
        body: channel.InventoryQuery,
        *,
        priority: Priority | None = None,
    ) -> list[channel.Inventory]:
        """Availability, price and restrictions of a listing, one entry per day of the range.

        ``POST /v1/ChannelManager/{channel}/Inventory``
        """
        return _expect(
            channel.InventoryList, await self.call(_op("read_inventory"), body=body, priority=priority)
        ).root

    async def update_inventory(
        self,
        body: channel.InventoryUpdate,
        *,
        priority: Priority | None = None,
    ) -> channel.UpdatedDays:
        """Apply inventory operations (availability, count, price, restrictions) to day ranges.

        ``PUT /v1/ChannelManager/{channel}/Inventory``
        """
        return _expect(
            channel.UpdatedDays, await self.call(_op("update_inventory"), body=body, priority=priority)
        )

    async def get_pricing_settings(
        self,
        account_id: str | int,
        listing_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> channel.PricingSettings:
        """Pricing settings of a listing, default pricing rules included.

        ``GET /v1/ChannelManager/{channel}/PricingSettings/{accountId}/{listingId}``
        """
        return _expect(
            channel.PricingSettings,
            await self.call(
                _op("get_pricing_settings"),
                params={"accountId": account_id, "listingId": listing_id},
                priority=priority,
            ),
        )

    async def update_pricing_settings(
        self,
        body: channel.PricingSettingsUpdate,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change the pricing settings that are sent; HTTP 200, no object.

        ``PUT /v1/ChannelManager/{channel}/PricingSettings``
        """
        await self.call(_op("update_pricing_settings"), body=body, priority=priority)

    async def list_rule_sets(
        self,
        account_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[channel.RuleSet]:
        """Rule-sets of an account.

        ``GET /v1/ChannelManager/{channel}/RuleSets/{accountId}``
        """
        return _expect(
            channel.RuleSetList,
            await self.call(_op("list_rule_sets"), params={"accountId": account_id}, priority=priority),
        ).root

    async def create_rule_set(
        self,
        body: channel.RuleSetCreate,
        *,
        priority: Priority | None = None,
    ) -> channel.RuleSet:
        """Create a rule-set for an account; answers with the new rule-set.

        ``POST /v1/ChannelManager/{channel}/RuleSet``
        """
        return _expect(channel.RuleSet, await self.call(_op("create_rule_set"), body=body, priority=priority))

    async def update_rule_set(self, body: channel.RuleSetUpdate, *, priority: Priority | None = None) -> None:
        """Change a rule-set; no rule-set is returned.

        ``PUT /v1/ChannelManager/{channel}/RuleSet``
        """
        await self.call(_op("update_rule_set"), body=body, priority=priority)

    async def delete_rule_set(
        self,
        account_id: str | int,
        rule_set_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Delete a rule-set.

        ``DELETE /v1/ChannelManager/{channel}/RuleSet/{accountId}/{ruleSetId}``
        """
        await self.call(
            _op("delete_rule_set"),
            params={"accountId": account_id, "ruleSetId": rule_set_id},
            priority=priority,
        )

    async def get_rule_set_timeline(
        self,
        account_id: str | int,
        listing_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[channel.RuleSetTimeline]:
        """Rule-sets applied to a listing, with their date ranges.

        ``GET /v1/ChannelManager/{channel}/RuleSetTimeline/{accountId}/{listingId}``
        """
        return _expect(
            channel.RuleSetTimelineList,
            await self.call(
                _op("get_rule_set_timeline"),
                params={"accountId": account_id, "listingId": listing_id},
                priority=priority,
            ),
        ).root

    async def apply_rule_set_timeline(
        self,
        body: channel.RuleSetTimelineApply,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Apply a rule-set to a listing for a date range; no timeline is returned.

        ``POST /v1/ChannelManager/{channel}/RuleSetTimeline``
        """
        await self.call(_op("apply_rule_set_timeline"), body=body, priority=priority)

    async def remove_rule_set_timeline(
        self,
        body: channel.RuleSetTimelineRemove,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Remove the rule-sets applied to a listing for a date range; no timeline is returned.

        ``PUT /v1/ChannelManager/{channel}/RuleSetTimeline``
        """
        await self.call(_op("remove_rule_set_timeline"), body=body, priority=priority)

    async def get_channel_reservation(
        self,
        account_id: str | int,
        confirmation_code: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[channel.Reservation]:
        """A reservation by confirmation code (the documented example is an array).

        ``GET /v1/ChannelManager/{channel}/Reservation/{accountId}/{confirmationCode}``
        """
        return _expect(
            channel.ReservationList,
            await self.call(
                _op("get_channel_reservation"),
                params={"accountId": account_id, "confirmationCode": confirmation_code},
                priority=priority,
            ),
        ).root

    async def list_listing_reservations(
        self,
        account_id: str | int,
        listing_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[channel.Reservation]:
        """Future reservations of a listing.

        ``GET /v1/ChannelManager/{channel}/Reservations/{accountId}/{listingId}``
        """
        return _expect(
            channel.ReservationList,
            await self.call(
                _op("list_listing_reservations"),
                params={"accountId": account_id, "listingId": listing_id},
                priority=priority,
            ),
        ).root

    async def list_channel_names(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[channel_manager.ChannelName]:
        """Channels that can be managed through the service.

        ``GET /v1/ChannelManager/ChannelNames``
        """
        return _expect(
            channel_manager.ChannelNameList, await self.call(_op("list_channel_names"), priority=priority)
        ).root

    async def list_connected_channels(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[channel_manager.Channel]:
        """Channels connected to the property.

        ``GET /v1/ChannelManager/Channels``
        """
        return _expect(
            channel_manager.ChannelList, await self.call(_op("list_connected_channels"), priority=priority)
        ).root

    async def push_prices(
        self,
        body: channel_manager.PricesRequest,
        *,
        priority: Priority | None = None,
    ) -> channel_manager.ChannelResponse:
        """Enqueue prices of a room type and rate for date ranges to the connected channels.

        ``POST /v1/ChannelManager/Prices``
        """
        return _expect(
            channel_manager.ChannelResponse, await self.call(_op("push_prices"), body=body, priority=priority)
        )

    async def list_extra_charges(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[extra_charges.ExtraCharge]:
        """All extra charges that can be charged to a reservation.

        ``GET /v1/ExtraCharges``
        """
        return _expect(
            extra_charges.ExtraChargeList, await self.call(_op("list_extra_charges"), priority=priority)
        ).root

    async def list_extra_charge_categories(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[extra_charges.ExtraChargeCategory]:
        """All extra charge categories.

        ``GET /v1/ExtraCharge/Categories``
        """
        return _expect(
            extra_charges.ExtraChargeCategoryList,
            await self.call(_op("list_extra_charge_categories"), priority=priority),
        ).root

    async def post_pos_charge(
        self,
        body: extra_charges.PosChargeRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Charge point-of-sale items to the reservation found by room title.

        ``POST /v1/ExtraCharge/Pos``
        """
        await self.call(_op("post_pos_charge"), body=body, priority=priority)

    async def update_pos_charge(
        self,
        body: extra_charges.PosChargeUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Update the point-of-sale items charged to the reservation found by room title.

        ``PUT /v1/ExtraCharge/UpdatePos``
        """
        await self.call(_op("update_pos_charge"), body=body, priority=priority)

    async def get_customer(self, id: str | int, *, priority: Priority | None = None) -> customers.Customer:
        """One customer.

        ``GET /v1/Customer/{id}``
        """
        return _expect(
            customers.Customer, await self.call(_op("get_customer"), params={"id": id}, priority=priority)
        )

    async def list_customers(self, *, priority: Priority | None = None) -> list[customers.Customer]:
        """All customers of the property.

        ``GET /v1/Customers``
        """
        return _expect(customers.CustomerList, await self.call(_op("list_customers"), priority=priority)).root

    async def filter_customers(
        self,
        body: customers.CustomerFilterRequest,
        *,
        priority: Priority | None = None,
    ) -> list[customers.Customer]:
        """The customers that match every field of the filter.

        ``POST /v1/Customers``
        """
        return _expect(
            customers.CustomerList, await self.call(_op("filter_customers"), body=body, priority=priority)
        ).root

    async def create_customer(
        self,
        body: customers.CustomerCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Create a customer (lastName required); answers its id.

        ``POST /v1/Customer``
        """
        return _expect(base.IdResult, await self.call(_op("create_customer"), body=body, priority=priority))

    async def update_customer(
        self,
        body: customers.CustomerUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Replace a customer's data; fields not sent are reset to their defaults.

        ``PUT /v1/Customer``
        """
        await self.call(_op("update_customer"), body=body, priority=priority)

    async def delete_customer(
        self,
        body: customers.CustomerDeleteRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Delete a customer, its id in the body.

        ``DELETE /v1/Customer``
        """
        await self.call(_op("delete_customer"), body=body, priority=priority)

    async def list_guests(self, *, priority: Priority | None = None) -> list[guests.Guest]:
        """All guests.

        ``GET /v1/Guests``
        """
        return _expect(guests.GuestList, await self.call(_op("list_guests"), priority=priority)).root

    async def get_guest(self, id: str | int, *, priority: Priority | None = None) -> guests.Guest:
        """One guest.

        ``GET /v1/Guest/{id}``
        """
        return _expect(guests.Guest, await self.call(_op("get_guest"), params={"id": id}, priority=priority))

    async def list_reservation_guests(
        self,
        reservation_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[guests.Guest]:
        """The guests of a reservation.

        ``GET /v1/Guests/{reservationId}``
        """
        return _expect(
            guests.GuestList,
            await self.call(
                _op("list_reservation_guests"), params={"reservationId": reservation_id}, priority=priority
            ),
        ).root

    async def create_guest(
        self,
        body: guests.GuestCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Create a guest, connected to a reservation if reservationId is given; answers its id.

        ``POST /v1/Guest``
        """
        return _expect(base.IdResult, await self.call(_op("create_guest"), body=body, priority=priority))

    async def update_guest(
        self,
        body: guests.GuestUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change the fields sent of a guest.

        ``PUT /v1/Guest``
        """
        await self.call(_op("update_guest"), body=body, priority=priority)

    async def delete_guest(self, id: str | int, *, priority: Priority | None = None) -> None:
        """Delete a guest.

        ``DELETE /v1/Guest/{id}``
        """
        await self.call(_op("delete_guest"), params={"id": id}, priority=priority)

    async def get_reservation(
        self,
        id: str | int,
        *,
        priority: Priority | None = None,
    ) -> reservations.Reservation:
        """One reservation, basic object (with customerId).

        ``GET /v1/Reservation/{id}``
        """
        return _expect(
            reservations.Reservation,
            await self.call(_op("get_reservation"), params={"id": id}, priority=priority),
        )

    async def list_future_reservations(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationExtended]:
        """All future reservations, extended objects.

        ``GET /v1/Reservations/Future``
        """
        return _expect(
            reservations.ReservationExtendedList,
            await self.call(_op("list_future_reservations"), priority=priority),
        ).root

    async def create_reservation(
        self,
        body: reservations.ReservationCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Create a reservation in the status given; answers its id.

        ``POST /v1/Reservation``
        """
        return _expect(
            base.IdResult, await self.call(_op("create_reservation"), body=body, priority=priority)
        )

    async def get_reservations(
        self,
        body: reservations.ReservationIdsRequest,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationExtended]:
        """The extended objects of the reservations with the ids given.

        ``POST /v1/Reservations``
        """
        return _expect(
            reservations.ReservationExtendedList,
            await self.call(_op("get_reservations"), body=body, priority=priority),
        ).root

    async def get_reservations_v2(
        self,
        body: reservations.ReservationIdsRequest,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationV2]:
        """The extended objects of the reservations given, customer as one object.

        ``POST /v2/Reservations``
        """
        return _expect(
            reservations.ReservationV2List,
            await self.call(_op("get_reservations_v2"), body=body, priority=priority),
        ).root

    async def filter_reservations(
        self,
        body: reservations.ReservationFilterRequest,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationSearchResult]:
        """Ids and dates of the reservations that match every field of the filter.

        ``POST /v1/Reservations/Filter``
        """
        return _expect(
            reservations.ReservationSearchResultList,
            await self.call(_op("filter_reservations"), body=body, priority=priority),
        ).root

    async def add_reservation_guest(
        self,
        reservation_id: str | int,
        body: reservations.ReservationGuestLink,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Add an existing guest to a reservation.

        ``POST /v1/Reservation/{reservationId}/Guest``
        """
        await self.call(
            _op("add_reservation_guest"),
            params={"reservationId": reservation_id},
            body=body,
            priority=priority,
        )

    async def list_checked_in_v2(
        self,
        body: reservations.CheckedInRequest,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationV2]:
        """Reservations checked in between two dates.

        ``POST /v2/Reservations/CheckedIn``
        """
        return _expect(
            reservations.ReservationV2List,
            await self.call(_op("list_checked_in_v2"), body=body, priority=priority),
        ).root

    async def list_reservation_statuses_v2(
        self,
        body: reservations.ReservationStatusChunkRequest,
        *,
        priority: Priority | None = None,
    ) -> reservations.ReservationStatusChunk:
        """A chunk of up to 2000 reservation ids with their status.

        ``POST /v2/Reservations/Status``
        """
        return _expect(
            reservations.ReservationStatusChunk,
            await self.call(_op("list_reservation_statuses_v2"), body=body, priority=priority),
        )

    async def update_reservation(
        self,
        body: reservations.ReservationUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Replace the data of an existing reservation.

        ``PUT /v1/Reservation``
        """
        await self.call(_op("update_reservation"), body=body, priority=priority)

    async def update_reservation_fields(
        self,
        id: str | int,
        body: reservations.ReservationFieldsUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change the fields sent of an existing reservation.

        ``PUT /v1/Reservation/{id}``
        """
        await self.call(_op("update_reservation_fields"), params={"id": id}, body=body, priority=priority)

    async def list_reservation_extra_charges(
        self,
        id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[reservations.ReservationExtraCharge]:
        """The extra charges booked on a reservation.

        ``GET /v1/Reservation/{id}/ExtraCharges``
        """
        return _expect(
            reservations.ReservationExtraChargeList,
            await self.call(_op("list_reservation_extra_charges"), params={"id": id}, priority=priority),
        ).root

    async def add_reservation_extra_charge(
        self,
        id: str | int,
        body: reservations.ReservationExtraChargeCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Book an extra charge on a reservation; answers the charge's id.

        ``POST /v1/Reservation/{id}/ExtraCharge``
        """
        return _expect(
            base.IdResult,
            await self.call(
                _op("add_reservation_extra_charge"), params={"id": id}, body=body, priority=priority
            ),
        )

    async def delete_reservation_extra_charge(
        self,
        id: str | int,
        id2: str | int,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Remove an extra charge (id2) from a reservation (id).

        ``DELETE /v1/Reservation/{id}/ExtraCharge/{id2}``
        """
        await self.call(
            _op("delete_reservation_extra_charge"), params={"id": id, "id2": id2}, priority=priority
        )

    async def group_reservations(
        self,
        body: reservations.ReservationGroupRequest,
        *,
        priority: Priority | None = None,
    ) -> reservations.ReservationGroupResult:
        """Group two or more reservations; answers the group's GUID.

        ``POST /v1/Reservations/Group``
        """
        return _expect(
            reservations.ReservationGroupResult,
            await self.call(_op("group_reservations"), body=body, priority=priority),
        )

    async def ungroup_reservations(
        self,
        body: reservations.ReservationUngroupRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Take reservations out of their group; ungrouping all deletes the group.

        ``POST /v1/Reservations/Ungroup``
        """
        await self.call(_op("ungroup_reservations"), body=body, priority=priority)

    async def list_reservation_payments(
        self,
        id: str | int,
        *,
        priority: Priority | None = None,
    ) -> list[payments.Payment]:
        """Payments of a reservation and of the reservations grouped with it.

        ``GET /v1/Reservation/{id}/Payments``
        """
        return _expect(
            payments.PaymentList,
            await self.call(_op("list_reservation_payments"), params={"id": id}, priority=priority),
        ).root

    async def get_reservation_contract(
        self,
        reservation_id: str | int,
        *,
        priority: Priority | None = None,
    ) -> contracts.ReservationContract:
        """The contract of a reservation.

        ``GET /v1/ReservationContract/{reservationId}``
        """
        return _expect(
            contracts.ReservationContract,
            await self.call(
                _op("get_reservation_contract"), params={"reservationId": reservation_id}, priority=priority
            ),
        )

    async def create_reservation_contract(
        self,
        body: contracts.ReservationContractCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Give a reservation a contract; answers the contract's id.

        ``POST /v1/ReservationContract``
        """
        return _expect(
            base.IdResult, await self.call(_op("create_reservation_contract"), body=body, priority=priority)
        )

    async def update_reservation_contract(
        self,
        body: contracts.ReservationContractUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Change the span of a reservation's contract; answers the contract's id.

        ``PUT /v1/ReservationContract``
        """
        return _expect(
            base.IdResult, await self.call(_op("update_reservation_contract"), body=body, priority=priority)
        )

    async def delete_reservation_contract(self, id: str | int, *, priority: Priority | None = None) -> None:
        """Remove a reservation contract.

        ``DELETE /v1/ReservationContract/{id}``
        """
        await self.call(_op("delete_reservation_contract"), params={"id": id}, priority=priority)

    async def room_availability(
        self,
        body: availability.RoomAvailabilityRequest,
        *,
        priority: Priority | None = None,
    ) -> list[availability.RoomAvailability]:
        """Per room, runs of available and unavailable nights in a window.

        ``POST /v1/Availability/Room``
        """
        return _expect(
            availability.RoomAvailabilityList,
            await self.call(_op("room_availability"), body=body, priority=priority),
        ).root

    async def room_availability_digested(
        self,
        body: availability.RoomAvailabilityRequest,
        *,
        priority: Priority | None = None,
    ) -> DigestedAnswer[list[availability.RoomAvailability]]:
        """:meth:`room_availability` as the digest of its answer, decoded on demand (a poll that
        knows what an answer of that digest says skips decoding it)."""
        answer = await self.call_digested(_op("room_availability"), body=body, priority=priority)
        return DigestedAnswer(
            answer.digest, lambda: _expect(availability.RoomAvailabilityList, answer.model()).root
        )

    async def room_type_availability(
        self,
        body: availability.RoomTypeAvailabilityRequest,
        *,
        priority: Priority | None = None,
    ) -> availability.RoomTypeAvailability:
        """Free rooms per room type for a stay, with contracts and closed dates.

        ``POST /v1/Availability/RoomType/Combined``
        """
        return _expect(
            availability.RoomTypeAvailability,
            await self.call(_op("room_type_availability"), body=body, priority=priority),
        )

    async def room_type_availability_extended(
        self,
        body: availability.RoomTypeAvailabilityExtendedRequest,
        *,
        priority: Priority | None = None,
    ) -> availability.RoomTypeAvailabilityExtended:
        """As room_type_availability, with the price of the stay per room type.

        ``POST /v1/Availability/RoomType/CombinedExtended``
        """
        return _expect(
            availability.RoomTypeAvailabilityExtended,
            await self.call(_op("room_type_availability_extended"), body=body, priority=priority),
        )

    async def create_payment(
        self,
        body: payments.PaymentCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Record a payment of a reservation; answers its id.

        ``POST /v1/Payment``
        """
        return _expect(base.IdResult, await self.call(_op("create_payment"), body=body, priority=priority))

    async def delete_payment(self, id: str | int, *, priority: Priority | None = None) -> None:
        """Delete a payment.

        ``DELETE /v1/Payment/{id}``
        """
        await self.call(_op("delete_payment"), params={"id": id}, priority=priority)

    async def update_payment(
        self,
        body: payments.PaymentUpdateRequest,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change the fields sent of a payment.

        ``PUT /v1/Payment``
        """
        await self.call(_op("update_payment"), body=body, priority=priority)

    async def list_payment_descriptions(
        self,
        *,
        priority: Priority | None = None,
    ) -> list[payments.PaymentDescription]:
        """All payment descriptions.

        ``GET /v1/PaymentDescriptions``
        """
        return _expect(
            payments.PaymentDescriptionList,
            await self.call(_op("list_payment_descriptions"), priority=priority),
        ).root

    async def create_payment_description(
        self,
        body: payments.PaymentDescriptionCreateRequest,
        *,
        priority: Priority | None = None,
    ) -> base.IdResult:
        """Add a payment description; answers its id.

        ``POST /v1/PaymentDescription``
        """
        return _expect(
            base.IdResult, await self.call(_op("create_payment_description"), body=body, priority=priority)
        )

    async def update_payment_description(
        self,
        body: payments.PaymentDescription,
        *,
        priority: Priority | None = None,
    ) -> None:
        """Change a payment description.

        ``PUT /v1/PaymentDescription``
        """
        await self.call(_op("update_payment_description"), body=body, priority=priority)

    async def delete_payment_description(self, id: str | int, *, priority: Priority | None = None) -> None:
        """Remove a payment description.

        ``DELETE /v1/PaymentDescription/{id}``
        """
        await self.call(_op("delete_payment_description"), params={"id": id}, priority=priority)

    async def preview_invoice(
        self,
        body: invoices.InvoicePreviewRequest,
        *,
        priority: Priority | None = None,
    ) -> invoices.InvoicePreview:
        """Preview of the final invoice of a reservation.

        ``POST /v1/Invoice/Preview``
        """
        return _expect(
            invoices.InvoicePreview, await self.call(_op("preview_invoice"), body=body, priority=priority)
        )

    async def filter_invoices(
        self,
        body: invoices.InvoiceFilterRequest,
        *,
        priority: Priority | None = None,
    ) -> list[invoices.Invoice]:
        """Invoices issued between two dates.

        ``POST /v1/Invoices/Filter``
        """
        return _expect(
            invoices.InvoiceList, await self.call(_op("filter_invoices"), body=body, priority=priority)
        ).root

    async def list_rooms(self, *, priority: Priority | None = None) -> list[rooms.Room]:
        """All rooms with their room type and room group.

        ``GET /v1/Rooms``
        """
        return _expect(rooms.RoomList, await self.call(_op("list_rooms"), priority=priority)).root

    async def list_rooms_extended(self, *, priority: Priority | None = None) -> list[rooms.RoomExtended]:
        """All rooms with every field (clean status, capacity, priority).

        ``GET /v1/RoomsExtended``
        """
        return _expect(
            rooms.RoomExtendedList, await self.call(_op("list_rooms_extended"), priority=priority)
        ).root
