"""The 人狼知能 (AIWolf) contest's agents in our villages: the protocol, pure.

An agent speaks the contest server's WebSocket protocol (`aiwolfdial/aiwolf-nlp-server`,
parsed by the contest's library `aiwolf-nlp-common`): JSON packets in, a line of text out.
Here is what to send it and when, from its seat's view alone (`villages.bots.view`, made
by the one visibility module), and what its answers mean: `packets` builds each packet,
`dialogue` decides the next one. No Django, no clock, no I/O: the time is an argument,
and the door (`villages.consumers.aiwolf`) does the sending through the services
(`villages.services.agents`). docs/aiwolf.md tells how the protocol maps onto our rules.
"""

from __future__ import annotations

from .dialogue import Act, Ask, Dialogue, Say, Sleep, Tell, Vote
from .packets import ROLE_NAMES, Heard, Limits, Look, protocol_day

# The site's agent accounts are named with this prefix, which the sign-up form refuses (a
# colon): an agent's seat belongs to one of them, its owner is kept beside it.
AGENT_ACCOUNT_PREFIX = "aiwolf:"


def is_agent_account(username: str) -> bool:
    return username.startswith(AGENT_ACCOUNT_PREFIX)


__all__ = [
    "AGENT_ACCOUNT_PREFIX",
    "ROLE_NAMES",
    "Act",
    "Ask",
    "Dialogue",
    "Heard",
    "Limits",
    "Look",
    "Say",
    "Sleep",
    "Tell",
    "Vote",
    "is_agent_account",
    "protocol_day",
]
