"""How an emulator handler says no: an ``ApiError`` becomes the service's error body (03)."""

from __future__ import annotations


class ApiError(Exception):
    """An HTTP error answer with the 03 error body ``{"error": {code, message, field}}``."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        super().__init__(f"{status} {code}: {message}")


def not_found(what: str, ident: object) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} {ident} does not exist", None)


def invalid(field: str | None, message: str, code: str = "INVALID_VALUE") -> ApiError:
    return ApiError(400, code, message, field)


def conflict(message: str, field: str | None = None) -> ApiError:
    return ApiError(409, "CONFLICT", message, field)
