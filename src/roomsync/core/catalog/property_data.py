"""Catalog entries of document 02: the property data (PMS) operations, 51 of them.

Priorities: reservation, customer, guest and payment writes (and the charges and contracts of a
reservation) are guest-facing; the two availability reads feed availability pushes; the priced
``CombinedExtended`` read feeds price pushes; every other read is reconciliation. Shapes other
than ``SPEC`` are recorded in ``docs/shapes/property.md``.
"""

from __future__ import annotations

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import (
    CheckedInRequest,
    Customer,
    CustomerCreateRequest,
    CustomerDeleteRequest,
    CustomerFilterRequest,
    CustomerList,
    CustomerUpdateRequest,
    ExtraChargeCategoryList,
    ExtraChargeList,
    Guest,
    GuestCreateRequest,
    GuestList,
    GuestUpdateRequest,
    InvoiceFilterRequest,
    InvoiceList,
    InvoicePreview,
    InvoicePreviewRequest,
    PaymentCreateRequest,
    PaymentDescription,
    PaymentDescriptionCreateRequest,
    PaymentDescriptionList,
    PaymentList,
    PaymentUpdateRequest,
    PosChargeRequest,
    PosChargeUpdateRequest,
    Reservation,
    ReservationContract,
    ReservationContractCreateRequest,
    ReservationContractUpdateRequest,
    ReservationCreateRequest,
    ReservationExtendedList,
    ReservationExtraChargeCreateRequest,
    ReservationExtraChargeList,
    ReservationFieldsUpdateRequest,
    ReservationFilterRequest,
    ReservationGroupRequest,
    ReservationGroupResult,
    ReservationGuestLink,
    ReservationIdsRequest,
    ReservationSearchResultList,
    ReservationStatusChunk,
    ReservationStatusChunkRequest,
    ReservationUngroupRequest,
    ReservationUpdateRequest,
    ReservationV2List,
    RoomAvailabilityList,
    RoomAvailabilityRequest,
    RoomExtendedList,
    RoomList,
    RoomTypeAvailability,
    RoomTypeAvailabilityExtended,
    RoomTypeAvailabilityExtendedRequest,
    RoomTypeAvailabilityRequest,
)
from roomsync.core.catalog.types import Operation, Priority, ShapeSource

_GUEST = Priority.GUEST
_READ = Priority.RECONCILE
_HELP = ShapeSource.HELP_PAGES
_OURS = ShapeSource.ROOMSYNC

_EXTRA_CHARGES: tuple[Operation, ...] = (
    Operation(
        "list_extra_charges", "GET", "/v1/ExtraCharges", None, ExtraChargeList,
        "All extra charges that can be charged to a reservation.", "02", priority=_READ,
    ),
    Operation(
        "list_extra_charge_categories", "GET", "/v1/ExtraCharge/Categories", None, ExtraChargeCategoryList,
        "All extra charge categories.", "02", priority=_READ,
    ),
    Operation(
        "post_pos_charge", "POST", "/v1/ExtraCharge/Pos", PosChargeRequest, None,
        "Charge point-of-sale items to the reservation found by room title.", "02",
        priority=_GUEST, creates=True,
    ),
    Operation(
        "update_pos_charge", "PUT", "/v1/ExtraCharge/UpdatePos", PosChargeUpdateRequest, None,
        "Update the point-of-sale items charged to the reservation found by room title.", "02",
        priority=_GUEST,
    ),
)

_CUSTOMERS: tuple[Operation, ...] = (
    Operation(
        "get_customer", "GET", "/v1/Customer/{id}", None, Customer,
        "One customer.", "02", priority=_READ,
    ),
    Operation(
        "list_customers", "GET", "/v1/Customers", None, CustomerList,
        "All customers of the property.", "02", priority=_READ,
    ),
    Operation(
        "filter_customers", "POST", "/v1/Customers", CustomerFilterRequest, CustomerList,
        "The customers that match every field of the filter.", "02", priority=_READ,
    ),
    Operation(
        "create_customer", "POST", "/v1/Customer", CustomerCreateRequest, IdResult,
        "Create a customer (lastName required); answers its id.", "02", priority=_GUEST, creates=True,
    ),
    Operation(
        "update_customer", "PUT", "/v1/Customer", CustomerUpdateRequest, None,
        "Replace a customer's data; fields not sent are reset to their defaults.", "02", priority=_GUEST,
    ),
    Operation(
        "delete_customer", "DELETE", "/v1/Customer", CustomerDeleteRequest, None,
        "Delete a customer, its id in the body.", "02", priority=_GUEST, shape=_OURS,
    ),
)

