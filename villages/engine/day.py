"""The day's execution vote: ballots, the tally, ties and revotes, the execution."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from .command import (
    Run,
    Scene,
    Step,
    acting_seat,
    begin_phase,
    check_scene,
    end_game,
    finish_if_over,
    kill,
    live_target,
    lovers_follow,
)
from .errors import (
    AlreadyVoted,
    InvalidTarget,
    WrongPhase,
    _,
)
from .events import (
    PhaseChanged,
    Revote,
)
from .roles import Role, SubRole, Winner
from .rules import Rules
from .state import (
    Ballot,
    DeathCause,
    GameState,
    Phase,
    RoundResult,
    Seat,
    VoteRound,
)
from .timing import (
    time_up,
)


def vote(
    state: GameState,
    *,
    voter: int,
    target: int,
    rules: Rules,
    rng: random.Random,
    now: datetime,
    at: Scene | None = None,
) -> tuple[Step, bool]:
    """処刑投票: one ballot per round, never changed. Returns whether the tally ran.

    `at`: the day, phase and round the ballot was cast in; one from before a revote is
    counted in no later round."""
    check_scene(state, at, ACTION_REFUSAL)
    check_vote(state, voter=voter, target=target)
    run = Run(state, rules, now)
    s = run.state
    seat = acting_seat(s, voter)
    weight = 2 if seat.has(SubRole.AUTHORITY) else 1
    s.ballots.append(Ballot(s.day, s.vote_round, voter, target, weight))
    if owed_votes(s):
        return run.done(), False
    _tally(run, rng)
    return run.done(), True


ACTION_REFUSAL = _("場面が変わったため、受け付けませんでした。もう一度選んでください。")


def check_vote(state: GameState, *, voter: int, target: int) -> None:
    """The refusals of `vote`, without casting it (the seats a voter may choose ask this:
    `choices`)."""
    if state.phase is not Phase.DAY:
        raise WrongPhase(_("処刑の投票は昼だけです。"))
    seat = acting_seat(state, voter)
    victim = live_target(state, target)
    if victim.no == seat.no:
        raise InvalidTarget(_("自分には投票できません。"))
    if any(b.voter == voter for b in state.current_ballots()):
        raise AlreadyVoted()


def owed_votes(state: GameState) -> list[Seat]:
    """Living players (but the dummy boy) who have not voted in this round."""
    voted = {b.voter for b in state.current_ballots()}
    return [x for x in state.living if not x.dummy and x.no not in voted]


def _tally(run: Run, rng: random.Random) -> None:
    s, rules = run.state, run.rules
    ballots = s.current_ballots()
    totals: Counter[int] = Counter()
    for b in ballots:
        totals[b.target] += b.weight
    top = max(totals.values())
    tied = sorted(no for no, n in totals.items() if n == top)
    executed = tied[0] if len(tied) == 1 else _decider_choice(s, ballots, tied)
    if executed is None:
        s.ties += 1
        if s.ties >= rules.max_revotes:
            s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.DRAW))
            run.post("tie_draw", ties=s.ties)
            end_game(run, Winner.DRAW)
            return
        s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.TIE))
        s.vote_round += 1
        last_chance = s.ties == rules.max_revotes - 1
        # The line counts revotes, as the reference words it: the first revote is 1回目
        # (the round is the API's, which counts every vote, a sudden death's too).
        run.post("revote_last" if last_chance else "revote", revotes=s.ties)
        run.events.append(Revote(s.day, s.vote_round, last_chance))
        if s.clock.time_up_at is not None:
            # Talk stays closed, but everybody votes again: a fresh grace, as after a
            # sudden death, not the seconds left of the old one.
            time_up(run)
        return
    s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.EXECUTED, executed))
    _execute(run, executed, rng)


def _decider_choice(s: GameState, ballots: Sequence[Ballot], tied: list[int]) -> int | None:
    """決定者: the decider's ballot breaks a tie when it is for one of the tied."""
    for b in ballots:
        voter = s.seat(b.voter)
        if voter is not None and voter.has(SubRole.DECIDER) and b.target in tied:
            return b.target
    return None


def _execute(run: Run, seat_no: int, rng: random.Random) -> None:
    s = run.state
    victim = s.seat(seat_no)
    assert victim is not None
    kill(run, victim, DeathCause.EXECUTED)
    run.post("executed", name=victim.name)
    if victim.role is Role.POISON:
        others = [x for x in s.living]
        if others:
            taken = rng.choice(others)
            kill(run, taken, DeathCause.POISONED)
            run.post("poison_victim", name=taken.name)
    for follower in lovers_follow(run):
        run.post("lovers_suicide", name=follower.name)
    if finish_if_over(run):
        return
    nightfall(run)


def nightfall(run: Run) -> None:
    s = run.state
    begin_phase(run, Phase.NIGHT)
    run.post("night", day=s.day)
    run.events.append(PhaseChanged(s.day, s.phase))
