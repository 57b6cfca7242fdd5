"""The only way roomsync talks to the service (docs/client.md).

    async with ServiceClient(context, budget_store=store.budget, token_store=store.tokens) as client:
        listing = await client.get_listing(account_id, listing_id)

Every request is budgeted against the property's daily quota before it is sent, authenticated
with a persisted token (or a static key), retried only when that is safe, and measured through
one hook. Errors: :mod:`roomsync.adapters.client.errors`.
"""

from typing import TYPE_CHECKING, Any

from roomsync.adapters.client.budget_view import (
    BudgetView,
    PriorityLine,
    budget_for_today,
    budget_view,
    load_budget_view,
    render_budget,
)
from roomsync.adapters.client.classify import Action, Verdict, classify
from roomsync.adapters.client.config import ConnectionLimits, RetryPolicy, Timeouts, reserves_of
from roomsync.adapters.client.errors import (
    AmbiguousWrite,
    AuthError,
    FatalError,
    NotFoundError,
    QuotaExhausted,
    RetriableError,
    ServiceError,
    UnexpectedResponse,
)
from roomsync.adapters.client.records import RequestHook, RequestRecord, ignore_record

__all__ = [
    "Action",
    "AmbiguousWrite",
    "AuthError",
    "BudgetView",
    "ConnectionLimits",
    "FatalError",
    "NotFoundError",
    "PriorityLine",
    "QuotaExhausted",
    "RequestHook",
    "RequestRecord",
    "RetriableError",
    "RetryPolicy",
    "ServiceClient",
    "ServiceError",
    "Timeouts",
    "UnexpectedResponse",
    "Verdict",
    "budget_for_today",
    "budget_view",
    "classify",
    "ignore_record",
    "load_budget_view",
    "render_budget",
    "reserves_of",
]

if TYPE_CHECKING:
    from roomsync.adapters.client.operations import ServiceClient


def __getattr__(name: str) -> Any:
    # the client's methods bring every model of the catalog (about half a second to import): a
    # command that only reads the store, or catches the client's errors, must not wait for them
    if name == "ServiceClient":
        from roomsync.adapters.client.operations import ServiceClient

        return ServiceClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
