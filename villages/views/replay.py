"""Step-through replay of a finished village (issue 12): one line at a time, each step a
plain page (`?step=N`), better with the script (play and pause, ← →, a slider).

Nothing is stored for it: every step is worked out from what the village recorded, its
lines in order. The deaths are the system lines that announce them (found dead, executed,
sudden death, a lover's suicide, the poison's victim); a vote round is shown once the line
that closed it (an execution, a revote, the draw) has come; the roles are the dealt ones
(the all-seeing eye) or none (the spectator's eye, which sees the game as it was played:
no wolves' or commons' talk, no heaven, and not the talk after the end). The all-seeing
eye also shows the ability results known by then: each from the morning it was told.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_noop

from villages import wording
from villages.engine import Phase
from villages.engine import visibility as vis
from villages.engine.errors import RuleError, WrongPhase
from villages.engine.texts import DEATH_LINES
from villages.lru import LRU
from villages.models import Message
from villages.screenview import speakers

from . import render as log
from .common import error_page

ROUND_CLOSERS = frozenset({"executed", "revote", "revote_last", "tie_draw", "revote_after_sudden"})
SPEEDS = (500, 1000, 2000, 4000)  # milliseconds a step while playing
SHOWN = 100  # lines of the current phase drawn at a step (the past log has them all)


@dataclass(frozen=True)
class Step:
    """What a step needs of a line: the line itself is read only when it is drawn."""

    id: int
    day: int
    phase: str
    code: str
    name: str | None


_STEPS: LRU[tuple, list[Step]] = LRU(64)


def _steps(village: Any, sight: Any, spectator: bool) -> list[Step]:
    """The lines the eye sees, in order (a finished village changes only by a hidden line,
    which the key's hidden-lines mark follows)."""
    key = (village.pk, village.seed, village.hidden_mark, spectator)
    found = _STEPS.get(key)
    if found is None:
        found = [
            Step(m.pk, m.day, m.phase, m.code, (m.params or {}).get("name"))
            for m in Message.objects.filter(village_id=village.pk, hidden=False)
            .only("id", "day", "phase", "kind", "seat_no", "code", "params")
            .order_by("id")
            if vis.see_message(sight, None, vis.BareLine(m.kind, m.seat_no)) is not None
            and not (spectator and m.phase == Phase.ENDED)
        ]
        _STEPS.put(key, found)
    return found


def replay(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = log.view_for(village_id, None)
        if view.state.phase is not Phase.ENDED:
            raise WrongPhase(gettext_noop("再生できるのは、村が終わってからです。"))
    except RuleError as error:
        return error_page(request, error)
    state = view.state
    spectator = request.GET.get("eye") == "spectator"
    sight = dataclasses.replace(state, phase=Phase.DAY) if spectator else state
    lines = _steps(view.village, sight, spectator)
    if not lines:
        return error_page(request, WrongPhase(gettext_noop("この村には再生する発言がありません。")))
    try:
        step = int(request.GET.get("step", "1"))
    except ValueError:
        step = 1
    step = min(max(step, 1), len(lines))
    now = lines[step - 1]
    seat_of = {row.handle_name: no for no, row in view.loaded.rows.items()}
    died: dict[int, Step] = {}
    closed: dict[int, int] = {}
    for m in lines[:step]:
        if m.code in DEATH_LINES and (no := seat_of.get(m.name)):
            died.setdefault(no, m)
        if m.code in ROUND_CLOSERS:
            closed[m.day] = closed.get(m.day, 0) + 1
    # The phase's lines so far (its last SHOWN of them): read and drawn for this step only.
    first = step
    while first > 1 and (lines[first - 2].day, lines[first - 2].phase) == (now.day, now.phase):
        first -= 1
    wanted = [m.id for m in lines[max(first, step - SHOWN + 1) - 1 : step]]
    phase_lines = Message.objects.filter(pk__in=wanted).order_by("id")
    who = speakers(view.loaded)
    html = log.lines_html(
        view.village, sight, None, phase_lines, who, heaven=None, oldest_first=True
    )
    names = {no: row.handle_name for no, row in view.loaded.rows.items()}
    # What the seer, the medium and the guard knew by now: a result is told the morning
    # after the night (or day) it is of, whose line is the first of the next day. The
    # spectator's eye sees none, as spectators saw none while the game was played.
    learned = [
        dataclasses.asdict(r)
        for r in ([] if spectator else vis.results_seen(state, None))
        if r.day < now.day
    ]
    rounds_seen: dict[int, int] = {}
    votes = []
    for v in vis.vote_views(state):
        rounds_seen[v.day] = rounds_seen.get(v.day, 0) + 1
        if v.day == now.day and rounds_seen[v.day] <= closed.get(v.day, 0):
            votes.append(
                {
                    "day": v.day,
                    "round": v.round,
                    "rows": [
                        (names.get(b.voter, "?"), names.get(b.target, "?")) for b in v.ballots
                    ],
                    "executed": names.get(v.executed) if v.executed else None,
                    "result": v.result.value,
                }
            )
    seats = [
        {
            "seat_no": seat.no,
            "name": seat.name,
            "icon": (who.get(seat.no) or {}).get("icon", ""),
            "alive": seat.no not in died,
            "role": ""
            if spectator or seat.role is None
            else wording.roles_text(seat.role.value, [s.value for s in sorted(seat.sub_roles)]),
        }
        for seat in state.seats
    ]

    def at(n: int, **changes: Any) -> str:
        params = {"step": n, "eye": "spectator" if spectator else None, **changes}
        return "?" + urlencode({k: v for k, v in params.items() if v is not None})

    phases = []
    for n, m in enumerate(lines, start=1):
        if not phases or (phases[-1]["day"], phases[-1]["phase"]) != (m.day, m.phase):
            phases.append({"day": m.day, "phase": m.phase, "url": at(n), "step": n})
    for p in phases:
        p["label"] = _phase_label(p["day"], p["phase"])
        p["on"] = (p["day"], p["phase"]) == (now.day, now.phase)
    return render(
        request,
        "villages/replay.html",
        {
            "village": view.village,
            "step": step,
            "steps": len(lines),
            "now": now,
            "now_label": _phase_label(now.day, now.phase),
            "lines_html": html,
            "seats": seats,
            "deaths": [
                {"name": names.get(no, "?"), "when": _died_when(state, no, m)}
                for no, m in sorted(died.items(), key=lambda kv: kv[1].id)
            ],
            "votes": votes,
            "results": log.result_rows(learned, names),
            "phases": phases,
            "spectator": spectator,
            "first": at(1),
            "previous": at(step - 1) if step > 1 else "",
            "next": at(step + 1) if step < len(lines) else "",
            "last": at(len(lines)),
            "eye_all": at(step, eye=None) if spectator else "",
            "eye_spectator": "" if spectator else "?" + urlencode({"eye": "spectator"}),
            "speeds": SPEEDS,
        },
    )


def _died_when(state: Any, no: int, announced: Step) -> str:
    """When the seat died (the night before the morning that found it), from the engine."""
    seat = state.seat(no)
    if seat is not None and seat.death_day is not None:
        return wording.when(seat.death_day, seat.death_phase)
    return wording.when(announced.day, announced.phase)


def _phase_label(day: int, phase: str) -> str:
    if phase == Phase.WAITING:
        return str(wording.PHASE["waiting"])
    if phase == Phase.ENDED:
        return str(wording.PHASE["ended"])
    if phase == Phase.NIGHT:
        return wording.when(day, phase)
    return wording.day_label(day)
