"""The numbers viewers know a village's lines by (API.md's Message `id`, the screen's
`#m<id>`, `after`, the sockets' cursors): they tell a viewer nothing of the lines it may
not see, neither how many there were nor when (SPEC §8).

Spectators see every line but monologues and heaven talk (`visibility.public_line`).
Each line records, when it is posted, how many public lines there are up to it
(`Message.public_no`; whether it is one of them follows from its kind). Then:

* a public line's number is `public_no × SPAN`: the same for every viewer, for ever;
* any other line is numbered in the gap after the public line before it:
  `public_no × SPAN + j`, where j counts the lines of that gap that *this viewer* may see.

So a spectator's numbers run SPAN, 2·SPAN, 3·SPAN, … whatever else was said, and a living
villager's add only its own monologues in between. A hidden line's number holds while its
viewer's view does not widen (its death, the end of the game). Lines the staff hid keep
their numbers, and the lines after them keep theirs.

A number given by a client (`after`) is turned back into the village's own row order by
`row_after`: the id of the row it names, from which the usual `id > …` reads go on.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from villages.engine import GameState
from villages.engine import visibility as vis
from villages.models import Message

SPAN = 1_000_000  # a gap holds fewer lines than this for any one viewer


class Line(Protocol):
    pk: int
    kind: str
    seat_no: int | None
    public: bool
    public_no: int


class VillageLike(Protocol):
    pk: int
    seed: int
    last_line: int
    public_lines: int


# A village's lines kept from spectators: (row id, public_no, kind, speaker), by row id.
Hidden = tuple[int, int, str, "int | None"]


class _HiddenRows:
    """Each village's lines spectators do not see, as far as this process has read them:
    what numbering needs, read once and then only the newer rows."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self.data: dict[tuple[int, int], list[Hidden]] = {}
        self.tops: dict[tuple[int, int], int] = {}
        self.lock = threading.Lock()

    def upto(self, village: VillageLike) -> list[Hidden]:
        """The village's hidden rows up to its `last_line` (those of a newer version are
        left out, so an older snapshot reads what it held)."""
        key, last = (village.pk, village.seed), village.last_line
        with self.lock:
            rows, top = self._used(key), self.tops.get(key, -1)
        if rows is None or top < last:
            rows = (rows or []) + _read(village.pk, after=max(top, 0), upto=last)
            with self.lock:
                if len(self.data) >= self.size and key not in self.data:
                    old = next(iter(self.data))  # the one used longest ago
                    self.data.pop(old)
                    self.tops.pop(old, None)
                if self.tops.get(key, -1) < last:
                    self.data[key], self.tops[key] = rows, last
        if rows and rows[-1][0] > last:
            rows = rows[: bisect.bisect_right(rows, (last, 1 << 62))]
        return rows

    def covers(self, village: VillageLike) -> bool:
        """The village's rows up to its `last_line` are here: numbering its lines (and
        `advance` from it) reads nothing."""
        key = (village.pk, village.seed)
        with self.lock:
            return self._used(key) is not None and self.tops.get(key, -1) >= village.last_line

    def advance(self, before: VillageLike, after: VillageLike, lines: Iterable[Line]) -> None:
        """Commits posted `lines`, from `before` to `after`: what this process knew of the
        village goes on to `after` without a read (what it did not know yet, up to
        `before`, is read first: once, and then every commit carries it on, so that its
        push numbers lines without reading). Lines it holds already (another thread's
        commit carried it part of the way) are not added twice."""
        key = (after.pk, after.seed)
        with self.lock:
            known = self._used(key) is not None and self.tops.get(key, -1) >= before.last_line
        if not known:
            self.upto(before)
        with self.lock:
            rows, top = self.data.get(key), self.tops.get(key, -1)
            if rows is None or top < before.last_line or top >= after.last_line:
                return  # dropped meanwhile (read again when needed), or there already
            new = [(m.pk, m.public_no, m.kind, m.seat_no) for m in lines if not m.public]
            new = [row for row in new if row[0] > top]
            if new:
                self.data[key] = rows + new
            self.tops[key] = after.last_line

    def _used(self, key: tuple[int, int]) -> list[Hidden] | None:
        """The village's rows, now the last to be dropped (under the lock)."""
        rows = self.data.pop(key, None)
        if rows is not None:
            self.data[key] = rows
        return rows

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.tops.clear()


HIDDEN = _HiddenRows()


def _read(village_id: int, *, after: int, upto: int) -> list[Hidden]:
    return list(
        Message.objects.filter(
            village_id=village_id, kind__in=vis.KEPT_FROM_SPECTATORS, id__gt=after, id__lte=upto
        )
        .order_by("id")
        .values_list("id", "public_no", "kind", "seat_no")
    )


