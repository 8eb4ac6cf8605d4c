"""The night's actions and the dawn that resolves them (SPEC §5's order)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime

from .abilities import divination_happens
from .command import (
    Run,
    Scene,
    Step,
    acting_seat,
    begin_phase,
    check_scene,
    finish_if_over,
    kill,
    live_target,
    lovers_follow,
    publish_wills,
)
from .day import ACTION_REFUSAL, owed_votes
from .errors import (
    AlreadyActed,
    InvalidTarget,
    NotYourAbility,
    WrongPhase,
    _,
)
from .events import (
    Dawn,
    PhaseChanged,
)
from .roles import Role, SubRole
from .rules import Rules
from .state import (
    Ability,
    DeathCause,
    GameState,
    NightAction,
    Phase,
    Seat,
)


def night_action(
    state: GameState,
    *,
    seat_no: int,
    ability: Ability,
    targets: Sequence[int],
    rules: Rules,
    rng: random.Random,
    now: datetime,
    at: Scene | None = None,
) -> tuple[Step, bool]:
    """Attack, divine, guard or cupid. Returns whether the dawn came.

    `at`: the night the action was chosen in; one sent after that night is not taken."""
    check_scene(state, at, ACTION_REFUSAL)
    run = Run.during(Phase.NIGHT, "夜の行動は夜だけです。", state, rules, now)
    s = run.state
    seat = acting_seat(s, seat_no)
    _check_action(s, seat, ability, list(targets), rules)
    s.actions.append(NightAction(s.day, seat_no, ability, tuple(targets)))
    if owed_actions(s):
        return run.done(), False
    dawn(run, rng)
    return run.done(), True


_ABILITY_ROLE = {
    Ability.ATTACK: Role.WOLF,
    Ability.DIVINE: Role.SEER,
    Ability.GUARD: Role.GUARD,
    Ability.CUPID: Role.CUPID,
}


def _check_action(
    s: GameState, seat: Seat, ability: Ability, targets: list[int], rules: Rules
) -> None:
    if seat.role is not _ABILITY_ROLE[ability]:
        raise NotYourAbility()
    if not _duty_applies(ability, s.day):
        raise WrongPhase(
            _("狩人の護衛は2日目の夜からです。")
            if ability is Ability.GUARD
            else _("愛の矢は1日目の夜だけです。")
        )
    done = (
        s.pack_attack(s.day) if ability is Ability.ATTACK else s.action_of(s.day, seat.no, ability)
    )
    if done is not None:
        raise AlreadyActed()
    wanted = 2 if ability is Ability.CUPID else 1
    if len(targets) != wanted or len(set(targets)) != wanted:
        raise InvalidTarget(_("対象を{n}人選んでください。"), n=wanted)
    chosen = [live_target(s, no) for no in targets]
    if ability is Ability.CUPID:
        if any(x.dummy for x in chosen):  # as the reference refuses it
            raise InvalidTarget(_("身代わり君は恋人に選べません。"))
        if len(s.seats) < rules.cupid_self_below and seat.no not in targets:
            raise InvalidTarget(
                _("{n}人未満の村では、自分と誰か一人を選んでください。"), n=rules.cupid_self_below
            )
        return
    target = chosen[0]
    if target.no == seat.no:
        raise InvalidTarget(_("自分は選べません。"))
    if ability is Ability.ATTACK:
        if target.role is Role.WOLF:
            raise InvalidTarget(_("人狼は人狼を襲えません。"))
        dummy = s.dummy_seat
        if s.day == 1 and dummy is not None and dummy.alive and target.no != dummy.no:
            raise InvalidTarget(_("1日目の夜は身代わり君を襲ってください。"))


def owed_actions(state: GameState) -> list[Seat]:
    """Who still owes a night action; every living wolf while the pack has not chosen."""
    d = state.day
    pack_chose = state.pack_attack(d) is not None
    owed: list[Seat] = []
    for x in state.living:
        if x.dummy:
            continue
        if x.role is Role.WOLF:
            owes = not pack_chose
        else:
            ability = _NIGHTLY_DUTY.get(x.role) if x.role is not None else None
            owes = (
                ability is not None
                and _duty_applies(ability, d)
                and state.action_of(d, x.no, ability) is None
            )
        if owes:
            owed.append(x)
    return owed


_NIGHTLY_DUTY = {Role.SEER: Ability.DIVINE, Role.GUARD: Ability.GUARD, Role.CUPID: Ability.CUPID}


def duties(state: GameState, seat_no: int) -> tuple[str, ...]:
    """What the seat still owes now: ("vote",) by day, its night ability at night, or ().

    Every action of the game is a duty, so this is also what the seat may do now; the
    screens offer these actions and the bots act on them.
    """
    if state.phase is Phase.DAY:
        return ("vote",) if any(x.no == seat_no for x in owed_votes(state)) else ()
    if state.phase is not Phase.NIGHT:
        return ()
    for x in owed_actions(state):
        if x.no == seat_no:
            if x.role is Role.WOLF:
                return (Ability.ATTACK.value,)
            if x.role is not None and x.role in _NIGHTLY_DUTY:
                return (_NIGHTLY_DUTY[x.role].value,)
    return ()


def _duty_applies(ability: Ability, day: int) -> bool:
    """The guard acts from night 2, the cupid on night 1 only."""
    if ability is Ability.GUARD:
        return day >= 2
    if ability is Ability.CUPID:
        return day == 1
    return True


def dawn(run: Run, rng: random.Random) -> None:
    """Resolve the night in SPEC §5's order, then morning or the end."""
    s = run.state
    d = s.day
    actions = s.actions_of_night(d)
    ordinary: list[Seat] = []
    for a in actions:
        if a.ability is Ability.CUPID:
            for no in a.targets:
                lover = s.seat(no)
                assert lover is not None
                lover.sub_roles = lover.sub_roles | {SubRole.LOVERS}
    guarded = {a.targets[0] for a in actions if a.ability is Ability.GUARD}
    attack = s.pack_attack(d)
    if attack is not None:
        prey = s.seat(attack.targets[0])
        assert prey is not None
        if prey.alive and prey.no not in guarded and prey.role is not Role.FOX:
            kill(run, prey, DeathCause.ATTACKED)
            ordinary.append(prey)
            wolves = [x for x in s.living if x.role is Role.WOLF]
            if prey.role is Role.POISON and wolves:
                taken = rng.choice(wolves)
                kill(run, taken, DeathCause.POISONED)
                ordinary.append(taken)
    for a in actions:
        # A seer the wolves killed tonight (or dead before the dawn) divines nothing.
        if a.ability is Ability.DIVINE and divination_happens(s, a):
            divined = s.seat(a.targets[0])
            assert divined is not None
            if divined.alive and divined.role is Role.FOX:
                kill(run, divined, DeathCause.DIVINED)
                ordinary.append(divined)
    followers = lovers_follow(run)
    s.day = d + 1
    begin_phase(run, Phase.DAY)
    s.vote_round = 1
    s.ties = 0
    run.post("morning", day=s.day)
    for victim in sorted(ordinary, key=lambda x: x.no):
        run.post("found_dead", name=victim.name)
    for follower in followers:
        run.post("lovers_suicide", name=follower.name)
    if not ordinary and not followers and not _died_at_night(s, d):
        run.post("peaceful")
    publish_wills(run)
    run.events.append(Dawn(s.day))
    if finish_if_over(run):
        return
    run.events.append(PhaseChanged(s.day, s.phase))


def _died_at_night(s: GameState, d: int) -> bool:
    return any(x.death_day == d and x.death_phase is Phase.NIGHT for x in s.seats if not x.alive)
