"""What a night's abilities came to (SPEC §4, §5), read from the state.

Nothing of it is stored: it follows from the night's actions and its deaths. The dawn acts
on it (`night.dawn`: a seer dead by its turn divines nothing), and the results a seat
learns are told from it (`visibility.ability_results`), so that the two cannot disagree.

The dawn's order (SPEC §5) is what decides who was alive at whose turn: sudden deaths come
before the dawn (with the lovers who follow them at once); at the dawn, the wolves' attack,
then the poison's revenge, then the divination, then the lovers who follow.
"""

from __future__ import annotations

from .state import DeathCause, GameState, NightAction, Phase, Seat


def died_that_night(seat: Seat, day: int) -> bool:
    return not seat.alive and seat.death_day == day and seat.death_phase is Phase.NIGHT


def bitten_that_night(seat: Seat, day: int) -> bool:
    """Killed by the wolves' attack on night `day`."""
    return died_that_night(seat, day) and seat.death_cause is DeathCause.ATTACKED


def dead_before_the_dawn(state: GameState, seat: Seat, day: int) -> bool:
    """Died on night `day` before its dawn: of sudden death, or after a lover who did."""
    if not died_that_night(seat, day):
        return False
    if seat.death_cause is DeathCause.SUDDEN:
        return True
    return seat.death_cause is DeathCause.LOVERS and any(
        x.death_cause is DeathCause.SUDDEN and died_that_night(x, day) for x in state.lovers()
    )


def divination_happens(state: GameState, action: NightAction) -> bool:
    """A seer's divination takes place only by a seer still alive at its turn in the dawn:
    not one the wolves killed that night (as 人狼式 resolves it), nor one dead before the
    dawn. (A seer who follows a lover killed at that dawn has divined by then.)"""
    seer = state.seat(action.seat_no)
    assert seer is not None
    if not died_that_night(seer, action.day):
        return True
    if seer.death_cause in (DeathCause.ATTACKED, DeathCause.POISONED):
        return False
    return not dead_before_the_dawn(state, seer, action.day)


def guard_held(state: GameState, action: NightAction) -> bool:
    """The wolves attacked the seat the guard guarded, alive to be attacked: the guard
    turned the attack away (SPEC §4, 「○○さんを人狼の襲撃から護衛しました」)."""
    attack = state.pack_attack(action.day)
    if attack is None or attack.targets[0] != action.targets[0]:
        return False
    guarded = state.seat(action.targets[0])
    return guarded is not None and not dead_before_the_dawn(state, guarded, action.day)
