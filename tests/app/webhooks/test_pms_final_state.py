"""A busy stretch with the worker running alongside the receiver, every delivery sent twice: the
PMS ends with every channel reservation exactly once, with the right status, dates, price and
payments."""

from __future__ import annotations

import asyncio
from decimal import Decimal

from roomsync.core.ports import InboxStatus
from support.webhooks import DOUBLES, STUDIO_A, STUDIO_B, TWINS, Harness


async def test_the_pms_ends_with_each_channel_reservation_once_and_right(harness: Harness) -> None:
    harness.ctl("POST", "/webhooks/settings", {"duplicate": True})
    for listing in (STUDIO_A, STUDIO_B, DOUBLES, TWINS):
        harness.open_channel(listing, 160, 200)
    stop = asyncio.Event()
    worker = asyncio.create_task(harness.worker.run(stop))  # woken by the receiver as events arrive
    try:
        codes = [
            harness.book(listing, start, nights)["confirmationCode"]
            for listing, start, nights in [
                (STUDIO_A, 160, 2),
                (STUDIO_B, 160, 3),
                (DOUBLES, 161, 4),
                (DOUBLES, 161, 2),
                (TWINS, 165, 5),
                (TWINS, 170, 1),
                (STUDIO_A, 175, 2),
                (DOUBLES, 180, 3),
            ]
        ]
        await asyncio.to_thread(harness.settle)
        alter = [(codes[2], 163, 3), (codes[4], 166, 2)]
        for code, start, nights in alter:
            result = harness.ctl(
                "POST",
                "/guest/alter",
                {"confirmationCode": code, "startDate": harness.day(start).isoformat(), "nights": nights},
            )
            assert result["altered"] is True, result
        harness.ctl("POST", "/guest/cancel", {"confirmationCode": codes[3], "by": "guest"})
        harness.ctl("POST", "/guest/cancel", {"confirmationCode": codes[5], "by": "host"})
        harness.ctl("POST", "/guest/cancel", {"confirmationCode": codes[5], "by": "guest"})
        for code in (codes[0], codes[2], codes[3]):
            harness.ctl("POST", "/host/payout", {"confirmationCode": code})
        await asyncio.to_thread(harness.settle)
    finally:
        stop.set()
        await worker  # it finishes the batch in hand and stops
    await harness.worker.drain()  # whatever it had not reached yet

    assert harness.inbox_counts()[InboxStatus.FAILED] == 0
    for code in codes:
        channel = harness.state.channel.reservations[code]
        pms = harness.the_pms_reservation(code)  # exactly one each
        cancelled = channel.status_type.startswith("cancelled")
        altered = code in {c for c, _, _ in alter}
        assert pms.reservation_status_id == (11 if cancelled else 10 if altered else 3), code
        assert (pms.date_from, (pms.date_to - pms.date_from).days) == (channel.start_date, channel.nights), (
            code
        )
        expected = (
            channel.cancellation_payout + channel.cancellation_host_fee
            if cancelled
            else channel.base_price + channel.cleaning_fee
        )
        assert pms.total_agreed_price == expected, code
        paid = sum(
            (p.amount for p in harness.state.pms.payments.values() if p.reservation_id == pms.id),
            Decimal("0"),
        )
        assert paid == channel.total_paid, code
