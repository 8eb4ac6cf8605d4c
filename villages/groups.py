"""Channel-layer group names and the envelopes pushed to them, shared by both ends.

A socket hears exactly three groups:

* its viewer's own group of its village (one seat, or every spectator), in the socket's
  flavour: `viewer_group` for API.md's JSON frames, `screen_group` for the game screen's
  HTML parts. `villages.services.push` computes what each carries for that one viewer with
  the engine's visibility function, so what the group carries is what the viewer may see;
* `roster_group(village_id)`: who holds which seat, sent while seats can change (before
  the start). It carries no game content; a socket uses it to notice that its user sat,
  left or was kicked, and then re-resolves its viewer. It is never relayed to the socket;
* `user_group(user_id)` of a logged-in socket: its user was banned (or unbanned).

Nothing else public-wide exists: there is no "everyone in the village" group. A push goes
only to the groups that someone listens to, and only where the viewer's view changed.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

VILLAGE_EVENTS = "village.events"
VILLAGE_SCREEN = "village.screen"
VILLAGE_ROSTER = "village.roster"
USER_CHANGED = "user.changed"


def viewer_group(village_id: int, seat_no: int | None) -> str:
    """The group of one viewer of a village: a seat, or every spectator (seat None)."""
    if seat_no is None:
        return f"village.{village_id}.spectators"
    return f"village.{village_id}.seat.{seat_no}"


def screen_group(village_id: int, seat_no: int | None) -> str:
    """The game screen's group of one viewer of a village (see `viewer_group`)."""
    return viewer_group(village_id, seat_no) + ".screen"


def agent_group(village_id: int, seat_no: int) -> str:
    """The sockets of an AIWolf agent's seat: a newer one tells an older one to close."""
    return f"village.{village_id}.agent.{seat_no}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def roster_group(village_id: int) -> str:
    """Seat-ownership signals of a village (never relayed to a socket)."""
    return f"village.{village_id}.roster"


def encode(frame: dict[str, Any]) -> str:
    """A frame as the socket sends it (compact JSON, UTF-8 as is)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


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
    """What one commit pushes to one viewer: its frames, in order, and how to place them.

    * `frames`: `[type, message id or None, the frame encoded]` (`encoded_frame`; an
      event given so already is kept): encoded once, so a socket forwards the text and the
      layer copies no nested dicts;
    * `viewer`, `user`: whom the frames were computed for (seat number and its user id, or
      None, None for spectators); a socket drops frames that are not its viewer's.
    * `version`: the village version the `state` frame shows; older states are dropped.
    * `prev`, `last`: the number (`villages.line_numbers`) of the last line before this
      commit's that *this viewer* may see, and of the commit's last line it may see (None
      when it brought the viewer none).
      A socket that has not handled every line up to `prev` missed a push and reads the
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


def village_roster(seats: dict[int, int | None], *, version: int) -> dict[str, Any]:
    """Who holds which seat now: `[[seat_no, user_id], ...]` (the dummy boy has no user)."""
    return {
        "type": VILLAGE_ROSTER,
        "seats": [[no, user] for no, user in sorted(seats.items())],
        "version": version,
    }


def village_screen(
    delta: dict[str, Any],
    *,
    viewers: dict[int | None, int | None],
    version: int,
) -> dict[str, Any]:
    """What one commit changed on the screens of some viewers who see it alike.

    * `delta`: `parts` (part id → input, `villages.screenview`), `lines` (line inputs),
      `hide` (ids of lines no longer shown), `restore`, `cues`, `prev`, `last` (as in
      `village_events`) and `widen`; it travels encoded (`blob`), and its fingerprint
      (`key`) is what a socket process renders it once under;
    * `viewers`: seat number (None: spectators) → its user id, for whom it was computed;
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
        "viewers": [[viewer, user] for viewer, user in viewers.items()],
        "version": version,
    }


def user_changed(user_id: int) -> dict[str, Any]:
    """A user's standing changed (a ban): its sockets read it again."""
    return {"type": USER_CHANGED, "user": user_id}
