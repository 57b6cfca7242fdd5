"""Polling's budget split between the polls and the detections when a kind needs more runs than
its share of the pace gives it: its max gap through the day (:func:`gaps_kept`) or a burst of
bookings (:func:`polls_kept_for`). Both lift the polls the same way (:func:`polls_lifted`); they
differ in what the detections keep and whether the polls may pass the day's ceiling.
"""

from __future__ import annotations

from roomsync.core.burst import Burst


def polls_lifted(
    budgets: tuple[float, float], need: float, *, limit: float, detections_kept: float, past_ceiling: bool
) -> tuple[float, float]:
    """The polls' and the detections' ``budgets`` once the polls get ``need``: from what is left
    under the day's ceiling (``limit``), then from the detections' budget down to
    ``detections_kept``, then, where ``past_ceiling``, past the ceiling (the caller has checked
    that the quota affords it)."""
    polls, detections = budgets
    if polls >= need:
        return polls, detections
    lift = need - polls
    from_slack = min(lift, max(limit - polls - detections, 0.0))
    from_detections = min(lift - from_slack, max(detections - detections_kept, 0.0))
    lifted = need if past_ceiling else polls + from_slack + from_detections
    return lifted, detections - from_detections


def gaps_kept(
    budgets: tuple[float, float], floors: tuple[float, float], limit: float, room: float, split: float
) -> tuple[float, float]:
    """The polls' and the detections' budgets once each kind gets the runs its max gap needs
    (``floors``), where the pace or the day's ceiling (``limit``) gave it fewer.

    The polls come first: their floor is taken from what the pace left under the ceiling, then
    from the detections' share, then past the ceiling while the quota (``room``) affords it, a
    gap of hours being a booking sold twice. The detections' floor is taken only from what is
    still left under the ceiling: before, it was kept past the ceiling with the polls' share
    untouched, and a day of detections of 10-13 requests spent 64-78 % of the quota against a
    60 % ceiling (the week bench). When not even the polls' floor fits the quota (a free licence),
    all it affords is spent in the learned ``split``."""
    poll_floor, detect_floor = floors
    if poll_floor > room:
        return room * (1 - split), room * split
    polls, detections = polls_lifted(budgets, poll_floor, limit=limit, detections_kept=0.0, past_ceiling=True)
    slack = max(limit - polls - detections, 0.0)
    return polls, detections + max(min(detect_floor - detections, slack), 0.0)


def polls_kept_for(
    burst: Burst,
    budgets: tuple[float, float],
    *,
    seconds_to_reset: float,
    poll_gap: float,
    poll_cost: float,
    detect_floor: float,
    limit: float,
) -> tuple[float, float]:
    """The polls' and the detections' ``budgets`` once the polls get what a burst of bookings
    needs (its gap for its time, the polls' max gap ``poll_gap`` after it, one run more as
    :func:`roomsync.core.schedule.shape_runs` keeps the burst's gap only below its budget): from
    what the plan left under the day's ceiling (``limit``), then from the detections' budget down
    to their max-gap ``detect_floor``, or to half of it where it cannot keep that floor anyway;
    never past the ceiling.

    Without it, late in the busy-hour bench's hour the day's ceiling no longer afforded the polls'
    burst gap beside the detections' 42 % share, and bookings made after 11:05 waited 161-656 s.
    The detections keep half: a burst that lasted all day would otherwise leave the closures to
    the full syncs."""
    in_burst = min(burst.seconds, seconds_to_reset)
    need = (in_burst / burst.gap + (seconds_to_reset - in_burst) / poll_gap + 1) * max(poll_cost, 1.0)
    kept = min(detect_floor, budgets[1] / 2)
    return polls_lifted(budgets, need, limit=limit, detections_kept=kept, past_ceiling=False)