_GUESTS: tuple[Operation, ...] = (
    Operation(
        "list_guests", "GET", "/v1/Guests", None, GuestList,
        "All guests.", "02", priority=_READ,
    ),
    Operation(
        "get_guest", "GET", "/v1/Guest/{id}", None, Guest,
        "One guest.", "02", priority=_READ,
    ),
    Operation(
        "list_reservation_guests", "GET", "/v1/Guests/{reservationId}", None, GuestList,
        "The guests of a reservation.", "02", priority=_READ,
    ),
    Operation(
        "create_guest", "POST", "/v1/Guest", GuestCreateRequest, IdResult,
        "Create a guest, connected to a reservation if reservationId is given; answers its id.", "02",
        priority=_GUEST, creates=True,
    ),
    Operation(
        "update_guest", "PUT", "/v1/Guest", GuestUpdateRequest, None,
        "Change the fields sent of a guest.", "02", priority=_GUEST,
    ),
    Operation(
        "delete_guest", "DELETE", "/v1/Guest/{id}", None, None,
        "Delete a guest.", "02", priority=_GUEST,
    ),
)

_RESERVATIONS: tuple[Operation, ...] = (
    Operation(
        "get_reservation", "GET", "/v1/Reservation/{id}", None, Reservation,
        "One reservation, basic object (with customerId).", "02", priority=_READ,
    ),
    Operation(
        "list_future_reservations", "GET", "/v1/Reservations/Future", None, ReservationExtendedList,
        "All future reservations, extended objects.", "02", priority=_READ,
    ),
    Operation(
        "create_reservation", "POST", "/v1/Reservation", ReservationCreateRequest, IdResult,
        "Create a reservation in the status given; answers its id.", "02", priority=_GUEST, creates=True,
    ),
    Operation(
        "get_reservations", "POST", "/v1/Reservations", ReservationIdsRequest, ReservationExtendedList,
        "The extended objects of the reservations with the ids given.", "02", priority=_READ,
    ),
    Operation(
        "get_reservations_v2", "POST", "/v2/Reservations", ReservationIdsRequest, ReservationV2List,
        "The extended objects of the reservations given, customer as one object.", "02", priority=_READ,
    ),
    Operation(
        "filter_reservations", "POST", "/v1/Reservations/Filter", ReservationFilterRequest,
        ReservationSearchResultList,
        "Ids and dates of the reservations that match every field of the filter.", "02", priority=_READ,
    ),
    Operation(
        "add_reservation_guest", "POST", "/v1/Reservation/{reservationId}/Guest", ReservationGuestLink, None,
        "Add an existing guest to a reservation.", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "list_checked_in_v2", "POST", "/v2/Reservations/CheckedIn", CheckedInRequest, ReservationV2List,
        "Reservations checked in between two dates.", "02", priority=_READ, shape=_OURS,
    ),
    Operation(
        "list_reservation_statuses_v2", "POST", "/v2/Reservations/Status", ReservationStatusChunkRequest,
        ReservationStatusChunk,
        "A chunk of up to 2000 reservation ids with their status.", "02", priority=_READ, shape=_OURS,
    ),
    Operation(
        "update_reservation", "PUT", "/v1/Reservation", ReservationUpdateRequest, None,
        "Replace the data of an existing reservation.", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "update_reservation_fields", "PUT", "/v1/Reservation/{id}", ReservationFieldsUpdateRequest, None,
        "Change the fields sent of an existing reservation.", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "list_reservation_extra_charges", "GET", "/v1/Reservation/{id}/ExtraCharges", None,
        ReservationExtraChargeList,
        "The extra charges booked on a reservation.", "02", priority=_READ, shape=_OURS,
    ),
    Operation(
        "add_reservation_extra_charge", "POST", "/v1/Reservation/{id}/ExtraCharge",
        ReservationExtraChargeCreateRequest, IdResult,
        "Book an extra charge on a reservation; answers the charge's id.", "02",
        priority=_GUEST, creates=True, shape=_OURS,
    ),
    Operation(
        "delete_reservation_extra_charge", "DELETE", "/v1/Reservation/{id}/ExtraCharge/{id2}", None, None,
        "Remove an extra charge (id2) from a reservation (id).", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "group_reservations", "POST", "/v1/Reservations/Group", ReservationGroupRequest,
        ReservationGroupResult,
        "Group two or more reservations; answers the group's GUID.", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "ungroup_reservations", "POST", "/v1/Reservations/Ungroup", ReservationUngroupRequest, None,
        "Take reservations out of their group; ungrouping all deletes the group.", "02",
        priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "list_reservation_payments", "GET", "/v1/Reservation/{id}/Payments", None, PaymentList,
        "Payments of a reservation and of the reservations grouped with it.", "02",
        priority=_READ, shape=_OURS,
    ),
)

