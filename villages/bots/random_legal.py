"""A bot that does what it owes at random, within the rules, and says nothing (tests)."""

from __future__ import annotations

import random

from .commands import Act, Command, Vote
from .legal import cupid_pair
from .view import BotView

NAME = "random"


def decide(view: BotView, rng: random.Random) -> list[Command]:
    if not view.me.alive:
        return []
    for duty in view.duties:
        if duty == "cupid":
            pair = cupid_pair(view, rng)
            return [Act(duty, pair)] if pair else []
        targets = view.targets(duty)
        if targets and duty == "vote":
            return [Vote(rng.choice(targets))]
        if targets:
            return [Act(duty, (rng.choice(targets),))]
    return []
