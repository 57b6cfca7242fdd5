"""The webhook receiver: HTTP in, events stored (docs/webhooks.md).

This package translates and stores: the receiver (``POST /webhooks/{channel}[/{property}]``), who
may deliver (signature and token), how a delivery is recognised again and ordered (keys), which
event kinds are applied on receipt (kinds); its blocking store calls run on the store's threads
(``Store.db_calls``).
What a guest check is answered, and how a stored event is applied to the PMS and the listing
states, is application logic: ``roomsync.app.webhooks`` (the checkout desk, the reservation
bridge, the inbox worker), which wires the receiver with its desk. The receiver never imports it.
"""

from __future__ import annotations

from roomsync.adapters.webhooks.auth import WebhookAuth, WebhookAuthConfigError
from roomsync.adapters.webhooks.ports import Answered, Clock, GuestCheck, GuestCheckDesk, Verdict
from roomsync.adapters.webhooks.receiver import WebhookReceiver, create_receiver_app, utc_now

__all__ = [
    "Answered",
    "Clock",
    "GuestCheck",
    "GuestCheckDesk",
    "Verdict",
    "WebhookAuth",
    "WebhookAuthConfigError",
    "WebhookReceiver",
    "create_receiver_app",
    "utc_now",
]
