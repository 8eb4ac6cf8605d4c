"""A bot that does what it owes at random, within the rules, and says nothing (tests)."""

from __future__ import annotations

import random

from .commands import Act, Command, Vote
from .legal import cupid_pair, night_targets, vote_targets
from .view import BotView

NAME = "random"


def decide(view: BotView, rng: random.Random) -> list[Command]:
    if not view.me.alive:
        return []
    if "vote" in view.duties:
        return [Vote(rng.choice(vote_targets(view)))]
    for ability in view.duties:
        if ability == "cupid":
            return [Act(ability, cupid_pair(view, rng))]
        targets = night_targets(view, ability)
        if targets:
            return [Act(ability, (rng.choice(targets),))]
    return []
