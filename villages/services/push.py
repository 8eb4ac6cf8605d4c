"""The fan-out: after a commit, send each viewer exactly what that viewer may see.

Called only from `core.run` through `transaction.on_commit`. Every frame is
computed with the engine's visibility function for one viewer (a seat, or the
spectators), and sent to that viewer's group.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from jinro_site.runtime import group_send_sync
from villages.engine.events import (
    Alert,
    Dawn,
    Event,
    GameOver,
    ObjectionRaised,
    Revote,
)
from villages.engine.visibility import message_audiences
from villages.groups import viewer_group, village_events
from villages.models import Message, Village

from .persist import load

logger = logging.getLogger(__name__)


def _signal(event: Event) -> dict[str, Any] | None:
    """The public cue an engine event becomes (sounds and alerts on the screens)."""
    if isinstance(event, ObjectionRaised):
        return {"type": "objection", "seat_no": event.seat_no}
    if isinstance(event, Revote):
        return {"type": "revote", "day": event.day, "round": event.round}
    if isinstance(event, Dawn):
        return {"type": "dawn", "day": event.day}
    if isinstance(event, GameOver):
        return {"type": "game_over", "winner": event.winner.value if event.winner else None}
    if isinstance(event, Alert):
        return {"type": "alert", "seconds_left": event.seconds_left}
    return None


def publish(village_id: int, message_ids: Sequence[int], events: Sequence[Event]) -> None:
    """Push new lines, cues and the fresh state to every viewer of the village."""
    # Imported here: selectors import services, which import this module.
    from villages.selectors import View, state_dict, visible_messages

    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        return
    loaded = load(village)
    messages = list(Message.objects.filter(pk__in=message_ids, hidden=False).order_by("id"))
    signals = [s for s in map(_signal, events) if s is not None]
    for viewer in message_audiences(loaded.state):
        frames: list[dict[str, Any]] = [
            {"type": "message", "message": m}
            for m in visible_messages(loaded.state, viewer, messages)
        ]
        frames += signals
        frames.append({"type": "state", "state": state_dict(View(loaded, viewer))})
        try:
            group_send_sync(viewer_group(village_id, viewer), village_events(frames))
        except Exception:  # a push never undoes a committed command
            logger.exception("push to village %s failed", village_id)
