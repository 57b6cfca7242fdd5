"""What a property's last whole-horizon free-room read said, kept small in memory.

Most polls get the same answer as the poll before. With the memo such a poll neither decodes the
answer, nor sweeps it into free rooms per night, nor has the availability view compare it night
by night: together 40 % of a quiet poll's CPU at a 365-night horizon (issue 26).

The memo lives as long as a property's runs (:class:`~roomsync.app.sync.runs.property_sync.
PropertySync`) and keeps, of the last read a run decoded:

- the digest of the answer's bytes and the horizon asked;
- the free rooms per room type, night by night, as an ``array`` of counts (about 1.5 kB a room
  type, where the decoded answer and its per-night sets were about 150 kB a property);
- the view's mark of that read.

The counts are a function of the bytes and the horizon alone, so the memo is never stale.
Whether the view still holds that read is the store's to say (``date_read``): another process, a
webhook's partial read or the retention may have moved it on.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from roomsync.adapters.store.availability_reads import ReadMark


@dataclass(frozen=True)
class _Remembered:
    answer: str
    first: date
    last: date
    counts: Mapping[int, array[int]]
    mark: ReadMark | None


@dataclass(frozen=True)
class Recalled:
    """What the read remembered said: its free rooms, and the view's mark of it."""

    free_rooms: dict[int, dict[date, int]]
    mark: ReadMark


@dataclass
class FreeRoomsMemo:
    """The last free-room read of one property that a run decoded (see the module docstring)."""

    _last: _Remembered | None = field(default=None, repr=False)

    def recall(self, answer: str, nights: Sequence[date]) -> Recalled | None:
        """What the read remembered said, when ``answer`` is its digest over the same ``nights``
        and the view marked it; None otherwise (decode the answer)."""
        last = self._last
        if last is None or last.mark is None or last.answer != answer:
            return None
        free = self.last_free_rooms(nights)
        return None if free is None else Recalled(free, last.mark)

    def last_free_rooms(self, nights: Sequence[date]) -> dict[int, dict[date, int]] | None:
        """The free rooms of the last read a run decoded, when it asked the same ``nights``."""
        last = self._last
        if last is None or (last.first, last.last) != (nights[0], nights[-1]):
            return None
        return {t: dict(zip(nights, counts, strict=True)) for t, counts in last.counts.items()}

    def remember(
        self,
        answer: str,
        nights: Sequence[date],
        free_rooms: Mapping[int, Mapping[date, int]],
        mark: ReadMark | None,
    ) -> None:
        """Keep what the read of digest ``answer`` over ``nights`` said, and the view's mark of it."""
        counts = {t: array("I", (per_type[night] for night in nights)) for t, per_type in free_rooms.items()}
        self._last = _Remembered(answer, nights[0], nights[-1], counts, mark)
