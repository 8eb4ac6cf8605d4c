"""The write side of a push: after a commit, one small event for the village.

Called from `services.core` once the commit is durable. The event says which version the
village came to from which (every commit bumps `Village.version` by one: the versions are
the village's sequence numbers), and carries what the database does not keep: the public
cues of the commit (an objection, a revote, the dawn, the end, the sudden-death alert)
and, from the staff, which lines were hidden or shown. Nothing of what a viewer sees is
worked out here, under the village's write turn: each socket process reads the change and
works out, once per distinct viewer, what each of its sockets may see
(`villages.fanout`, `villages.consumers.hub`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction

from jinro_site import livebus
from villages import fanout
from villages.engine.events import Alert, Dawn, Event, GameOver, ObjectionRaised, Revote
from villages.groups import (
    USERS_GROUP,
    agent_replaced,
    user_changed,
    village_changed,
    village_group,
)
from villages.models import Message
from villages.snapshots import Loaded

logger = logging.getLogger(__name__)


def cue(event: Event) -> dict[str, Any] | None:
    """The public cue an engine event becomes (API.md's frames, and the screens' sounds)."""
    if isinstance(event, ObjectionRaised):
        return {"type": "objection", "seat_no": event.seat_no}
    if isinstance(event, Revote):
        return {"type": "revote", "day": event.day, "round": event.round, "reason": event.reason}
    if isinstance(event, Dawn):
        return {"type": "dawn", "day": event.day}
    if isinstance(event, GameOver):
        return {"type": "game_over", "winner": event.winner.value if event.winner else None}
    if isinstance(event, Alert):
        return {"type": "alert", "seconds_left": event.seconds_left}
    return None


def publish(
    before: Loaded,
    after: Loaded,
    events: Sequence[Event],
    messages: Sequence[Message] = (),
    moderated: Sequence[Message] = (),
    hidden: bool = False,
) -> None:
    """Publish one commit of a village (see the module's docstring). A commit that moved
    only the clock (a line by day, a silence) also carries its lines and the row's clock,
    from which a process that follows the village makes the new version without reading
    it (`villages.fanout.followed`)."""
    village = after.village
    event = village_changed(
        village.pk,
        version=village.version,
        since=before.village.version,
        cues=[c for c in map(cue, events) if c is not None],
        moderated={"lines": [m.pk for m in moderated], "hidden": hidden} if moderated else None,
        follow=None if moderated else fanout.following(before, after, messages),
    )
    livebus.publish(village_group(village.pk), event)


def publish_user(user_id: int) -> None:
    """A user's standing changed (banned, unbanned): its open sockets read it again."""
    livebus.publish(USERS_GROUP, user_changed(user_id))


def publish_agent_replaced(village_id: int, seat_no: int, by: str) -> None:
    """A newer socket of an AIWolf agent holds its seat now: the older ones close."""
    livebus.publish(village_group(village_id), agent_replaced(village_id, seat_no, by))


def after_commit(work: Callable[..., None], *args: Any) -> None:
    """Run `work(*args)` (a push) once the transaction commits. If it fails, the log says
    so and nothing else: the commit stands, its answer is sent, the caller goes on."""

    def run() -> None:
        try:
            work(*args)
        except Exception:
            logger.exception("after a commit, %s failed", getattr(work, "__name__", work))

    transaction.on_commit(run)