def _sees(state: GameState, viewer: int | None, kind: str, seat_no: int | None) -> bool:
    return vis.see_message(state, viewer, vis.BareLine(kind, seat_no)) is not None


def numbers(
    village: VillageLike, state: GameState, viewer: int | None, lines: Iterable[Line]
) -> dict[int, int]:
    """Row id → the number `viewer` knows each line by (lines it may see only)."""
    out: dict[int, int] = {}
    own: list[Line] = []
    for line in lines:
        if line.public:
            out[line.pk] = line.public_no * SPAN
        else:
            own.append(line)
    if own:
        ranks = _ranks(HIDDEN.upto(village), state, viewer, {line.public_no for line in own})
        for line in own:
            out[line.pk] = line.public_no * SPAN + ranks.get(line.pk, 0)
    return out


@dataclass(frozen=True)
class Upto:
    """A village as far as one of its lines: enough to number it."""

    pk: int
    seed: int
    last_line: int
    public_lines: int


def number_of(village_id: int, seed: int, state: GameState, viewer: int | None, line: Line) -> int:
    """The number `viewer` knows a line just posted by (its own line, say)."""
    at = Upto(village_id, seed, line.pk, line.public_no)
    return numbers(at, state, viewer, [line])[line.pk]


def wrote_in_gaps(
    village: VillageLike, gaps: set[int], seat_no: int, kinds: Container[str]
) -> bool:
    """`seat_no` wrote a hidden line of one of `kinds` in one of `gaps` (one that numbering
    the gaps' lines for that seat counts, and for another seat does not)."""
    if not gaps:
        return False
    found = _gaps(HIDDEN.upto(village), min(gaps), max(gaps))
    return any(gap in gaps and seat == seat_no and kind in kinds for _pk, gap, kind, seat in found)


def _gaps(rows: Sequence[Hidden], first: int, last: int) -> Sequence[Hidden]:
    """The rows of the gaps `first` to `last` (rows come in id order, and so in gap order):
    found by bisection, so that numbering a new line never walks a long game's rows."""
    start = bisect.bisect_left(rows, first, key=lambda row: row[1])
    return rows[start : bisect.bisect_right(rows, last, lo=start, key=lambda row: row[1])]


def _ranks(
    rows: Sequence[Hidden], state: GameState, viewer: int | None, gaps: set[int]
) -> dict[int, int]:
    ranks: dict[int, int] = {}
    counted: dict[int, int] = {}
    for pk, gap, kind, seat_no in _gaps(rows, min(gaps), max(gaps)):
        if gap in gaps and _sees(state, viewer, kind, seat_no):
            counted[gap] = ranks[pk] = counted.get(gap, 0) + 1
    return ranks


def last_number(village: VillageLike, state: GameState, viewer: int | None) -> int:
    """The number of the last line up to `village.last_line` that the viewer may see (0:
    none yet): how far a page or a socket drawn from this version has come."""
    return LastNumbers(village, state).of(viewer)


class LastNumbers:
    """`last_number` of one version for many viewers: the rows after its last public line
    are found once (a commit's push asks it for every viewer)."""

    def __init__(self, village: VillageLike, state: GameState) -> None:
        self.state, self.gap = state, village.public_lines
        tail: list[tuple[str, int | None]] = []
        for _pk, public_no, kind, seat_no in reversed(HIDDEN.upto(village)):
            if public_no != self.gap:
                break
            tail.append((kind, seat_no))
        self.tail = tail

    def of(self, viewer: int | None) -> int:
        seen = sum(_sees(self.state, viewer, kind, seat_no) for kind, seat_no in self.tail)
        return self.gap * SPAN + seen


def row_after(village: VillageLike, state: GameState, viewer: int | None, number: int) -> int:
    """The row id from which the lines numbered above `number` for this viewer follow
    (a number beyond the village's lines gives its last row)."""
    if number <= 0:
        return 0
    gap, j = divmod(number, SPAN)
    if gap > village.public_lines:
        return village.last_line
    row = _public_row(village.pk, gap) if gap else 0
    if j:
        seen = 0
        for pk, _gap, kind, seat_no in _gaps(HIDDEN.upto(village), gap, gap):
            if _sees(state, viewer, kind, seat_no):
                row, seen = pk, seen + 1
                if seen == j:
                    break
    return row


def _public_row(village_id: int, public_no: int) -> int:
    # The first line with this count is the public line that made it (the lines after it
    # that spectators do not see share its count).
    found = (
        Message.objects.filter(village_id=village_id, public_no=public_no)
        .order_by("id")
        .values_list("id", flat=True)
        .first()
    )
    return found or 0
