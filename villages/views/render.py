"""The talk log as HTML, with closed phases cached per audience.

A phase that is over can no longer change (every line is posted under the
village lock with the phase it belongs to), so its rendered HTML is kept per
*audience*: the set of viewers who see exactly the same lines. The audience is
not decided here: it is read off the one visibility function by probing it
with one line of every kind, spoken by the viewer and by somebody else. Two
viewers whose probes answer alike see every real line alike, because
`see_message` depends on a line only through its kind and whether its speaker
is the viewer. A viewer's death, the end of the game, a hidden line or another
language all change the key, so nothing stale is ever served. The open phase is drawn
once per new line for its audience too, by every viewer who wrote none of the lines the
audience sees otherwise when their writer is the viewer (`apart`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.utils.translation import get_language, gettext_noop

from villages import line_numbers, selectors, wording
from villages.engine import GameState, MessageKind, Phase
from villages.engine import visibility as vis
from villages.lru import LRU
from villages.models import Message, Village
from villages.screenview import Speaker, line_input
from villages.services.errors import NotFound
from villages.snapshots import SNAPSHOTS, snapshot_of

from .parts import RENDERS, line_html
from .polls import KEPT


def _probes(state: GameState, viewer: int | None) -> list[tuple[str, Any, Any]]:
    """How the viewer sees a line of each kind written by itself and by somebody else."""
    out = []
    for kind in MessageKind:
        mine = vis.see_message(state, viewer, vis.BareLine(kind.value, viewer if viewer else -1))
        other = vis.see_message(state, viewer, vis.BareLine(kind.value, -2))
        a = None if mine is None else (mine.kind.value, mine.seat_no is not None)
        b = None if other is None else (other.kind.value, other.seat_no is not None)
        out.append((kind.value, a, b))
    return out


def audience(state: GameState, viewer: int | None) -> tuple:
    """Who sees what, as a hashable key derived from `visibility.see_message` alone."""
    return _audience(_probes(state, viewer), viewer)


def _audience(probes: list[tuple[str, Any, Any]], viewer: int | None) -> tuple:
    depends_on_self = any(a != b for _kind, a, b in probes)
    return (tuple((a, b) for _kind, a, b in probes), viewer if depends_on_self else None)


@dataclass(frozen=True)
class Writers:
    """Who wrote a phase's lines, by kind, and the gaps its hidden lines are numbered in:
    what tells whether a viewer sees the phase as the others of its audience do."""

    by_kind: Mapping[str, frozenset[int]]
    gaps: frozenset[int]

    @classmethod
    def of(cls, lines: Iterable[Message]) -> Writers:
        by_kind: dict[str, set[int]] = {}
        gaps = set()
        for m in lines:
            if m.seat_no is not None:
                by_kind.setdefault(m.kind, set()).add(m.seat_no)
            if not m.public:
                gaps.add(m.public_no)
        return cls({k: frozenset(v) for k, v in by_kind.items()}, frozenset(gaps))


def apart(village: Village, viewer: int | None, kinds: set[str], writers: Writers) -> bool:
    """The viewer sees a phase's lines (`writers`) otherwise than the others of its
    audience do (`kinds`: those its audience sees otherwise when their writer is the
    viewer, from the same probes as `audience`).

    An audience that depends on its viewer sees some kinds of line otherwise when the
    viewer wrote them (its monologue, say). A viewer who wrote none of those among the
    lines sees every one of them as written by somebody else, as every such viewer does
    (`see_message` depends on a line only through its kind and whether its writer is the
    viewer); so do the numbers of their hidden lines, unless a line of those kinds it wrote
    lies in a gap that numbering one of them counts (`line_numbers.wrote_in_gaps`). Only
    then are the lines drawn for the viewer alone."""
    if viewer is None:
        return False
    if any(viewer in writers.by_kind.get(kind, ()) for kind in kinds):
        return True
    return bool(kinds) and line_numbers.wrote_in_gaps(village, set(writers.gaps), viewer, kinds)


# ---------------------------------------------------------------------------
# Lines


def lines_html(
    village: Village,
    state: GameState,
    viewer: int | None,
    messages: Iterable[Message],
    speakers: dict[int, Speaker],
    *,
    heaven: bool | None,
    oldest_first: bool = False,
    only_seat: int | None = None,
) -> str:
    """Lines newest first (or oldest first), each drawn from its visibility view.

    `heaven`: True only heaven talk, False none of it, None everything. `only_seat`: only
    that seat's own lines (no system lines, no stand-ins).
    """
    ended = state.phase is Phase.ENDED
    shown = []
    for msg in messages:
        if only_seat is not None and msg.seat_no != only_seat:
            continue
        seen = vis.see_message(state, viewer, msg)
        if seen is None or (only_seat is not None and seen.seat_no != only_seat):
            continue
        if heaven is not None and (seen.kind is MessageKind.HEAVEN) != heaven:
            continue
        shown.append((msg, seen))
    number = line_numbers.numbers(village, state, viewer, (msg for msg, _seen in shown))
    out = []
    for msg, seen in shown:
        line = line_input(selectors.message_dict(msg, seen, number[msg.pk]), speakers, ended=ended)
        out.append(line_html(line))
    if not oldest_first:
        out.reverse()
    return "".join(out)


# ---------------------------------------------------------------------------
# Phases and the cache


def phases(state: GameState) -> list[tuple[int, str]]:
    """Every (day, phase) a line of this village may belong to, oldest first."""
    groups: list[tuple[int, str]] = [(0, "waiting")]
    for d in range(1, state.day + 1):
        if d >= 2:
            groups.append((d, "day"))
        groups.append((d, "night"))
    if state.phase is Phase.ENDED:
        groups.append((state.day, "ended"))
    elif state.phase is Phase.DAY and groups[-1] == (state.day, "night"):
        groups.pop()  # day d comes before night d
    current = (state.day, state.phase.value)
    return [g for g in groups if g != current] + [current]


CLOSED_PHASES: LRU[tuple, str] = LRU(4000)


def view_for(village_id: int, user_id: int | None) -> selectors.View:
    """The village as committed now (a shared snapshot), seen by the user's seat."""
    loaded = snapshot_of(village_id)
    if loaded is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    row = loaded.seat_of_user(user_id)
    return selectors.View(loaded, row.seat_no if row else None)


