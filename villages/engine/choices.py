"""Whom a seat may choose for a vote or a night action, asked of the commands themselves.

Each candidate is tried with the engine's own command on the state (commands never change
the state they are given); a candidate refused with `invalid_target` is left out. Any other
refusal (wrong phase, already voted, not your ability, dead) means there is nothing to
offer, and says why. The pages offer these targets and the bots choose among them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from .day import check_vote
from .errors import InvalidTarget, RuleError
from .night import night_action
from .rules import Rules
from .state import Ability, GameState

ACTIONS = ("vote", "attack", "divine", "guard", "cupid")


@dataclass
class Choice:
    action: str
    targets: list[int] = field(default_factory=list)
    refusal: RuleError | None = None
    pair_free: bool = False  # cupid: any two; otherwise the cupid and one other
    fixed: int | None = None  # cupid below the threshold: the cupid themself


def _try(
    state: GameState, seat_no: int, action: str, targets: list[int], r: Rules, now: datetime
) -> None:
    if action == "vote":  # the vote's own checks: casting it could run the whole tally
        check_vote(state, voter=seat_no, target=targets[0])
    else:
        rng = random.Random(0)
        night_action(
            state,
            seat_no=seat_no,
            ability=Ability(action),
            targets=targets,
            rules=r,
            rng=rng,
            now=now,
        )


def choice(state: GameState, seat_no: int, action: str, *, rules: Rules, now: datetime) -> Choice:
    """The legal targets of `action` for the seat (empty with the reason when none)."""
    result = Choice(action)
    others = [s.no for s in state.seats if s.no != seat_no]
    if action == "cupid":
        return _cupid(state, seat_no, others, result, rules, now)
    for no in others:
        try:
            _try(state, seat_no, action, [no], rules, now)
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


def _cupid(
    state: GameState, seat_no: int, others: list[int], result: Choice, r: Rules, now: datetime
) -> Choice:
    for no in others:
        try:
            _try(state, seat_no, "cupid", [seat_no, no], r, now)
        except InvalidTarget:
            continue
        except RuleError as error:
            result.refusal = error
            return result
        result.targets.append(no)
    if len(result.targets) >= 2:
        try:
            _try(state, seat_no, "cupid", result.targets[:2], r, now)
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
