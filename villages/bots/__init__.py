"""Bots: strategies that play a seat from that seat's view alone.

A strategy is a module of this package with a `NAME` and a pure
`decide(view: BotView, rng: random.Random) -> list[Command]`: no Django, no clock, no
I/O; the view comes from the one visibility module (`view.bot_view`). Adding a strategy
is adding a module. The service layer (`villages/services/bots.py`) runs them.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable

from .commands import Act, Command, Say, Vote, Wait
from .view import BotView, bot_view

Strategy = Callable[[BotView, random.Random], list[Command]]
DEFAULT = "reasoning"
# The site's bot accounts are named with this prefix, which the sign-up form refuses.
ACCOUNT_PREFIX = "bot:"


def is_bot_account(username: str) -> bool:
    return username.startswith(ACCOUNT_PREFIX)


def _discover() -> dict[str, Strategy]:
    found: dict[str, Strategy] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        name, decide = getattr(module, "NAME", None), getattr(module, "decide", None)
        if isinstance(name, str) and callable(decide):
            found[name] = decide
    return found


STRATEGIES: dict[str, Strategy] = _discover()

__all__ = [
    "ACCOUNT_PREFIX",
    "DEFAULT",
    "STRATEGIES",
    "Act",
    "BotView",
    "Command",
    "Say",
    "Strategy",
    "Vote",
    "Wait",
    "bot_view",
    "is_bot_account",
]
