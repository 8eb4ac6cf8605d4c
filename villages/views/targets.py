"""Whom a player may choose on the vote and night-action pages: the engine's answer
(`engine/choices.py`) with the site's rules and the time now."""

from __future__ import annotations

from django.utils import timezone

from villages.engine import GameState, choices
from villages.engine.choices import ACTIONS, Choice
from villages.services.config import rules

__all__ = ["ACTIONS", "Choice", "choice"]


def choice(state: GameState, seat_no: int, action: str) -> Choice:
    return choices.choice(state, seat_no, action, rules=rules(), now=timezone.now())
