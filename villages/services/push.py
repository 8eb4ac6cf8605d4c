"""The fan-out: after a commit, send each viewer exactly what that viewer may see.

Called only from `core.run` through `transaction.on_commit`. Every frame is computed
with the engine's visibility function for one viewer (a seat, or the spectators) and
sent to that viewer's group, wrapped in an envelope (`villages.groups.village_events`)
that lets the socket place it: whom it was computed for, the village version of its
state, and the message ids around the commit's lines, so a socket can tell a missed push
and read the gap from the database (`villages.consumers`).

The frames a socket relays are API.md's WebSocket events: `message`, `state`,
`objection`, `revote`, `dawn`, `game_over`, plus `alert` (a sudden-death warning sound).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from jinro_site.runtime import group_send_many_sync
from villages.engine import GameState, Phase
from villages.engine.events import (
    Alert,
    Dawn,
    Died,
    Event,
    GameOver,
    Kicked,
    ObjectionRaised,
    Revote,
    Started,
)
from villages.engine.visibility import message_audiences
from villages.groups import roster_group, viewer_group, village_events, village_roster
from villages.models import Message, Village

from .persist import Loaded, load

logger = logging.getLogger(__name__)


def _cue(event: Event) -> dict[str, Any] | None:
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


def _widened(state: GameState, events: Sequence[Event]) -> set[int | None]:
    """Viewers who may see more from this commit on: the dead of it, everyone at the end."""
    if any(isinstance(e, GameOver) for e in events):
        return set(message_audiences(state))
    return {e.seat_no for e in events if isinstance(e, Died)}


def _seats_may_change(state: GameState, events: Sequence[Event]) -> bool:
    """Seats change only before the start (sit, leave, kick) and at the start."""
    return state.phase is Phase.WAITING or any(
        isinstance(e, Started | Kicked | GameOver) for e in events
    )


def _previous_message_id(village_id: int, message_ids: Sequence[int]) -> int | None:
    if not message_ids:
        return None
    before = (
        Message.objects.filter(village_id=village_id, id__lt=min(message_ids))
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    return before or 0


def frames_for(
    loaded: Loaded,
    viewer: int | None,
    messages: Sequence[Message],
    cues: list[dict[str, Any]],
    *,
    with_state: bool = True,
) -> list[dict[str, Any]]:
    """One viewer's frames of one commit: its visible lines, the cues, its fresh state."""
    # Imported here: selectors import services, which import this module.
    from villages.selectors import View, state_dict, visible_messages

    frames: list[dict[str, Any]] = [
        {"type": "message", "message": m} for m in visible_messages(loaded.state, viewer, messages)
    ]
    frames += cues
    if with_state:
        frames.append({"type": "state", "state": state_dict(View(loaded, viewer))})
    return frames


def publish(
    village_id: int,
    message_ids: Sequence[int],
    events: Sequence[Event],
    *,
    committed: Loaded | None = None,
    messages: Sequence[Message] | None = None,
    state_changed: bool = True,
) -> None:
    """Push new lines, cues and the fresh state to every viewer of the village.

    `committed` is the village as the commit left it (else it is read again), `messages`
    its new lines; `state_changed=False` (only lines were added) leaves out the states.
    """
    if committed is None:
        village = Village.objects.filter(pk=village_id).first()
        if village is None:
            return
        committed = load(village)
    state, version = committed.state, committed.village.version
    if messages is None or any(m.pk is None for m in messages):
        messages = Message.objects.filter(pk__in=message_ids).order_by("id")
    shown = [m for m in messages if not m.hidden]
    cues = [c for c in map(_cue, events) if c is not None]
    widened = _widened(state, events)
    where = {
        "version": version,
        "prev": _previous_message_id(village_id, message_ids),
        "last": max(message_ids) if message_ids else None,
    }
    users = {no: row.user_id for no, row in committed.rows.items()}
    sends: list[tuple[str, dict]] = []
    for viewer in message_audiences(state):
        # Every viewer gets an envelope, even an empty one: it moves the socket's cursor
        # past lines it may not see, so that the next push does not look like a gap.
        envelope = village_events(
            frames_for(committed, viewer, shown, cues, with_state=state_changed),
            viewer=viewer,
            user=None if viewer is None else users.get(viewer),
            widen=viewer in widened,
            **where,
        )
        sends.append((viewer_group(village_id, viewer), envelope))
    if _seats_may_change(state, events):
        sends.append((roster_group(village_id), village_roster(users, version=version)))
    try:
        failures = group_send_many_sync(sends)
    except Exception:  # a push never undoes a committed command
        logger.exception("push to village %s failed", village_id)
        return
    if failures:
        # Sockets that missed it catch up from the database (see villages.consumers).
        logger.warning(
            "push to village %s: %d of %d sends failed (%r)",
            village_id,
            len(failures),
            len(sends),
            failures[0],
        )
