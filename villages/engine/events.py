"""What a command tells the outside world, besides the new state."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .roles import Winner
from .state import DeathCause, Phase


class MessageKind(StrEnum):
    TALK = "talk"
    WOLF = "wolf"
    WOLF_HOWL = "wolf_howl"
    COMMON = "common"
    COMMON_WHISPER = "common_whisper"
    MONOLOGUE = "monologue"
    HEAVEN = "heaven"
    SYSTEM = "system"
    WILL = "will"
    OBJECTION = "objection"


class Volume(StrEnum):
    STRONG = "strong"
    NORMAL = "normal"
    WEAK = "weak"


@dataclass(frozen=True)
class Post:
    """A line for the log. A player's line has its `text`; a system line (an objection
    too) has only its `code` and `params`, which the site words (`villages.wording`)."""

    day: int
    phase: Phase
    kind: MessageKind
    text: str
    seat_no: int | None = None
    volume: Volume = Volume.NORMAL
    code: str = ""
    params: tuple[tuple[str, str], ...] = ()
    cost: int = 0  # virtual seconds consumed


@dataclass(frozen=True)
class Died:
    """A seat died; `cause` says how (the log words it, the screen redraws the seat)."""

    seat_no: int
    cause: DeathCause


@dataclass(frozen=True)
class PhaseChanged:
    """The village moved to another phase (the screens redraw)."""

    day: int
    phase: Phase


@dataclass(frozen=True)
class Dawn:
    """Morning came: the night's results are told and the day begins (a cue)."""

    day: int


@dataclass(frozen=True)
class Revote:
    """The day's ballots were cleared and the vote is taken again: `reason` "tie" (the
    vote was tied) or "sudden_death" (a sudden death voided the round); `last_chance`:
    another tie is a draw."""

    day: int
    round: int
    last_chance: bool
    reason: str = "tie"


@dataclass(frozen=True)
class GameOver:
    """The game ended with a winner, or was abandoned."""

    winner: Winner | None  # None: abandoned (廃村)


@dataclass(frozen=True)
class ObjectionRaised:
    """A living player cried 異議あり (a cue for everyone)."""

    seat_no: int
    objections_left: int


@dataclass(frozen=True)
class Alert:
    """The last seconds before a sudden death: screens play a sound."""

    seconds_left: int


@dataclass(frozen=True)
class Kicked:
    """A seat was removed before the game (kick votes, staff, or a player leaving)."""

    seat_no: int
    by_staff: bool = False


@dataclass(frozen=True)
class Started:
    """The game began: roles were dealt."""


Event = (
    Post
    | Died
    | PhaseChanged
    | Dawn
    | Revote
    | GameOver
    | ObjectionRaised
    | Alert
    | Kicked
    | Started
)
