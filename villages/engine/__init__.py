"""The rules of the classic web werewolf game, pure: no Django, no clock, no global random.

State in, (new state, events) out; illegal commands raise a RuleError whose
`code` is the API's error code.
"""

from .cast import CAST_TABLE, MAX_PLAYERS, MIN_PLAYERS, Cast, Options, TimeOptions
from .errors import RuleError
from .events import Event, MessageKind, Post, Volume
from .game import Step
from .roles import Role, SubRole, Team, Winner
from .rules import Rules
from .state import Ability, Ballot, DeathCause, GameState, NightAction, Phase, Seat

__all__ = [
    "CAST_TABLE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Ability",
    "Ballot",
    "Cast",
    "DeathCause",
    "Event",
    "GameState",
    "MessageKind",
    "NightAction",
    "Options",
    "Phase",
    "Post",
    "Role",
    "RuleError",
    "Rules",
    "Seat",
    "Step",
    "SubRole",
    "Team",
    "TimeOptions",
    "Volume",
    "Winner",
]
