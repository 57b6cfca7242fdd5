"""Reservation contracts (document 02): at most one per reservation."""

from __future__ import annotations

from roomsync.core.api.base import IdResult
from roomsync.core.api.pms import contracts as api
from roomsync.emulator.errors import conflict
from roomsync.emulator.pms import records
from roomsync.emulator.pms.handlers.common import path_id, pms
from roomsync.emulator.pms.handlers.convert import to_model
from roomsync.emulator.pms.state import PmsState, check_stay, not_found
from roomsync.emulator.registry import Call, handles


def _contract_of(state: PmsState, reservation_id: int) -> records.ReservationContract | None:
    return next((c for c in state.reservation_contracts.values() if c.reservation_id == reservation_id), None)


def _check(state: PmsState, body: api.ReservationContractCreateRequest, contract_id: int | None) -> None:
    check_stay(body.contract_start, body.contract_end, "ContractStart", "ContractEnd")
    state.reservation(body.reservation_id, "ReservationId")
    held = _contract_of(state, body.reservation_id)
    if held is not None and held.id != contract_id:
        raise conflict(f"reservation {body.reservation_id} already has contract {held.id}", "ReservationId")


@handles("get_reservation_contract")
def get_reservation_contract(call: Call) -> api.ReservationContract:
    state = pms(call)
    reservation = state.reservation(path_id(call))
    contract = _contract_of(state, reservation.id)
    if contract is None:
        raise not_found("contract of reservation", reservation.id)
    return to_model(api.ReservationContract, contract)


@handles("create_reservation_contract")
def create_reservation_contract(call: Call) -> IdResult:
    state = pms(call)
    body: api.ReservationContractCreateRequest = call.body
    _check(state, body, None)
    contract = records.ReservationContract(
        state.allocate_id("reservation_contract"), body.reservation_id, body.contract_start, body.contract_end
    )
    state.reservation_contracts[contract.id] = contract
    return IdResult(id=contract.id)


@handles("update_reservation_contract")
def update_reservation_contract(call: Call) -> IdResult:
    state = pms(call)
    body: api.ReservationContractUpdateRequest = call.body
    contract = state.reservation_contracts.get(body.id)
    if contract is None:
        raise not_found("contract", body.id, "Id")
    _check(state, body, contract.id)
    contract.reservation_id = body.reservation_id
    contract.contract_start = body.contract_start
    contract.contract_end = body.contract_end
    return IdResult(id=contract.id)


@handles("delete_reservation_contract")
def delete_reservation_contract(call: Call) -> None:
    state = pms(call)
    contract_id = path_id(call)
    if contract_id not in state.reservation_contracts:
        raise not_found("contract", contract_id)
    del state.reservation_contracts[contract_id]