_CONTRACTS: tuple[Operation, ...] = (
    Operation(
        "get_reservation_contract", "GET", "/v1/ReservationContract/{reservationId}", None,
        ReservationContract,
        "The contract of a reservation.", "02", priority=_READ, shape=_HELP,
    ),
    Operation(
        "create_reservation_contract", "POST", "/v1/ReservationContract", ReservationContractCreateRequest,
        IdResult,
        "Give a reservation a contract; answers the contract's id.", "02",
        priority=_GUEST, creates=True, shape=_HELP,
    ),
    Operation(
        "update_reservation_contract", "PUT", "/v1/ReservationContract", ReservationContractUpdateRequest,
        IdResult,
        "Change the span of a reservation's contract; answers the contract's id.", "02",
        priority=_GUEST, shape=_HELP,
    ),
    Operation(
        "delete_reservation_contract", "DELETE", "/v1/ReservationContract/{id}", None, None,
        "Remove a reservation contract.", "02", priority=_GUEST, shape=_OURS,
    ),
)

_AVAILABILITY: tuple[Operation, ...] = (
    Operation(
        "room_availability", "POST", "/v1/Availability/Room", RoomAvailabilityRequest, RoomAvailabilityList,
        "Per room, runs of available and unavailable nights in a window.", "02",
        priority=Priority.AVAILABILITY, shape=_HELP,
    ),
    Operation(
        "room_type_availability", "POST", "/v1/Availability/RoomType/Combined", RoomTypeAvailabilityRequest,
        RoomTypeAvailability,
        "Free rooms per room type for a stay, with contracts and closed dates.", "02",
        priority=Priority.AVAILABILITY,
    ),
    Operation(
        "room_type_availability_extended", "POST", "/v1/Availability/RoomType/CombinedExtended",
        RoomTypeAvailabilityExtendedRequest, RoomTypeAvailabilityExtended,
        "As room_type_availability, with the price of the stay per room type.", "02",
        priority=Priority.PRICES,
    ),
)

_PAYMENTS: tuple[Operation, ...] = (
    Operation(
        "create_payment", "POST", "/v1/Payment", PaymentCreateRequest, IdResult,
        "Record a payment of a reservation; answers its id.", "02",
        priority=_GUEST, creates=True, shape=_HELP,
    ),
    Operation(
        "delete_payment", "DELETE", "/v1/Payment/{id}", None, None,
        "Delete a payment.", "02", priority=_GUEST,
    ),
    Operation(
        "update_payment", "PUT", "/v1/Payment", PaymentUpdateRequest, None,
        "Change the fields sent of a payment.", "02", priority=_GUEST,
    ),
    Operation(
        "list_payment_descriptions", "GET", "/v1/PaymentDescriptions", None, PaymentDescriptionList,
        "All payment descriptions.", "02", priority=_READ, shape=_OURS,
    ),
    Operation(
        "create_payment_description", "POST", "/v1/PaymentDescription", PaymentDescriptionCreateRequest,
        IdResult,
        "Add a payment description; answers its id.", "02", priority=_GUEST, creates=True, shape=_OURS,
    ),
    Operation(
        "update_payment_description", "PUT", "/v1/PaymentDescription", PaymentDescription, None,
        "Change a payment description.", "02", priority=_GUEST, shape=_OURS,
    ),
    Operation(
        "delete_payment_description", "DELETE", "/v1/PaymentDescription/{id}", None, None,
        "Remove a payment description.", "02", priority=_GUEST, shape=_OURS,
    ),
)

_INVOICES: tuple[Operation, ...] = (
    Operation(
        "preview_invoice", "POST", "/v1/Invoice/Preview", InvoicePreviewRequest, InvoicePreview,
        "Preview of the final invoice of a reservation.", "02", priority=_READ,
    ),
    Operation(
        "filter_invoices", "POST", "/v1/Invoices/Filter", InvoiceFilterRequest, InvoiceList,
        "Invoices issued between two dates.", "02", priority=_READ,
    ),
)

_ROOMS: tuple[Operation, ...] = (
    Operation(
        "list_rooms", "GET", "/v1/Rooms", None, RoomList,
        "All rooms with their room type and room group.", "02", priority=_READ, shape=_HELP,
    ),
    Operation(
        "list_rooms_extended", "GET", "/v1/RoomsExtended", None, RoomExtendedList,
        "All rooms with every field (clean status, capacity, priority).", "02", priority=_READ, shape=_HELP,
    ),
)

OPERATIONS: tuple[Operation, ...] = (
    *_EXTRA_CHARGES,
    *_CUSTOMERS,
    *_GUESTS,
    *_RESERVATIONS,
    *_CONTRACTS,
    *_AVAILABILITY,
    *_PAYMENTS,
    *_INVOICES,
    *_ROOMS,
)
