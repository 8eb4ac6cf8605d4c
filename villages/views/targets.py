"""Whom a player may choose on the vote and night-action pages, asked of the engine itself.

Each candidate is tried with the engine's own command on a copy of the state; a
candidate the engine refuses with `invalid_target` is left out. Any other refusal
(wrong phase, already voted, not your ability, dead) means the page has nothing to
offer, and says why.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.utils import timezone

from villages.engine import Ability, GameState, RuleError
from villages.engine import game as engine
from villages.engine.errors import InvalidTarget
from villages.services.config import rules

ACTIONS = ("vote", "attack", "divine", "guard", "cupid")


@dataclass
class Choice:
    action: str
    targets: list[int] = field(default_factory=list)
    refusal: RuleError | None = None
    pair_free: bool = False  # cupid: any two; otherwise the cupid and one other
    fixed: int | None = None  # cupid below the threshold: the cupid themself


def _try(state: GameState, seat_no: int, action: str, targets: list[int]) -> None:
    r, now, rng = rules(), timezone.now(), random.Random(0)
    if action == "vote":
        engine.vote(state, voter=seat_no, target=targets[0], rules=r, rng=rng, now=now)
    else:
        engine.night_action(
            state,
            seat_no=seat_no,
            ability=Ability(action),
            targets=targets,
            rules=r,
            rng=rng,
            now=now,
        )


def choice(state: GameState, seat_no: int, action: str) -> Choice:
    """The legal targets of `action` for the seat (empty with the reason when none)."""
    result = Choice(action)
    others = [s.no for s in state.seats if s.no != seat_no]
    if action == "cupid":
        return _cupid(state, seat_no, others, result)
    for no in others:
        try:
            _try(state, seat_no, action, [no])
        except InvalidTarget:
            continue
        except RuleError as error:
            result.refusal = error
            result.targets = []
            return result
        result.targets.append(no)
    if not result.targets:
        result.refusal = InvalidTarget()
    return result


def _cupid(state: GameState, seat_no: int, others: list[int], result: Choice) -> Choice:
    for no in others:
        try:
            _try(state, seat_no, "cupid", [seat_no, no])
        except InvalidTarget:
            continue
        except RuleError as error:
            result.refusal = error
            return result
        result.targets.append(no)
    if len(result.targets) >= 2:
        try:
            _try(state, seat_no, "cupid", result.targets[:2])
            result.pair_free = True
            result.targets = [seat_no, *result.targets]
        except InvalidTarget:
            result.fixed = seat_no
        except RuleError as error:
            result.refusal = error
    elif result.targets:
        result.fixed = seat_no
    if not result.targets:
        result.refusal = InvalidTarget()
    return result


def available(state: GameState, seat_no: int | None) -> list[Choice]:
    """The actions the seat can take now (those with at least one legal target)."""
    if seat_no is None:
        return []
    found = []
    for action in ACTIONS:
        c = choice(state, seat_no, action)
        if c.targets and c.refusal is None:
            found.append(c)
    return found
