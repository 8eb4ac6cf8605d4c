"""The commands of a village: state in, (new state, events) out.

Every command copies the state it is given, checks the command (raising a typed RuleError
before anything changes), applies it and returns the copy with the events it produced.
Time is an argument; randomness comes from the `random.Random` the caller passes.

The commands live by concern: `lobby` (before the start), `talk`, `day` (the vote),
`night` (actions and the dawn), `clock` (silence, time-up, sudden death), on the shared
`command` and `timing`; they are all named here, where the service layer finds them.
"""

from __future__ import annotations

from .cast import Cast
from .clock import abandon, next_deadline, tick
from .command import Scene, Step
from .day import owed_votes, vote
from .lobby import (
    AGENT_MARK,
    BOT_MARK,
    can_start,
    cast_from_codes,
    fix_cast,
    kick_vote,
    leave,
    new_village,
    open_to_agents,
    sit,
    start_now,
    vote_start,
)
from .night import duties, night_action, owed_actions
from .roles import Role
from .state import Ability
from .talk import night_kind, object_, set_will, talk, talks_in_heaven
from .timing import phase_deadline, time_is_up, virtual_seconds_left

__all__ = [
    "AGENT_MARK",
    "BOT_MARK",
    "Ability",
    "Cast",
    "Role",
    "Scene",
    "Step",
    "abandon",
    "can_start",
    "cast_from_codes",
    "duties",
    "fix_cast",
    "kick_vote",
    "leave",
    "new_village",
    "next_deadline",
    "night_action",
    "night_kind",
    "object_",
    "open_to_agents",
    "owed_actions",
    "owed_votes",
    "phase_deadline",
    "set_will",
    "sit",
    "start_now",
    "talk",
    "talks_in_heaven",
    "tick",
    "time_is_up",
    "virtual_seconds_left",
    "vote",
    "vote_start",
]
