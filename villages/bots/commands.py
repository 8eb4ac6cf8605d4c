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


Command = Say | Vote | Act
