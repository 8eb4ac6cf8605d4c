"""What travels between the processes of a site, and what a socket process hands its
sockets: the channel-layer groups, the events published to them, and the envelopes.

**Between processes** (the channel layer, `jinro_site.livebus`) travel small events,
never a rendering for a viewer:

* `village_group(id)`: one `village.changed` event per commit of the village (its version,
  the version it followed, its public cues, what the staff hid or showed), and
  `agent.replaced` when a newer socket of an AIWolf agent takes its seat;
* `USERS_GROUP`: `user.changed` when a user's standing changed (a ban).

Each socket process hears these through one channel of its own (`villages.consumers.hub`)
and works out there, once per distinct viewer, what each of its sockets may see
(`villages.fanout`, with the engine's visibility function): a change a viewer may not see
reaches no socket of that viewer.

**Within a socket process** the hub hands its sockets envelopes: `village.events` (API.md's
JSON frames for one viewer), `village.screen` (a screen delta, shared by the viewers who
see the change alike), and signals (`village.catch_up`, `village.reload`, `user.changed`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Events between processes.
VILLAGE_CHANGED = "village.changed"
AGENT_REPLACED = "agent.replaced"
USER_CHANGED = "user.changed"
USERS_GROUP = "jinro.users"

# Envelopes and signals a hub hands its sockets.
VILLAGE_EVENTS = "village.events"
VILLAGE_SCREEN = "village.screen"
VILLAGE_CATCH_UP = "village.catch_up"  # read what the socket lacks (its user moved seats)
VILLAGE_RELOAD = "village.reload"  # the hub could not follow: read everything again


def village_group(village_id: int) -> str:
    """The group a village's events are published to (every socket process of the site
    that watches the village hears them)."""
    return f"village.{village_id}"


def encode(frame: dict[str, Any]) -> str:
    """A frame as the socket sends it (compact JSON, UTF-8 as is)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def village_changed(
    village_id: int,
    *,
    version: int,
    since: int,
    cues: list[dict[str, Any]],
    moderated: dict[str, Any] | None = None,
    follow: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One commit of a village, as published: `version` (its sequence number: every
    commit bumps it by one) and `since` (the version it followed), the public cues of the
    commit (objection, revote, dawn, game over, alert), and `moderated`: `{"lines": [row
    id], "hidden": bool}` when the staff hid or showed lines; `follow`, for a commit that
    moved only the clock, its lines and the village row's clock (`villages.fanout.following`).
    Whoever follows the village works out from it, or from the database, what its viewers
    may see of it."""
    event: dict[str, Any] = {
        "type": VILLAGE_CHANGED,
        "village": village_id,
        "version": version,
        "since": since,
        "cues": cues,
    }
    if moderated is not None:
        event["moderated"] = moderated
    if follow is not None:
        event["follow"] = follow
    return event


def agent_replaced(village_id: int, seat_no: int, by: str) -> dict[str, Any]:
    """A newer socket (`by`) of an AIWolf agent took the agent's seat: older ones close."""
    return {"type": AGENT_REPLACED, "village": village_id, "seat_no": seat_no, "by": by}


def user_changed(user_id: int) -> dict[str, Any]:
    """A user's standing changed (a ban): its sockets read it again."""
    return {"type": USER_CHANGED, "user": user_id}


def encoded_frame(frame: dict[str, Any], text: str | None = None) -> list[Any]:
    """A frame as an envelope carries it: `[type, message id or None, the frame encoded]`
    (`text`: the frame encoded already, by a caller that shares it between viewers)."""
    return [
        frame["type"],
        frame["message"]["id"] if frame["type"] == "message" else None,
        encode(frame) if text is None else text,
    ]


def village_events(
    events: list[dict[str, Any] | list[Any]],
    *,
    viewer: int | None,
    user: int | None,
    version: int,
    prev: int | None = None,
    last: int | None = None,
    widen: bool = False,
) -> dict[str, Any]:
    """What one change brings one viewer: its frames, in order, and how to place them.

    * `frames`: `[type, message id or None, the frame encoded]` (`encoded_frame`; an
      event given so already is kept): encoded once, so a socket forwards the text;
    * `viewer`, `user`: whom the frames were computed for (seat number and its user id, or
      None, None for spectators); a socket drops frames that are not its viewer's.
    * `version`: the village version the `state` frame shows; older states are dropped.
    * `prev`, `last`: the number (`villages.line_numbers`) of the last line before this
      change's that *this viewer* may see, and of the change's last line it may see (None
      when it brought the viewer none).
      A socket that has not handled every line up to `prev` missed a change and reads the
      gap from the database.
    * `widen`: what this viewer may see has just widened (its death, the end of the
      game); the socket sends its whole log again, as the viewer now sees it.
    """
    return {
        "type": VILLAGE_EVENTS,
        "frames": [e if isinstance(e, list) else encoded_frame(e) for e in events],
        "viewer": viewer,
        "user": user,
        "version": version,
        "prev": prev,
        "last": last,
        "widen": widen,
    }


def village_screen(delta: dict[str, Any], *, version: int) -> dict[str, Any]:
    """What one change did to the screens of the viewers who see it alike.

    * `delta`: `parts` (part id → input, `villages.screenview`), `lines` (line inputs),
      `hide` (ids of lines no longer shown), `restore`, `cues`, `prev`, `last` (as in
      `village_events`) and `widen`; kept encoded (`blob`), and its fingerprint (`key`)
      is what the process renders it once under;
    * `version`: the village version the parts show; older parts are dropped.
    """
    blob = encode(delta)
    return {
        "type": VILLAGE_SCREEN,
        "blob": blob,
        "key": hashlib.blake2b(blob.encode(), digest_size=12).hexdigest(),
        "prev": delta.get("prev"),
        "last": delta.get("last"),
        "widen": bool(delta.get("widen")),
        "version": version,
    }
