"""Guests (document 02): read, create (optionally connected to a reservation), change, delete."""

from __future__ import annotations

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import guests as api
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import path_id, pms, required_text
from roomsync.emulator.pms.handlers.convert import all_fields, sent_fields, to_model
from roomsync.emulator.pms.state import PmsState
from roomsync.emulator.registry import Call, handles


def guest_model(guest: records.Guest) -> api.Guest:
    return to_model(api.Guest, guest)


def guest_list(state: PmsState, guest_ids: list[int]) -> api.GuestList:
    return api.GuestList(root=[guest_model(state.guests[i]) for i in guest_ids if i in state.guests])


def connect(state: PmsState, guest: records.Guest, reservation: records.Reservation) -> None:
    """Add ``guest`` to ``reservation``; a new primary guest replaces the previous one."""
    if guest.id not in reservation.guest_ids:
        reservation.guest_ids.append(guest.id)
    guest.reservation_id = reservation.id
    if guest.is_primary_guest:
        for other_id in reservation.guest_ids:
            other = state.guests.get(other_id)
            if other is not None and other.id != guest.id and other.reservation_id == reservation.id:
                other.is_primary_guest = 0


def disconnect(state: PmsState, guest: records.Guest) -> None:
    for reservation in state.reservations.values():
        if guest.id in reservation.guest_ids:
            reservation.guest_ids.remove(guest.id)


@handles("list_guests")
def list_guests(call: Call) -> api.GuestList:
    state = pms(call)
    return guest_list(state, sorted(state.guests))


@handles("get_guest")
def get_guest(call: Call) -> api.Guest:
    return guest_model(pms(call).guest(path_id(call)))


@handles("list_reservation_guests")
def list_reservation_guests(call: Call) -> api.GuestList:
    state = pms(call)
    return guest_list(state, state.reservation(path_id(call)).guest_ids)


@handles("create_guest")
def create_guest(call: Call) -> IdResult:
    state = pms(call)
    body: api.GuestCreateRequest = call.body
    values = all_fields(body)
    values.pop("id", None)
    values["first_name"] = required_text(body.first_name, "firstName")
    values["last_name"] = required_text(body.last_name, "lastName")
    values["is_primary_guest"] = values.get("is_primary_guest") or 0
    reservation = state.reservation(body.reservation_id, "reservationId") if body.reservation_id else None
    guest = records.Guest(id=state.allocate_id("guest"), **values)
    state.guests[guest.id] = guest
    if reservation is not None:
        connect(state, guest, reservation)
    return IdResult(id=guest.id)


@handles("update_guest")
def update_guest(call: Call) -> None:
    state = pms(call)
    body: api.GuestUpdateRequest = call.body
    guest = state.guest(body.id, "id")
    changes = sent_fields(body)
    changes.pop("id", None)
    for name, label in (("first_name", "firstName"), ("last_name", "lastName")):
        if name in changes:
            changes[name] = required_text(changes[name], label)
    if changes.get("is_primary_guest", 0) is None:
        changes["is_primary_guest"] = 0
    new_reservation = None
    if "reservation_id" in changes and changes["reservation_id"] is not None:
        new_reservation = state.reservation(changes["reservation_id"], "reservationId")
    for name, value in changes.items():
        setattr(guest, name, value)
    if "reservation_id" in changes:
        disconnect(state, guest)
        if new_reservation is not None:
            connect(state, guest, new_reservation)
    elif guest.is_primary_guest and guest.reservation_id in state.reservations:
        connect(state, guest, state.reservations[guest.reservation_id])


@handles("delete_guest")
def delete_guest(call: Call) -> None:
    state = pms(call)
    guest = state.guest(path_id(call))
    disconnect(state, guest)
    del state.guests[guest.id]