def log_html(
    state: GameState,
    village: Village,
    viewer: int | None,
    speakers: dict[int, Speaker],
    *,
    heaven: bool | None,
    groups: Sequence[tuple[int, str]] | None = None,
    oldest_first: bool = False,
    only_seat: int | None = None,
    sight: GameState | None = None,
) -> tuple[str, int]:
    """The log newest first, and the number of the viewer's last line at this version (0
    if none).

    `sight` is the state the lines are seen in (by default `state`; the past log's
    spectator's eye sees a finished game as if it were still being played).
    Closed phases come from the cache; only the current phase is read from the database.
    """
    village_id = village.pk
    last_id, hidden_key = village.last_line, village.hidden_mark
    all_groups = phases(state)
    current = all_groups[-1]
    wanted = list(groups) if groups is not None else all_groups
    seen_in = sight if sight is not None else state
    probes = _probes(seen_in, viewer)
    heard = _audience(probes, viewer)

    def base(heard: tuple) -> tuple:
        return (
            village_id,
            village.seed,  # ids may be reused (a rolled-back test, a restored backup)
            heard,
            heaven,
            oldest_first,
            only_seat,
            get_language(),
            hidden_key,
        )

    key_base = base(heard)
    # The open phase: drawn once for its audience by every viewer who sees it as the
    # others do (`apart`), once per new line (last_id).
    current_key = (*key_base, current, last_id)
    if current in wanted and heard[1] is not None:
        writers = _current_writers(village, current, last_id, hidden_key)
        own = {kind for kind, a, b in probes if a != b}  # seen otherwise by their writer
        if not apart(village, viewer, own, writers):
            current_key = (*base((heard[0], None)), current, last_id)
    # Each phase's HTML as found in the cache or drawn now: what this call holds is used
    # (a cache entry may be pushed out between two reads of it).
    drawn: dict[tuple[int, str], str] = {}
    for group in wanted:
        key = current_key if group == current else (*key_base, group)
        cached = CLOSED_PHASES.get(key)
        if cached is not None:
            drawn[group] = cached
    missing = [g for g in wanted if g not in drawn and g != current]
    fresh: dict[tuple[int, str], list[Message]] = {g: [] for g in missing}
    for msg in _messages(village_id, missing):
        fresh.setdefault((msg.day, msg.phase), []).append(msg)
    if current in wanted and current not in drawn:
        fresh[current] = _current_lines(village, current, last_id, hidden_key)
        missing.append(current)
    for group in missing:
        drawn[group] = lines_html(
            village,
            seen_in,
            viewer,
            fresh[group],
            speakers,
            heaven=heaven,
            oldest_first=oldest_first,
            only_seat=only_seat,
        )
        CLOSED_PHASES.put(current_key if group == current else (*key_base, group), drawn[group])
    parts: list[str] = []
    for group in wanted if oldest_first else reversed(wanted):
        html = drawn.get(group, "")
        if html:
            parts.append(f'<div class="phase" data-phase="{group[0]}-{group[1]}">{html}</div>')
    return "".join(parts), line_numbers.last_number(village, seen_in, viewer)


