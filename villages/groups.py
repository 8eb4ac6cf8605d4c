"""Channel-layer group names and the envelopes pushed to them, shared by both ends.

A socket hears exactly two groups of its village:

* `viewer_group(village_id, seat_no)`: its viewer's own group (one seat, or every
  spectator). `villages.services.push` computes each frame of it for that one viewer with
  the engine's visibility function, so what the group carries is what the viewer may see.
* `roster_group(village_id)`: who holds which seat, sent while seats can change (before
  the start). It carries no game content; a socket uses it to notice that its user sat,
  left or was kicked, and then re-resolves its viewer. It is never relayed to the socket.

Nothing else public-wide exists: there is no "everyone in the village" group.
"""

from __future__ import annotations

from typing import Any

VILLAGE_EVENTS = "village.events"
VILLAGE_ROSTER = "village.roster"


def viewer_group(village_id: int, seat_no: int | None) -> str:
    """The group of one viewer of a village: a seat, or every spectator (seat None)."""
    if seat_no is None:
        return f"village.{village_id}.spectators"
    return f"village.{village_id}.seat.{seat_no}"


def roster_group(village_id: int) -> str:
    """Seat-ownership signals of a village (never relayed to a socket)."""
    return f"village.{village_id}.roster"


def village_events(
    events: list[dict[str, Any]],
    *,
    viewer: int | None,
    user: int | None,
    version: int,
    prev: int | None = None,
    last: int | None = None,
    widen: bool = False,
) -> dict[str, Any]:
    """What one commit pushes to one viewer: its frames, in order, and how to place them.

    * `viewer`, `user`: whom the frames were computed for (seat number and its user id, or
      None, None for spectators); a socket drops frames that are not its viewer's.
    * `version`: the village version the `state` frame shows; older states are dropped.
    * `prev`, `last`: the village's last message id before this commit's lines and the
      id of its last line (None when it posted none). A socket that has not handled
      every line up to `prev` missed a push and reads the gap from the database.
    * `widen`: what this viewer may see has just widened (its death, the end of the
      game); the socket sends its whole log again, as the viewer now sees it.
    """
    return {
        "type": VILLAGE_EVENTS,
        "events": events,
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
