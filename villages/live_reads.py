"""What a village's sockets read from the database: the viewer, its state and its lines.

Synchronous reads for the consumers (which run them in a thread), built on the selectors,
so on the engine's visibility function: a socket is never given a line or a state its
viewer may not see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from villages import line_numbers
from villages.models import Message, Seat, Village
from villages.selectors import StateDict, View, state_dict, visible_messages
from villages.snapshots import Loaded, snapshot_of


@dataclass
class Snapshot:
    """What the database says now, for one user of one village."""

    viewer: int | None
    version: int
    last: int  # the number of the viewer's last line when read
    state: StateDict
    messages: list[dict[str, Any]]  # visible lines with after < id <= last
    complete: bool = True  # False: a page of the lines, more after `last`


def viewer_in(loaded: Loaded, user_id: int | None) -> int | None:
    """The user's seat number in the village, or None (a spectator)."""
    row = loaded.seat_of_user(user_id)
    return row.seat_no if row is not None else None


def resolve_viewer(village_id: int, user_id: int | None) -> tuple[bool, int | None]:
    """(the village exists, the user's seat number or None)."""
    if not Village.objects.filter(pk=village_id).exists():
        return False, None
    if user_id is None:
        return True, None
    seat = (
        Seat.objects.filter(village_id=village_id, user_id=user_id, kicked=False)
        .values_list("seat_no", flat=True)
        .first()
    )
    return True, seat


def lines_after(loaded: Loaded, viewer: int | None, after: int) -> Any:
    """The village's shown rows after the viewer's line number `after`, oldest first (a
    queryset: the caller reads it whole or a page at a time)."""
    village = loaded.village
    start = line_numbers.row_after(village, loaded.state, viewer, after)
    return Message.objects.filter(
        village_id=village.pk, hidden=False, id__gt=start, id__lte=village.last_line
    ).order_by("id")


def read_snapshot(
    village_id: int, user_id: int | None, *, after: int, page: int | None = None
) -> Snapshot | None:
    """The user's viewer, state and visible lines after `after` (None: no such village);
    with `page`, of the next `page` lines only (`last` is then the last line read)."""
    loaded = snapshot_of(village_id)
    if loaded is None:
        return None
    village, state = loaded.village, loaded.state
    viewer = viewer_in(loaded, user_id)
    last = line_numbers.last_number(village, state, viewer)  # the viewer's, in this version
    messages: list[Any] = []
    complete = True
    if last > after:
        lines = lines_after(loaded, viewer, after)
        while True:
            rows = list(lines[:page]) if page is not None else list(lines)
            messages += visible_messages(village, state, viewer, rows)
            if page is None or len(rows) < page or rows[-1].pk >= village.last_line:
                break
            if len(messages) >= page:  # a page of lines this viewer sees: more after it
                last, complete = messages[-1]["id"], False
                break
            lines = lines.filter(id__gt=rows[-1].pk)  # lines it may not see: read on
    return Snapshot(
        complete=complete,
        viewer=viewer,
        version=village.version,
        last=last,
        state=state_dict(View(loaded, viewer)),
        messages=messages,
    )