CURRENT: LRU[tuple, list[Message]] = LRU(200)


def result_rows(results: Iterable[Mapping[str, Any]], names: Mapping[int, str]) -> list[dict]:
    """Ability results (the log's `results`) as `villages/results.html` draws them, in the
    page's language: when, whose, which ability, of whom, and what it told."""
    return [
        {
            "when": wording.result_when(r["ability"], r["day"]),
            "who": names.get(r["seat_no"], "?"),
            "ability": wording.label(wording.RESULT_OF, r["ability"]),
            "target": names.get(r["target"], "?"),
            "result": wording.label(wording.RESULT, r["result"]) or "—",
            "raw": r["result"] or "none",
        }
        for r in results
    ]


def clear_caches() -> None:
    for cache in (CLOSED_PHASES, CURRENT, WRITERS, KEPT):
        cache.clear()
    line_numbers.HIDDEN.clear()
    SNAPSHOTS.clear()
    RENDERS.clear()


def _current_lines(
    village: Village, group: tuple[int, str], last_id: int, hidden_key: int
) -> list[Message]:
    """The open phase's rows; new lines change `last_id`, hiding one changes `hidden_key`."""
    key = (village.pk, village.seed, group, last_id, hidden_key)
    rows = CURRENT.get(key)
    if rows is None:
        rows = _messages(village.pk, [group], up_to=last_id)
        CURRENT.put(key, rows)
    return rows


WRITERS: LRU[tuple, Writers] = LRU(4000)


def _current_writers(
    village: Village, group: tuple[int, str], last_id: int, hidden_key: int
) -> Writers:
    """`Writers` of the open phase (its rows are read only when it has changed)."""
    key = (village.pk, village.seed, group, last_id, hidden_key)
    found = WRITERS.get(key)
    if found is None:
        found = Writers.of(_current_lines(village, group, last_id, hidden_key))
        WRITERS.put(key, found)
    return found


def _messages(
    village_id: int, groups: list[tuple[int, str]], up_to: int | None = None
) -> list[Message]:
    if not groups:
        return []
    cond = Q()
    for day, phase in groups:
        cond |= Q(day=day, phase=phase)
    if up_to is not None:
        cond &= Q(id__lte=up_to)
    return list(
        Message.objects.filter(cond, village_id=village_id, hidden=False)
        .only(
            "id",
            "day",
            "phase",
            "kind",
            "seat_no",
            "text",
            "volume",
            "code",
            "params",
            "public_no",
            "created_at",  # message_dict's: a deferred column would be a query per line
        )
        .order_by("id")
    )
