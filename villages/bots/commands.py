"""What a strategy may ask for: the same commands a player's screen offers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Say:
    """A line of the bot's own (`villages/bots/lines.py`), said in the seat's talk."""

    key: str
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Vote:
    target: int


@dataclass(frozen=True)
class Act:
    ability: str  # "attack" | "divine" | "guard" | "cupid"
    targets: tuple[int, ...]


@dataclass(frozen=True)
class Wait:
    """Nothing more now though the seat owes something: it waits on purpose (a vote kept
    for later in the day). It looks again at the village's next change, or at the latest
    `seconds` from now (the later part of a real-time day comes with no change)."""

    seconds: float | None = None


Command = Say | Vote | Act | Wait
