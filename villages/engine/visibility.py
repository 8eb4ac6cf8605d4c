"""Who sees what (SPEC §8): the one place that decides it.

Pages, the API, the WebSocket fan-out and past logs all call these functions;
nothing else decides whether a viewer may see a message or a role.

A viewer is a seat number of the village, or None for a spectator (anyone
who holds no seat in it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from .abilities import bitten_that_night, divination_happens, guard_held
from .events import MessageKind
from .roles import Role, SubRole
from .state import Ability, Ballot, DeathCause, GameState, Phase, RoundResult, Seat
from .texts import HOWL_TEXT, WHISPER_TEXT

PUBLIC_KINDS = frozenset(
    {MessageKind.TALK, MessageKind.SYSTEM, MessageKind.WILL, MessageKind.OBJECTION}
)


class MessageLike(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def seat_no(self) -> int | None: ...

    @property
    def text(self) -> str: ...


class BareLine(NamedTuple):
    """A line known only by its kind and speaker: enough to ask who may see it."""

    kind: str
    seat_no: int | None
    text: str = ""


@dataclass(frozen=True)
class MessageView:
    kind: MessageKind
    seat_no: int | None
    text: str


def _viewer(state: GameState, viewer: int | None) -> Seat | None:
    return None if viewer is None else state.seat(viewer)


def everything_revealed(state: GameState) -> bool:
    """After the end, everyone sees everything."""
    return state.phase is Phase.ENDED


def _sees_all(state: GameState, seat: Seat | None) -> bool:
    if everything_revealed(state):
        return True
    if seat is None or seat.alive or not state.started:
        return False
    return not state.in_force.hide_roles_in_heaven


def see_message(state: GameState, viewer: int | None, msg: MessageLike) -> MessageView | None:
    """What `viewer` sees of `msg`: itself, a howl or whisper stand-in, or nothing."""
    kind = MessageKind(msg.kind)
    whole = MessageView(kind, msg.seat_no, msg.text)
    if kind in PUBLIC_KINDS:
        return whole
    seat = _viewer(state, viewer)
    if _sees_all(state, seat):
        return whole
    own = seat is not None and msg.seat_no == seat.no
    if kind is MessageKind.WOLF:
        if own or (seat is not None and seat.role is Role.WOLF):
            return whole
        return MessageView(MessageKind.WOLF_HOWL, None, HOWL_TEXT)
    if kind is MessageKind.COMMON:
        if own or (seat is not None and seat.role is Role.COMMON):
            return whole
        return MessageView(MessageKind.COMMON_WHISPER, None, WHISPER_TEXT)
    if kind is MessageKind.HEAVEN:
        return whole if seat is not None and not seat.alive else None
    if kind is MessageKind.MONOLOGUE:
        return whole if own else None
    return None


def public_line(kind: str) -> bool:
    """Whether spectators see a line of this kind while the game is played (itself, or a
    howl or whisper standing in for it). Monologues and heaven talk are the only lines
    they never see: the numbers viewers know lines by count these lines apart
    (`villages.line_numbers`). Equal to `see_message(playing, None, line) is not None`."""
    return kind not in KEPT_FROM_SPECTATORS


# The kinds of stored line spectators never see while the game is played.
KEPT_FROM_SPECTATORS = frozenset({MessageKind.HEAVEN, MessageKind.MONOLOGUE})


# ---------------------------------------------------------------------------
# Seats, partners, results


def partners(state: GameState, seat_no: int) -> list[int]:
    """Whom a player knows: wolves ↔ wolves, fanatic → wolves, commons ↔ commons,
    lovers ↔ lovers, cupid → lovers."""
    me = state.seat(seat_no)
    if me is None or me.role is None:
        return []
    known: set[int] = set()
    if me.role in (Role.WOLF, Role.FANATIC):
        known |= {x.no for x in state.seats if x.role is Role.WOLF}
    if me.role is Role.COMMON:
        known |= {x.no for x in state.seats if x.role is Role.COMMON}
    if me.role is Role.CUPID or me.has(SubRole.LOVERS):
        known |= {x.no for x in state.lovers()}
    known.discard(seat_no)
    return sorted(known)


def knows_role(state: GameState, viewer: int | None, seat: Seat) -> bool:
    me = _viewer(state, viewer)
    return _knows_role(me, _sees_all(state, me), seat)


def _knows_role(me: Seat | None, sees_all: bool, seat: Seat) -> bool:
    if seat.role is None:
        return False
    if sees_all:
        return True
    if me is None:
        return False
    if me.no == seat.no:
        return True
    if seat.role is Role.WOLF and me.role in (Role.WOLF, Role.FANATIC):
        return True
    return seat.role is Role.COMMON and me.role is Role.COMMON


def known_sub_roles(state: GameState, viewer: int | None, seat: Seat) -> frozenset[SubRole]:
    me = _viewer(state, viewer)
    return _known_sub_roles(me, _sees_all(state, me), seat)


def _known_sub_roles(me: Seat | None, sees_all: bool, seat: Seat) -> frozenset[SubRole]:
    if sees_all:
        return seat.sub_roles
    if me is None or not (seat.sub_roles or me.no == seat.no):
        return frozenset()
    known: set[SubRole] = set()
    if me.no == seat.no:
        known |= seat.sub_roles - {SubRole.DECIDER}  # the decider is never told
    if seat.has(SubRole.LOVERS) and (me.role is Role.CUPID or me.has(SubRole.LOVERS)):
        known.add(SubRole.LOVERS)
    return frozenset(known)


@dataclass(frozen=True)
class SeatView:
    no: int
    name: str
    alive: bool
    dummy: bool
    role: Role | None
    sub_roles: frozenset[SubRole] | None
    has_voted: bool | None
    death_cause: DeathCause | None
    bot: bool = False
    agent: bool = False


def seat_views(state: GameState, viewer: int | None) -> list[SeatView]:
    day = state.phase is Phase.DAY
    voted = {b.voter for b in state.current_ballots()} if day else set()
    me = _viewer(state, viewer)
    sees_all = _sees_all(state, me)
    views = []
    for x in state.seats:
        role_known = _knows_role(me, sees_all, x)
        subs = _known_sub_roles(me, sees_all, x)
        views.append(
            SeatView(
                no=x.no,
                name=x.name,
                alive=x.alive,
                dummy=x.dummy,
                role=x.role if role_known else None,
                sub_roles=subs if (role_known or subs) else None,
                has_voted=(x.no in voted) if day and x.alive else None,
                death_cause=x.death_cause if role_known and not x.alive else None,
                bot=x.bot,
                agent=x.agent,
            )
        )
    return views


def start_votes(state: GameState) -> int | None:
    """How many of the seated have voted to start (SPEC §2.4), shown to everyone while the
    village waits, as a number only; None once it has started."""
    if state.phase is not Phase.WAITING:
        return None
    return sum(1 for x in state.seats if x.start_voted)


@dataclass(frozen=True)
class AbilityResult:
    day: int  # the night of a divination or guard, the day of the medium's executed
    ability: str  # "divine" | "medium" | "guard"
    target: int
    result: str | None  # "human" | "wolf" | "guarded" | None (a guard that met no attack)
    seat_no: int  # whose result it is


def _human_or_wolf(seat: Seat) -> str:
    return "wolf" if seat.role is Role.WOLF else "human"


def ability_results(state: GameState, seat_no: int) -> list[AbilityResult]:
    """The player's own results, each told the next morning: a divination (none by a seer
    the wolves killed that night, SPEC §4), a medium reading, a guard: "guarded" when the
    wolves attacked the seat it guarded, else None (nothing for a guard the wolves killed
    instead)."""
    me = state.seat(seat_no)
    if me is None or me.role is None:
        return []
    results: list[AbilityResult] = []
    for a in state.actions:
        if a.seat_no != seat_no or state.day <= a.day:  # told the next morning
            continue
        target = state.seat(a.targets[0])
        assert target is not None
        if a.ability is Ability.DIVINE and divination_happens(state, a):
            results.append(
                AbilityResult(a.day, "divine", target.no, _human_or_wolf(target), seat_no)
            )
        elif a.ability is Ability.GUARD and not bitten_that_night(me, a.day):
            held = "guarded" if guard_held(state, a) else None
            results.append(AbilityResult(a.day, "guard", target.no, held, seat_no))
    if me.role is Role.MEDIUM:
        for x in state.seats:
            d = x.death_day
            executed = x.death_cause is DeathCause.EXECUTED and d is not None
            if executed and d is not None and state.day > d and _alive_at_night(me, d):
                results.append(AbilityResult(d, "medium", x.no, _human_or_wolf(x), seat_no))
    return sorted(results, key=lambda r: (r.day, r.ability))


def results_seen(state: GameState, viewer: int | None) -> list[AbilityResult]:
    """The ability results `viewer` may see: its own seat's while the game is played,
    every seat's once it has ended (the finished village's log, its export, its replay)."""
    if everything_revealed(state):
        every = [r for x in state.seats for r in ability_results(state, x.no)]
        return sorted(every, key=lambda r: (r.day, r.seat_no, r.ability))
    if viewer is None:
        return []
    return ability_results(state, viewer)


def _alive_at_night(seat: Seat, day: int) -> bool:
    if seat.alive or seat.death_day is None:
        return True
    return seat.death_day > day or (seat.death_day == day and seat.death_phase is Phase.NIGHT)


@dataclass(frozen=True)
class MeView:
    seat_no: int
    alive: bool
    role: Role | None
    sub_roles: frozenset[SubRole]
    partners: list[int]
    results: list[AbilityResult]
    vote: int | None
    action_done: bool
    objections_left: int
    will: str
    # Tonight's choice as the viewer knows it: its own, or the pack's for a wolf.
    night_action: NightActionView | None = None


@dataclass(frozen=True)
class NightActionView:
    ability: str
    seat_no: int  # who chose it (for the pack, the wolf whose choice it is)
    targets: tuple[int, ...]


def me_view(state: GameState, viewer: int | None) -> MeView | None:
    me = _viewer(state, viewer)
    if me is None:
        return None
    vote = next((b.target for b in state.current_ballots() if b.voter == me.no), None)
    tonight = None
    if state.phase is Phase.DAY:
        done = vote is not None
    elif state.phase is Phase.NIGHT:
        chosen = next(
            (
                a
                for a in state.actions
                if a.day == state.day
                and (a.seat_no == me.no or (a.ability is Ability.ATTACK and me.role is Role.WOLF))
            ),
            None,
        )
        done = chosen is not None
        if chosen is not None:
            tonight = NightActionView(chosen.ability.value, chosen.seat_no, chosen.targets)
    else:
        done = me.start_voted if state.phase is Phase.WAITING else False
    return MeView(
        seat_no=me.no,
        alive=me.alive,
        role=me.role,
        sub_roles=known_sub_roles(state, me.no, me),
        partners=partners(state, me.no),
        results=ability_results(state, me.no),
        vote=vote if state.phase is Phase.DAY else None,
        action_done=done,
        objections_left=me.objections_left,
        will=me.will,
        night_action=tonight,
    )


@dataclass(frozen=True)
class VoteRoundView:
    day: int
    round: int
    ballots: list[Ballot]  # the engine's own (frozen): who voted for whom, with what weight
    executed: int | None
    result: RoundResult  # executed, tie (a revote), draw, or void (a sudden death)


def vote_views(state: GameState) -> list[VoteRoundView]:
    """開票: every round is public, with how it ended. A round a sudden death voided is
    listed without its ballots: they were never counted, and nobody learns them."""
    views = []
    for r in state.rounds:
        void = r.result is RoundResult.VOID
        ballots = [] if void else state.ballots_of_round(r.day, r.round)
        views.append(VoteRoundView(r.day, r.round, ballots, r.executed, r.result))
    return views


def message_audiences(state: GameState) -> list[int | None]:
    """Every distinct viewer a pushed line must be computed for: each seat and spectators."""
    return [x.no for x in state.seats if not x.dummy] + [None]
