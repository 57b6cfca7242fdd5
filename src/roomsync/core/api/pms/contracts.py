"""Reservation contracts: the time span of the contract held by a reservation (document 02)."""

from __future__ import annotations

from datetime import date

from pydantic import ValidationInfo, field_validator

from roomsync.core.api.base import ApiModel, element
from roomsync.core.api.pms.common import DateSentAsDateTime, require_ordered


class ReservationContract(ApiModel, tag="ReservationContract"):
    """``GET /v1/ReservationContract/{reservationId}``; the dates come as midnight date-times."""

    id: int | None = element(tag="Id", default=None, nillable=True)
    contract_start: DateSentAsDateTime | None = element(tag="ContractStart", default=None, nillable=True)
    contract_end: DateSentAsDateTime | None = element(tag="ContractEnd", default=None, nillable=True)
    reservation_id: int | None = element(tag="ReservationId", default=None, nillable=True)


class ReservationContractCreateRequest(ApiModel, tag="ReservationContract"):
    """``POST /v1/ReservationContract``; its names are PascalCase in JSON too, as documented."""

    contract_start: date = element(tag="ContractStart", alias="ContractStart")
    contract_end: date = element(tag="ContractEnd", alias="ContractEnd")
    reservation_id: int = element(tag="ReservationId", alias="ReservationId")

    @field_validator("contract_end")
    @classmethod
    def _span(cls, value: date, info: ValidationInfo) -> date:
        require_ordered(
            info.data.get("contract_start"), value, strict=True, names=("ContractStart", "ContractEnd")
        )
        return value


class ReservationContractUpdateRequest(ReservationContractCreateRequest, tag="ReservationContract"):
    """``PUT /v1/ReservationContract``: the contract ``Id`` and its new span; answered with the id."""

    id: int = element(tag="Id", alias="Id")


XML_NAME_EXCEPTIONS: dict[str, str] = {}
"""Every contract field's XML name is the PascalCase of its JSON name."""
