"""The emulator's controllable clock.

Everything in the emulator that depends on time asks this clock, never the wall clock: the
property's "today" (and so the 730-day channel window), the quota day and its reset at 00:00 UTC,
token expiry, and the timestamps of webhook deliveries and their signatures. Tests and the demo
set, advance and freeze it through the control surface.

The clock runs at wall-clock speed from an offset, or stands still when frozen. The property's
local calendar is UTC in the emulator (a documented choice, docs/emulator.md), so ``today`` is the
UTC date of ``now``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta


def _as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class EmulatorClock:
    """Wall-clock time shifted by an offset, optionally frozen at one instant."""

    def __init__(
        self,
        start: datetime | None = None,
        *,
        frozen: bool = False,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._wall = wall
        self._offset = 0.0 if start is None else _as_utc(start).timestamp() - wall()
        self._frozen_at: float | None = None
        self._listeners: list[Callable[[], None]] = []
        if frozen:
            self.freeze()

    # --- reading ----------------------------------------------------------------------------
    def timestamp(self) -> float:
        """Unix seconds of the emulated instant."""
        if self._frozen_at is not None:
            return self._frozen_at
        return self._wall() + self._offset

    def now(self) -> datetime:
        """The emulated instant, UTC."""
        return datetime.fromtimestamp(self.timestamp(), tz=UTC)

    def today(self) -> date:
        """The property's calendar day (UTC in the emulator)."""
        return self.now().date()

    def unix(self) -> int:
        """Whole Unix seconds of the emulated instant (webhook signature ``t``)."""
        return int(self.timestamp())

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    def seconds_to_midnight(self) -> int:
        """Whole seconds (at least 1) until the next 00:00 UTC: the quota reset."""
        now = self.now()
        midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        return max(1, int((midnight - now).total_seconds() + 0.999))

    # --- changing ---------------------------------------------------------------------------
    def set(self, moment: datetime) -> None:
        """Jump to ``moment`` (naive means UTC); a frozen clock stays frozen there."""
        target = _as_utc(moment).timestamp()
        if self._frozen_at is not None:
            self._frozen_at = target
        else:
            self._offset = target - self._wall()
        self._changed()

    def set_today(self, day: date) -> None:
        """Jump to ``day`` keeping the time of day."""
        now = self.now()
        self.set(datetime.combine(day, now.timetz()))

    def advance(self, delta: timedelta) -> None:
        """Move forward (or back, with a negative delta) by ``delta``."""
        self.set(self.now() + delta)

    def freeze(self) -> None:
        """Stop the clock at the current emulated instant."""
        if self._frozen_at is None:
            self._frozen_at = self.timestamp()
        self._changed()

    def unfreeze(self) -> None:
        """Let the clock run again from where it stands."""
        if self._frozen_at is not None:
            self._offset = self._frozen_at - self._wall()
            self._frozen_at = None
        self._changed()

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every set, advance, freeze or unfreeze (webhook retries wake)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def describe(self) -> dict[str, object]:
        return {"now": self.now().isoformat(), "today": self.today().isoformat(), "frozen": self.frozen}
