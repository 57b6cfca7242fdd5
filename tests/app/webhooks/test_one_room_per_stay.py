"""A stay is answered, held and placed by one rule: one room free on every night of it.

Two studios (room type 4): the front desk books studio 1 on the second night and studio 2 on the
first, so each night has a free studio but no studio is free on both. A two-night guest must be
told no (CheckAvailability and MakeReservation alike), with the reason recorded; a one-night
guest is still told yes; and two guests whose stays share a night cannot both hold the one room
that is free on all of their nights.
"""

from __future__ import annotations

from typing import Any

from support.webhooks import STUDIO_A, STUDIO_B, STUDIO_TYPE, Harness


def studios(harness: Harness) -> list[int]:
    return [room.id for room in harness.state.pms.sorted_rooms() if room.room_type_id == STUDIO_TYPE]


def front_desk(harness: Harness, room_id: int, night: int) -> None:
    harness.ctl(
        "POST",
        "/pms/book",
        {
            "dateFrom": harness.day(night).isoformat(),
            "dateTo": harness.day(night + 1).isoformat(),
            "lastName": "Frontdesk",
            "roomId": room_id,
        },
    )


def check(harness: Harness, listing: str, start: int, nights: int) -> dict[str, Any]:
    answer: dict[str, Any] = harness.post(harness.check_event(listing, start, nights)).json()
    return answer


def make(harness: Harness, code: str, listing: str, start: int, nights: int) -> dict[str, Any]:
    body = harness.make_event(code, listing, start, nights, base_price="200.00")
    answer: dict[str, Any] = harness.post(body, webhook_id=f"make-{code}").json()
    return answer


async def test_a_stay_split_over_two_rooms_is_refused(harness: Harness) -> None:
    first, second = studios(harness)
    front_desk(harness, first, 241)  # studio 1 busy on the second night
    front_desk(harness, second, 240)  # studio 2 busy on the first night

    assert check(harness, STUDIO_A, 240, 1)["succeed"] is True  # one night: studio 1 is free
    assert check(harness, STUDIO_A, 240, 2)["succeed"] is False
    assert make(harness, "HMSPLIT001", STUDIO_A, 240, 2)["succeed"] is False
    reasons = [a.reason for a in harness.answers() if a.nights == 2]
    assert reasons and all("no single room" in (reason or "") for reason in reasons), reasons
    assert harness.state.pms.blocking_reservation(first, harness.day(240), harness.day(241)) is None


async def test_overlapping_stays_cannot_both_hold_the_only_room_free_throughout(harness: Harness) -> None:
    _, second = studios(harness)
    front_desk(harness, second, 251)  # studio 2 busy on night 251 only
    # nights 250-251: only studio 1 fits; night 250 alone: either studio
    assert make(harness, "HMLONG0001", STUDIO_A, 250, 2)["succeed"] is True
    assert make(harness, "HMSHORT001", STUDIO_B, 251, 1)["succeed"] is False  # studio 1 is held
    assert make(harness, "HMSHORT002", STUDIO_B, 250, 1)["succeed"] is True  # studio 2 is free
    assert make(harness, "HMSHORT003", STUDIO_A, 250, 1)["succeed"] is False  # both held now
