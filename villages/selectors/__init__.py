"""Reads: what a viewer may see of villages, built on the engine's visibility function.

Every page, API answer, WebSocket frame and past log goes through here; the
decision itself is `villages.engine.visibility`. By concern: `shapes` (what the readers
return, API.md's shapes), `state` (a village and the state one viewer may see of it),
`lines` (the lines a viewer may see), `log` (a finished village whole, the search of the
past ones). Every name is read from here, `villages.selectors`.
"""

from __future__ import annotations

from .lines import log_marks, message_dict, messages_for, visible_messages
from .log import search_ended, village_log
from .shapes import (
    BallotDict,
    ClockDict,
    DeathDict,
    FinishedVillageDict,
    LogResultDict,
    LogSeatDict,
    MeDict,
    MessageDict,
    NightChoiceDict,
    ResultDict,
    SeatDict,
    StateDict,
    StateVillageDict,
    VillageDict,
    VillageLogDict,
    VoteRoundDict,
)
from .state import (
    View,
    carry_over,
    clock_dict,
    get_village,
    stable_clock,
    stable_state,
    state_dict,
    state_frame_text,
    view_for,
    village_dict,
    villages,
)

__all__ = [
    "BallotDict",
    "ClockDict",
    "DeathDict",
    "FinishedVillageDict",
    "LogResultDict",
    "LogSeatDict",
    "MeDict",
    "MessageDict",
    "NightChoiceDict",
    "ResultDict",
    "SeatDict",
    "StateDict",
    "StateVillageDict",
    "View",
    "VillageDict",
    "VillageLogDict",
    "VoteRoundDict",
    "carry_over",
    "clock_dict",
    "get_village",
    "log_marks",
    "message_dict",
    "messages_for",
    "search_ended",
    "stable_clock",
    "stable_state",
    "state_dict",
    "state_frame_text",
    "view_for",
    "village_dict",
    "village_log",
    "villages",
    "visible_messages",
]
