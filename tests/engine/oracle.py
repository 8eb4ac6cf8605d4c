"""SPEC §8 written again, independently of `villages.engine.visibility`, to check it.

Each function answers "what may this viewer see?" straight from the text of SPEC §8 (and
§3–§4 for who knows whom). The engine's answers must equal these.
"""

from __future__ import annotations

from villages.engine.events import MessageKind, Post
from villages.engine.roles import Role, SubRole
from villages.engine.state import Ability, DeathCause, GameState, Phase, Seat
from villages.engine.texts import HOWL_TEXT, WHISPER_TEXT

PUBLIC = {MessageKind.TALK, MessageKind.SYSTEM, MessageKind.WILL, MessageKind.OBJECTION}

View = tuple[MessageKind, int | None, str] | None


def _seat(state: GameState, viewer: int | None) -> Seat | None:
    return None if viewer is None else state.seat(viewer)


def _dead_seeing_all(state: GameState, me: Seat | None) -> bool:
    """The dead see everything, unless roles are hidden in heaven (SPEC §8)."""
    return (
        me is not None
        and not me.alive
        and state.phase in (Phase.DAY, Phase.NIGHT)
        and not state.in_force.hide_roles_in_heaven
    )


def message_view(state: GameState, viewer: int | None, msg: Post) -> View:
    whole: View = (msg.kind, msg.seat_no, msg.text)
    if state.phase is Phase.ENDED or msg.kind in PUBLIC:
        return whole  # after the end everyone sees everything; public lines are public
    me = _seat(state, viewer)
    if me is not None and msg.seat_no == me.no:
        return whole  # one's own words
    if _dead_seeing_all(state, me):
        return whole
    howl: View = (MessageKind.WOLF_HOWL, None, HOWL_TEXT)
    whisper: View = (MessageKind.COMMON_WHISPER, None, WHISPER_TEXT)
    if msg.kind is MessageKind.WOLF:
        return whole if me is not None and me.role is Role.WOLF else howl
    if msg.kind is MessageKind.COMMON:
        return whole if me is not None and me.role is Role.COMMON else whisper
    if msg.kind is MessageKind.HEAVEN:
        return whole if me is not None and not me.alive else None
    return None  # monologues: the speaker only (and the dead who see all)


def role_view(state: GameState, viewer: int | None, seat: Seat) -> Role | None:
    me = _seat(state, viewer)
    if state.phase is Phase.ENDED:
        return seat.role
    if me is None:
        return None
    if me.no == seat.no or _dead_seeing_all(state, me):
        return seat.role
    if seat.role is Role.WOLF and me.role in (Role.WOLF, Role.FANATIC):
        return seat.role  # wolves know wolves; the fanatic is told the wolves
    if seat.role is Role.COMMON and me.role is Role.COMMON:
        return seat.role
    return None


def sub_roles_view(state: GameState, viewer: int | None, seat: Seat) -> frozenset[SubRole]:
    me = _seat(state, viewer)
    if state.phase is Phase.ENDED or _dead_seeing_all(state, me):
        return seat.sub_roles
    if me is None:
        return frozenset()
    seen: set[SubRole] = set()
    if me.no == seat.no:
        seen |= seat.sub_roles - {SubRole.DECIDER}  # the decider is never told
    knows_lovers = me.role is Role.CUPID or SubRole.LOVERS in me.sub_roles
    if SubRole.LOVERS in seat.sub_roles and knows_lovers:
        seen.add(SubRole.LOVERS)
    return frozenset(seen)


def partners_of(state: GameState, no: int) -> list[int]:
    me = state.seat(no)
    assert me is not None
    known: set[int] = set()
    wolves = {x.no for x in state.seats if x.role is Role.WOLF}
    lovers = {x.no for x in state.seats if SubRole.LOVERS in x.sub_roles}
    if me.role is Role.WOLF or me.role is Role.FANATIC:
        known |= wolves
    if me.role is Role.COMMON:
        known |= {x.no for x in state.seats if x.role is Role.COMMON}
    if me.role is Role.CUPID or no in lovers:
        known |= lovers
    return sorted(known - {no})


