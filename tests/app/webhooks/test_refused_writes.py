"""A write the service refuses as it is is not retried: it waits, refused, for a person.

The channel sells a listing in a currency the PMS does not know, so ``POST /v1/Reservation``
answers 400 (``currencyCode``). The worker sends that create once, records the service's
message, marks the event ``refused`` (status, ``roomsync webhooks``, the gauge the
``RoomsyncWebhookRefused`` alert reads) and spends no further guest request on it. Once the hotel
adds the currency, a replay places the booking exactly once.
"""

from __future__ import annotations

import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from roomsync.app.webhook_replay import replay_event
from roomsync.core.ports import InboxStatus
from support.webhooks import PROPERTY, STUDIO_A, Harness

ALERTS = Path(__file__).parents[3] / "config" / "prometheus-alerts.yml"
DESCRIPTION = (
    "A booking or change from the channel is not in the PMS. `roomsync webhooks --status refused` "
    "shows the service's answer; fix the cause (mapping, settings, release), then "
    "`roomsync webhooks replay ID`."
)


def creates(harness: Harness) -> int:
    return harness.state.log.counts["POST /v1/Reservation"]


def refused_gauge(harness: Harness) -> float | None:
    labels = {"property": PROPERTY}
    return harness.metrics.registry.get_sample_value("roomsync_webhook_events_refused", labels)


async def test_a_refused_create_is_sent_once_marked_for_a_person_and_placed_by_a_replay(
    harness: Harness, tmp_path: Path
) -> None:
    harness.state.channel.listings[STUDIO_A].currency = "CHF"  # the PMS knows EUR, not CHF
    before = creates(harness)
    code = harness.book(STUDIO_A, 230, 2, firstName="Lea", lastName="Meier")["confirmationCode"]
    harness.settle()
    await harness.drain()
    for _ in range(3):  # later rounds of the worker spend nothing more on it
        await harness.drain()

    assert creates(harness) - before == 1, "the refused create was sent more than once"
    assert harness.pms_reservations(code) == []
    refused = harness.store.webhook_records.recent_inbox(PROPERTY, 50, InboxStatus.REFUSED.value)
    assert len(refused) == 1
    item = refused[0]
    assert item.action == "ReservationAcceptanceConfirmation"
    assert "400" in (item.last_error or "") and "currencyCode" in (item.last_error or "")
    assert refused_gauge(harness) == 1.0
    assert harness.inbox_counts()[InboxStatus.REFUSED] == 1

    # what the alert rule makes of the series roomsync exported
    fires_on(tmp_path, refused_gauge(harness) or 0.0)

    # the hotel adds the currency; an operator replays the event
    harness.state.pms.exchange_rates["CHF"] = Decimal("0.95")
    said = replay_event(harness.store, PROPERTY, item.id, item.received_at)  # what `webhooks replay` does
    assert "queued again" in said
    await harness.drain()
    placed = harness.the_pms_reservation(code)
    assert (placed.date_from, placed.date_to) == (harness.day(230), harness.day(232))
    customer = harness.state.pms.customers[placed.customer_id]
    assert (customer.first_name, customer.last_name) == ("Lea", "Meier")
    assert creates(harness) - before == 2
    assert refused_gauge(harness) == 0.0


def fires_on(tmp_path: Path, value: float) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool is missing: the README's test command and .ci/run install it (prometheus)")
    test_file = tmp_path / "refused_alert_test.yml"
    test_file.write_text(
        f"""rule_files: [{ALERTS}]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'roomsync_webhook_events_refused{{property="{PROPERTY}"}}'
        values: '{value:g}x10'
    alert_rule_test:
      - eval_time: 2m
        alertname: RoomsyncWebhookRefused
        exp_alerts:
          - exp_labels: {{severity: critical, property: {PROPERTY}}}
            exp_annotations:
              summary: "roomsync: {value:g} channel event(s) of {PROPERTY} refused by the service"
              description: "{DESCRIPTION}"
"""
    )
    result = subprocess.run([promtool, "test", "rules", str(test_file)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
