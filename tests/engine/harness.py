"""A village with a fixed cast and a fake clock, and a compact script DSL for golden games.

No Django here: the engine is pure, and so are its tests.

    v = village("wolf wolf seer villager*5")      # seats 1..8 in that order, night 1
    run(v, [
        ("attack", 1, 4), ("divine", 3, 1),       # night 1 → dawn when all are in
        ("dead", {4: "attacked"}),                # the deaths since the last "dead" check
        ("lynch", 1),                             # every living player votes 1 (1 votes the
        ("phase", "night", 2),                    #   lowest other living seat)
    ])

Every command goes through `unchanged`, which asserts that the engine left the state it
was given exactly as it was (deep equality), whether the command succeeded or raised.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from villages.engine import game
from villages.engine.cast import Cast, Options
from villages.engine.errors import RuleError
from villages.engine.events import Died, Event, MessageKind, Post, Volume
from villages.engine.roles import Role, SubRole, Winner
from villages.engine.rules import Rules
from villages.engine.state import Ability, DeathCause, GameState, Phase, Seat

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
R = TypeVar("R")


def unchanged(command: Callable[..., R], state: GameState, **kwargs: Any) -> R:
    """Run an engine command and assert it did not touch the state it was given."""
    before = copy.deepcopy(state)
    try:
        return command(state, **kwargs)
    finally:
        assert state == before, f"{command.__name__} mutated the state it was given"


def parse_roles(spec: str | Sequence[Role]) -> list[Role]:
    """'wolf wolf seer villager*5' → [WOLF, WOLF, SEER, VILLAGER × 5], in seat order."""
    if not isinstance(spec, str):
        return list(spec)
    roles: list[Role] = []
    for word in spec.split():
        name, _, times = word.partition("*")
        roles.extend([Role(name)] * int(times or 1))
    return roles


@dataclass
class Village:
    """A started village driven by hand; `events` is everything the engine said so far."""

    state: GameState
    rules: Rules
    rng: random.Random
    now: datetime
    events: list[Event] = field(default_factory=list)
    _deaths_seen: int = 0
    _codes_seen: int = 0

    # -- commands -------------------------------------------------------------
    def _apply(self, step: game.Step) -> game.Step:
        self.state = step.state
        self.events.extend(step.events)
        return step

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def tick(self, seconds: float = 0) -> game.Step:
        self.advance(seconds)
        return self._apply(
            unchanged(game.tick, self.state, rules=self.rules, rng=self.rng, now=self.now)
        )

    def talk(
        self,
        seat: int,
        text: str,
        volume: Volume = Volume.NORMAL,
        wording: tuple[str, tuple[tuple[str, str], ...]] = ("", ()),
    ) -> game.Step:
        return self._apply(
            unchanged(
                game.talk,
                self.state,
                seat_no=seat,
                text=text,
                volume=volume,
                rules=self.rules,
                now=self.now,
                wording=wording,
            )
        )

    def heaven(self, seat: int, text: str) -> game.Step:
        return self._apply(
            unchanged(
                game.talk,
                self.state,
                seat_no=seat,
                text=text,
                heaven=True,
                rules=self.rules,
                now=self.now,
            )
        )

    def will(self, seat: int, text: str) -> None:
        self.state = unchanged(game.set_will, self.state, seat_no=seat, text=text, rules=self.rules)

    def object(self, seat: int) -> game.Step:
        return self._apply(
            unchanged(game.object_, self.state, seat_no=seat, rules=self.rules, now=self.now)
        )

    def vote(self, voter: int, target: int) -> bool:
        step, tallied = unchanged(
            game.vote,
            self.state,
            voter=voter,
            target=target,
            rules=self.rules,
            rng=self.rng,
            now=self.now,
        )
        self._apply(step)
        return tallied

    def votes(self, ballots: Mapping[int, int]) -> None:
        for voter, target in ballots.items():
            self.vote(voter, target)

    def lynch(self, target: int, *, abstain: Iterable[int] = ()) -> None:
        """Every living player but `abstain` votes `target`; `target` votes the lowest other."""
        skip = set(abstain)
        others = [x.no for x in self.voters() if x.no != target]
        for x in self.voters():
            if x.no in skip:
                continue
            self.vote(x.no, target if x.no != target else others[0])

    def act(self, seat: int, ability: Ability, *targets: int) -> bool:
        step, dawn = unchanged(
            game.night_action,
            self.state,
            seat_no=seat,
            ability=ability,
            targets=list(targets),
            rules=self.rules,
            rng=self.rng,
            now=self.now,
        )
        self._apply(step)
        return dawn

    # -- looking ------------------------------------------------------------------
    def seat(self, no: int) -> Seat:
        seat = self.state.seat(no)
        assert seat is not None, f"no seat {no}"
        return seat

    def voters(self) -> list[Seat]:
        return [x for x in self.state.living if not x.dummy]

    def living(self) -> list[int]:
        return [x.no for x in self.state.living]

    def posts(self, since: int = 0) -> list[Post]:
        return [e for e in self.events[since:] if isinstance(e, Post)]

    def codes(self, since: int = 0) -> list[str]:
        return [p.code for p in self.posts(since) if p.kind is MessageKind.SYSTEM and p.code]

    def of_type(self, kind: type[R], since: int = 0) -> list[R]:
        return [e for e in self.events[since:] if isinstance(e, kind)]

    def deaths(self) -> dict[int, DeathCause]:
        return {e.seat_no: e.cause for e in self.of_type(Died)}

    def new_deaths(self) -> dict[int, DeathCause]:
        deaths = {e.seat_no: e.cause for e in self.of_type(Died, self._deaths_seen)}
        self._deaths_seen = len(self.events)
        return deaths

    def new_codes(self) -> list[str]:
        codes = self.codes(self._codes_seen)
        self._codes_seen = len(self.events)
        return codes


def seated(
    n: int,
    *,
    options: Options | None = None,
    rules: Rules | None = None,
    now: datetime = T0,
    capacity: int | None = None,
) -> GameState:
    """A waiting village with `n` seats (the dummy boy is seat 1 when the option is on)."""
    rules = rules or Rules()
    capacity = capacity or max(n, 8)
    state = game.new_village(capacity=capacity, options=options or Options(), rules=rules, now=now)
    while len(state.seats) < n:
        step, _ = unchanged(game.sit, state, name=f"p{len(state.seats) + 1}", rules=rules, now=now)
        state = step.state
    return state


def village(
    roles: str | Sequence[Role],
    *,
    subs: Mapping[int, str | Iterable[SubRole]] | None = None,
    options: Options | None = None,
    rules: Rules | None = None,
    seed: int = 0,
    now: datetime = T0,
) -> Village:
    """A village started with this cast (seat i+1 gets roles[i]), at night 1, at `now`."""
    rules = rules or Rules()
    role_list = parse_roles(roles)
    state = seated(len(role_list), options=options, rules=rules, now=now)
    sub_roles = {
        no: frozenset([SubRole(s)] if isinstance(s, str) else s) for no, s in (subs or {}).items()
    }
    cast = Cast(roles={i + 1: r for i, r in enumerate(role_list)}, sub_roles=sub_roles)
    state = unchanged(game.fix_cast, state, cast=cast, rules=rules)
    rng = random.Random(seed)
    started = False
    events: list[Event] = []
    for x in list(state.seats):
        if not x.start_voted:
            step, started = unchanged(
                game.vote_start, state, seat_no=x.no, rules=rules, rng=rng, now=now
            )
            state = step.state
            events = list(step.events)
    assert started and state.phase is Phase.NIGHT and state.day == 1
    return Village(state=state, rules=rules, rng=rng, now=now, events=events)


# ---------------------------------------------------------------------------
# The script DSL

_ABILITIES = {
    "attack": Ability.ATTACK,
    "divine": Ability.DIVINE,
    "guard": Ability.GUARD,
    "cupid": Ability.CUPID,
}

Step = tuple[Any, ...]


def run(v: Village, script: Sequence[Step]) -> Village:
    """Play `script` on `v`, step by step; expectation steps assert as they go.

    Commands: ("attack"|"divine"|"guard", seat, target), ("cupid", seat, a, b),
    ("vote", {voter: target}), ("ballots", {target: [voters]}), ("lynch", target),
    ("talk", seat, text[, volume]), ("will", seat, text), ("heaven", seat, text),
    ("object", seat), ("tick", seconds), ("wait", seconds).
    Expectations: ("phase", "day"|"night"|"ended", day), ("dead", {seat: cause}),
    ("codes", code, ...) (a subsequence of the system lines posted since the last check),
    ("raises", ErrorClass, step), ("check", callable(v)).
    """
    for i, step in enumerate(script):
        try:
            _do(v, step)
        except AssertionError as exc:
            raise AssertionError(f"step {i} {step!r}: {exc}") from exc
    return v


def _do(v: Village, step: Step) -> None:
    verb, *args = step
    if verb in _ABILITIES:
        v.act(args[0], _ABILITIES[verb], *args[1:])
    elif verb == "vote":
        v.votes(args[0])
    elif verb == "ballots":
        for target, voters in args[0].items():
            for voter in voters:
                v.vote(voter, target)
    elif verb == "lynch":
        v.lynch(args[0])
    elif verb == "talk":
        v.talk(*args)
    elif verb == "will":
        v.will(*args)
    elif verb == "heaven":
        v.heaven(*args)
    elif verb == "object":
        v.object(args[0])
    elif verb == "tick":
        v.tick(args[0])
    elif verb == "wait":
        v.advance(args[0])
    elif verb == "phase":
        phase, day = Phase(args[0]), args[1]
        assert (v.state.phase, v.state.day) == (phase, day), (
            f"expected {phase} {day}, at {v.state.phase} {v.state.day}"
        )
    elif verb == "dead":
        expected = {no: DeathCause(c) for no, c in args[0].items()}
        got = v.new_deaths()
        assert got == expected, f"deaths {got} != {expected}"
    elif verb == "codes":
        got = v.new_codes()
        assert _subsequence(list(args), got), f"system lines {got} lack {list(args)} in order"
    elif verb == "raises":
        error, inner = args
        before = copy.deepcopy(v.state)
        with pytest.raises(error):
            _do(v, inner)
        assert v.state == before
    elif verb == "check":
        args[0](v)
    else:
        raise ValueError(f"unknown step {verb!r}")


def _subsequence(wanted: list[str], got: list[str]) -> bool:
    it = iter(got)
    return all(any(code == g for g in it) for code in wanted)


@dataclass(frozen=True)
class Golden:
    """One scripted game, end to end, with what must come of it."""

    name: str
    clauses: str
    roles: str
    script: tuple[Step, ...]
    winner: Winner
    deaths: Mapping[int, str]
    subs: Mapping[int, str] = field(default_factory=dict)
    options: Options = field(default_factory=Options)
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    winners: tuple[int, ...] | None = None  # seats whose result is a win

    def play(self) -> Village:
        v = village(
            self.roles, subs=self.subs, options=self.options, rules=self.rules, seed=self.seed
        )
        return run(v, self.script)


def expect_error(
    error: type[RuleError], command: Callable[..., object], state: GameState, **kwargs: Any
) -> RuleError:
    """`command` raises exactly `error` (not a subclass sibling) and leaves `state` alone."""
    with pytest.raises(RuleError) as info:
        unchanged(command, state, **kwargs)
    assert type(info.value) is error, f"raised {type(info.value).__name__}, not {error.__name__}"
    assert info.value.code == error.code
    return info.value
