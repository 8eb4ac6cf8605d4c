"""What a bot knows: its seat's view, made by the one visibility module, and nothing else."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from villages.engine import Rules
from villages.engine.choices import Choice, choice
from villages.engine.events import MessageKind
from villages.engine.night import duties
from villages.engine.state import GameState, Phase
from villages.engine.timing import phase_deadline, time_is_up, virtual_seconds_left
from villages.engine.visibility import (
    MessageLike,
    MeView,
    SeatView,
    VoteRoundView,
    me_view,
    seat_views,
    see_message,
    vote_views,
)


@dataclass(frozen=True)
class Line:
    """A line of the log as the bot's seat sees it, with the phase it was said in. A system
    line (an objection too) has its `code` and `params` (`villages.engine.texts`), which a
    bot reads rather than the words; a howl or whisper standing in for talk the seat may
    not hear has none, as the line it stands for has none to tell."""

    day: int
    phase: Phase
    kind: MessageKind
    seat_no: int | None
    text: str
    code: str = ""
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BotView:
    day: int
    phase: Phase
    me: MeView
    seats: tuple[SeatView, ...]
    duties: tuple[str, ...]  # what the seat owes now: ("vote",), ("attack",), …
    choices: dict[str, Choice]  # for each duty, whom the rules let it choose (as its page)
    lines: tuple[Line, ...]  # oldest first
    time_up: bool  # the phase's time is over (the screen's 時間切れ)
    seconds_left: float | None  # real-time villages: until the phase ends, as the clock shows
    # The share of the phase's time still left (virtual time counted by talk, or the real
    # time of a real-time village), from 1.0 at its start to 0.0 when the time is up.
    share_left: float | None = None
    rounds: tuple[VoteRoundView, ...] = ()  # every vote round so far, ballot by ballot (開票)

    def seat(self, no: int) -> SeatView:
        return next(s for s in self.seats if s.no == no)

    @property
    def living(self) -> list[SeatView]:
        return [s for s in self.seats if s.alive]

    def seat_named(self, name: str) -> SeatView | None:
        return next((s for s in self.seats if s.name == name), None)

    def targets(self, action: str) -> list[int]:
        """The seats the rules let this seat choose for `action` now (none if not owed)."""
        found = self.choices.get(action)
        return list(found.targets) if found is not None and found.refusal is None else []

    def my_lines_today(self) -> list[Line]:
        return [
            x
            for x in self.lines
            if x.seat_no == self.me.seat_no and x.day == self.day and x.phase is self.phase
        ]


class DatedLine(MessageLike, Protocol):
    """A message with its day and phase, and a system line's code and params (a model row
    satisfies it, and so does the engine's `Post`)."""

    day: int

    @property
    def phase(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def params(self) -> Mapping[str, object] | Iterable[tuple[str, object]]: ...


def bot_view(
    state: GameState, seat_no: int, lines: Iterable[DatedLine], rules: Rules, now: datetime
) -> BotView | None:
    """The view of `seat_no` as its player would have it; None if the seat is gone."""
    me = me_view(state, seat_no)
    if me is None:
        return None
    deadline = phase_deadline(state)
    owed = duties(state, seat_no)
    seen = []
    for m in lines:
        v = see_message(state, seat_no, m)
        if v is None:
            continue
        # A stand-in (a howl, a whisper) tells nothing of the line it hides.
        code = m.code if v.kind == m.kind else ""
        params = {k: str(x) for k, x in dict(m.params or {}).items()} if code else {}
        seen.append(Line(m.day, Phase(m.phase), v.kind, v.seat_no, v.text, code, params))
    return BotView(
        day=state.day,
        phase=state.phase,
        me=me,
        seats=tuple(seat_views(state, seat_no)),
        duties=owed,
        choices={d: choice(state, seat_no, d, rules=rules, now=now) for d in owed},
        lines=tuple(seen),
        time_up=time_is_up(state, now),
        seconds_left=(deadline - now).total_seconds() if deadline else None,
        share_left=_share_left(state, rules, now),
        rounds=tuple(vote_views(state)),
    )


def _share_left(state: GameState, rules: Rules, now: datetime) -> float | None:
    left = virtual_seconds_left(state, now, rules)
    if left is None:
        return None
    total = rules.day_virtual_seconds if state.phase is Phase.DAY else rules.night_virtual_seconds
    return min(1.0, left / total) if total > 0 else 0.0
