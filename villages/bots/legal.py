"""The targets the rules allow a seat, read from its view (the engine refuses the rest)."""

from __future__ import annotations

import random

from .view import BotView


def vote_targets(view: BotView) -> list[int]:
    return [s.no for s in view.living if s.no != view.me.seat_no]


def night_targets(view: BotView, ability: str) -> list[int]:
    me = view.me.seat_no
    living = [s for s in view.living if s.no != me]
    if ability == "attack":
        dummy = next((s for s in living if s.dummy), None)
        if view.day == 1 and dummy is not None:
            return [dummy.no]  # the first night's victim is the dummy boy
        return [s.no for s in living if s.no not in view.me.partners]
    return [s.no for s in living]


def cupid_pair(view: BotView, rng: random.Random) -> tuple[int, int]:
    me = view.me.seat_no
    others = [s.no for s in view.living if s.no != me]
    if view.cupid_needs_self:
        return (me, rng.choice(others))
    first, second = rng.sample([me, *others], 2)
    return (first, second)
