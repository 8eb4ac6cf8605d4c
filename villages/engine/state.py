"""The state of one village as the rules see it.

Plain dataclasses: the service layer loads them from the database, the
commands in `game.py` return new ones, and nothing here knows about Django.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from .cast import Cast, Options
from .roles import Role, SubRole, Winner

T = TypeVar("T")


def _shallow(obj: T) -> T:
    """A shallow copy of a plain (non-slotted) dataclass instance, without `__init__`."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


class Phase(StrEnum):
    WAITING = "waiting"
    NIGHT = "night"
    DAY = "day"
    ENDED = "ended"


class DeathCause(StrEnum):
    EXECUTED = "executed"  # 処刑
    ATTACKED = "attacked"  # 襲撃
    DIVINED = "divined"  # 呪殺 (a fox divined)
    POISONED = "poisoned"  # taken by the poison's revenge
    LOVERS = "lovers"  # 後追い
    SUDDEN = "sudden"  # 突然死


# Within one day (or one night), deaths come in this order: a sudden death (before the
# vote, or before the night's end), then the execution (or the dawn's attack and curse,
# which are told by seat number, as the dawn tells them), then the poison's revenge, then
# the lovers who follow. (A lover who followed a sudden death is put after that day's
# execution: what the death of whom it followed is not kept.)
_CAUSE_ORDER: dict[str, int] = {
    DeathCause.SUDDEN: 0,
    DeathCause.EXECUTED: 1,
    DeathCause.ATTACKED: 1,
    DeathCause.DIVINED: 1,
    DeathCause.POISONED: 2,
    DeathCause.LOVERS: 3,
}


def death_order(
    day: int, phase: str | None, cause: str | None, seat_no: int
) -> tuple[int, bool, int, int]:
    """A sort key that puts deaths in the order they came: by day, the night of a day
    after its day, then by cause as far as the caller knows it (None: the viewer may not
    know it, and such deaths go by seat number, so that the order tells nothing more)."""
    rank = _CAUSE_ORDER.get(cause, 1) if cause else 1
    return (day, phase != Phase.DAY, rank, seat_no)


class Ability(StrEnum):
    ATTACK = "attack"
    DIVINE = "divine"
    GUARD = "guard"
    CUPID = "cupid"


class RoundResult(StrEnum):
    EXECUTED = "executed"
    TIE = "tie"
    DRAW = "draw"
    VOID = "void"  # ballots cleared by a sudden death


@dataclass
class Seat:
    no: int
    name: str
    role: Role | None = None
    sub_roles: frozenset[SubRole] = frozenset()
    alive: bool = True
    death_cause: DeathCause | None = None
    death_day: int | None = None
    death_phase: Phase | None = None
    will: str = ""
    will_published: bool = False
    objections_left: int = 5
    dummy: bool = False
    start_voted: bool = False
    bot: bool = False  # played by the site's bots (a practice village's seat)
    agent: bool = False  # played by an AIWolf contest agent (villages/aiwolf)

    def has(self, sub_role: SubRole) -> bool:
        return sub_role in self.sub_roles


@dataclass(frozen=True)
class Ballot:
    day: int
    round: int
    voter: int
    target: int
    weight: int = 1


@dataclass(frozen=True)
class NightAction:
    day: int
    seat_no: int
    ability: Ability
    targets: tuple[int, ...]


@dataclass(frozen=True)
class VoteRound:
    day: int
    round: int
    result: RoundResult
    executed: int | None = None


@dataclass
class Clock:
    phase_started_at: datetime | None = None
    virtual_left: int = 0
    silence_ref: datetime | None = None  # last time-consuming speech or silence penalty
    time_up_at: datetime | None = None  # the warning was posted
    sudden_death_at: datetime | None = None
    last_alert_at: datetime | None = None
    last_activity_at: datetime | None = None  # for abandoning a waiting village


@dataclass
class GameState:
    capacity: int
    options: Options
    seats: list[Seat] = field(default_factory=list)
    phase: Phase = Phase.WAITING
    day: int = 0
    vote_round: int = 1
    ties: int = 0
    ballots: list[Ballot] = field(default_factory=list)
    actions: list[NightAction] = field(default_factory=list)
    rounds: list[VoteRound] = field(default_factory=list)
    clock: Clock = field(default_factory=Clock)
    winner: Winner | None = None
    abandoned: bool = False
    kick_votes: dict[int, frozenset[int]] = field(default_factory=dict)
    fixed_cast: Cast | None = None
    active: Options | None = None  # the options in force, fixed at the start
    # The highest seat number ever given: a number is never reused, so a departed or
    # kicked seat's lines and records stay theirs.
    last_seat_no: int = 0

    def clone(self) -> GameState:
        """A copy that commands may change without touching the original.

        Shallow copies suffice: every field of a seat and of the clock is immutable, and
        the lists hold frozen records. (Not `dataclasses.replace`, which re-runs
        `__init__` for every seat and was most of a command's time.)
        """
        new = _shallow(self)
        new.seats = [_shallow(s) for s in self.seats]
        new.ballots = list(self.ballots)
        new.actions = list(self.actions)
        new.rounds = list(self.rounds)
        new.clock = _shallow(self.clock)
        new.kick_votes = dict(self.kick_votes)
        return new

    # -- lookups -----------------------------------------------------------
    def seat(self, no: int) -> Seat | None:
        for s in self.seats:
            if s.no == no:
                return s
        return None

    @property
    def living(self) -> list[Seat]:
        return [s for s in self.seats if s.alive]

    @property
    def in_force(self) -> Options:
        return self.active or self.options

    @property
    def dummy_seat(self) -> Seat | None:
        for s in self.seats:
            if s.dummy:
                return s
        return None

    @property
    def started(self) -> bool:
        return self.phase in (Phase.NIGHT, Phase.DAY) or (
            self.phase is Phase.ENDED and not self.abandoned
        )

    def ballots_of_round(self, day: int, round_: int) -> list[Ballot]:
        return [b for b in self.ballots if b.day == day and b.round == round_]

    def current_ballots(self) -> list[Ballot]:
        return self.ballots_of_round(self.day, self.vote_round)

    def actions_of_night(self, day: int) -> list[NightAction]:
        return [a for a in self.actions if a.day == day]

    def action_of(self, day: int, seat_no: int, ability: Ability) -> NightAction | None:
        for a in self.actions:
            if a.day == day and a.seat_no == seat_no and a.ability is ability:
                return a
        return None

    def pack_attack(self, day: int) -> NightAction | None:
        """The wolves' choice of the night: the first wolf's choice is the pack's."""
        for a in self.actions:
            if a.day == day and a.ability is Ability.ATTACK:
                return a
        return None

    def lovers(self) -> list[Seat]:
        return [s for s in self.seats if s.has(SubRole.LOVERS)]
