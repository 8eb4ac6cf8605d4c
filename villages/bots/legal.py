"""Choosing among the targets the rules allow (`BotView.choices`, the engine's answer)."""

from __future__ import annotations

import random

from .view import BotView


def cupid_pair(view: BotView, rng: random.Random) -> tuple[int, int] | None:
    """Two seats for the cupid's arrow: itself and one other in a small village."""
    found = view.choices.get("cupid")
    if found is None or found.refusal is not None or not found.targets:
        return None
    if found.fixed is not None:
        return (found.fixed, rng.choice([t for t in found.targets if t != found.fixed]))
    first, second = rng.sample(found.targets, 2)
    return (first, second)