def _night_death(state: GameState, no: int, day: int) -> DeathCause | None:
    """How the seat died on night `day`, if it did."""
    seat = state.seat(no)
    assert seat is not None
    if seat.alive or seat.death_day != day or seat.death_phase is not Phase.NIGHT:
        return None
    return seat.death_cause


def gone_by_the_divination(state: GameState, no: int, day: int) -> bool:
    """SPEC §5's order: sudden deaths end the night before its dawn (and a lover follows at
    once); at the dawn the wolves' attack and the poison's revenge come before the
    divination; only the lovers who follow the dawn's dead come after it."""
    cause = _night_death(state, no, day)
    if cause in (DeathCause.SUDDEN, DeathCause.ATTACKED, DeathCause.POISONED):
        return True
    if cause is DeathCause.LOVERS:
        others = [x.no for x in state.seats if SubRole.LOVERS in x.sub_roles and x.no != no]
        return any(_night_death(state, x, day) is DeathCause.SUDDEN for x in others)
    return False


def divined(state: GameState, seer: int, day: int) -> bool:
    """SPEC §4/§5: a seer divines only if still alive at its turn in the dawn (a seer the
    wolves killed that night divines nothing)."""
    return day < state.day and not gone_by_the_divination(state, seer, day)


def guard_result(state: GameState, guard: int, day: int, guarded: int) -> tuple[bool, str | None]:
    """SPEC §4 guard, told the next morning: whether it is told anything (not when the
    wolves attacked the guard itself), and "guarded" when the wolves attacked the player it
    guarded — who was there to be attacked, not gone of sudden death before the dawn."""
    if day >= state.day or _night_death(state, guard, day) is DeathCause.ATTACKED:
        return False, None
    pack = [a for a in state.actions if a.day == day and a.ability is Ability.ATTACK]
    attacked = bool(pack) and pack[0].targets[0] == guarded
    gone = _night_death(state, guarded, day) is DeathCause.SUDDEN or (
        _night_death(state, guarded, day) is DeathCause.LOVERS
        and gone_by_the_divination(state, guarded, day)
    )
    return True, "guarded" if attacked and not gone else None


def results_of(state: GameState, no: int) -> set[tuple[int, str, int, str | None]]:
    """Own results: a divination from the next morning (none if the seer was gone by its
    turn in the dawn), the medium's reading of a day's executed from the next morning, the
    guard's from the next morning."""
    me = state.seat(no)
    assert me is not None
    out: set[tuple[int, str, int, str | None]] = set()

    def reading(target: int) -> str:
        seat = state.seat(target)
        assert seat is not None
        return "wolf" if seat.role is Role.WOLF else "human"

    for a in state.actions:
        if a.seat_no != no:
            continue
        if a.ability is Ability.DIVINE and divined(state, no, a.day):
            out.add((a.day, "divine", a.targets[0], reading(a.targets[0])))
        if a.ability is Ability.GUARD:
            told, result = guard_result(state, no, a.day, a.targets[0])
            if told:
                out.add((a.day, "guard", a.targets[0], result))
    if me.role is Role.MEDIUM:
        for x in state.seats:
            d = x.death_day
            if x.death_cause is not DeathCause.EXECUTED or d is None or d >= state.day:
                continue
            # The medium reads that night: alive through day d's end.
            died_before = me.death_day is not None and (
                me.death_day < d or (me.death_day == d and me.death_phase is Phase.DAY)
            )
            if not died_before:
                out.add((d, "medium", x.no, reading(x.no)))
    return out


def results_seen(
    state: GameState, viewer: int | None
) -> set[tuple[int, int, str, int, str | None]]:
    """(seat, day, ability, target, result) of the results `viewer` may see: results are
    the seat's own (the dead who see everything see no one else's); after the end, every
    seat's (SPEC §8, §11d: the log and its replay)."""
    if state.phase is Phase.ENDED:
        seats = [x.no for x in state.seats]
    elif viewer is not None and state.seat(viewer) is not None:
        seats = [viewer]
    else:
        seats = []
    return {(no, *r) for no in seats for r in results_of(state, no)}
