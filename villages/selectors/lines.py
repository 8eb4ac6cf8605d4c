"""The lines a viewer may see, as it sees them, numbered for it (`villages.line_numbers`)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from villages import line_numbers
from villages.engine import GameState
from villages.engine import visibility as vis
from villages.lru import LRU
from villages.models import Message, Village
from villages.snapshots import Loaded

from .shapes import MessageDict, iso
from .state import View


def message_dict(msg: Message, seen: vis.MessageView, number: int) -> MessageDict:
    """A line as its viewer may see it (API.md's Message; `id` is the `number` the viewer
    knows it by, `villages.line_numbers`; `code`/`params` name a system line's wording, so
    that a page can show it in its own language)."""
    whole = seen.kind == msg.kind  # not a howl or whisper standing in for hidden talk
    return {
        "id": number,
        "day": msg.day,
        "phase": msg.phase,
        "kind": seen.kind.value,
        "seat_no": seen.seat_no,
        "text": seen.text,
        # A stand-in tells nothing of the hidden line, not even how loud it was.
        "volume": msg.volume if whole else "normal",
        "created_at": iso(msg.created_at),
        "code": msg.code if whole else "",
        "params": (msg.params or {}) if whole and msg.code else {},
    }


def visible_messages(
    village: Village, state: GameState, viewer: int | None, messages: Iterable[Message]
) -> list[MessageDict]:
    """The lines the viewer may see, as it sees them, numbered for it."""
    seen = [(msg, s) for msg in messages if (s := vis.see_message(state, viewer, msg))]
    number = line_numbers.numbers(village, state, viewer, (msg for msg, _s in seen))
    return [message_dict(msg, s, number[msg.pk]) for msg, s in seen]


# The village's hidden lines at one `hidden_mark`: (id, kind, seat).
_HIDDEN: LRU[tuple[int, int, int], list[tuple[int, str, int | None]]] = LRU(1000)


def log_marks(loaded: Loaded, viewer: int | None) -> str:
    """A fingerprint of the hidden lines the viewer could see: a drawn log is out of date
    when it differs. It changes only when the staff hide or show a line the viewer may
    see, so it tells nobody of the moderation of lines kept from them."""
    village = loaded.village
    if not village.hidden_mark:
        return "0"  # nothing was ever hidden here
    key = (village.pk, village.seed, village.hidden_mark)
    rows = _HIDDEN.get(key)
    if rows is None:
        rows = list(
            Message.objects.filter(village_id=village.pk, hidden=True)
            .order_by("id")
            .values_list("id", "kind", "seat_no")
        )
        _HIDDEN.put(key, rows)
    seen = [
        str(pk)
        for pk, kind, seat_no in rows
        if vis.see_message(loaded.state, viewer, vis.BareLine(kind, seat_no))
    ]
    if not seen:
        return "0"
    return hashlib.blake2s(",".join(seen).encode(), digest_size=8).hexdigest()


def messages_for(view: View, after: int = 0) -> list[MessageDict]:
    """The lines the viewer may see after its line number `after`."""
    village, state = view.village, view.state
    start = line_numbers.row_after(village, state, view.viewer, after)
    qs = Message.objects.filter(
        village=village, hidden=False, id__gt=start, id__lte=village.last_line
    ).order_by("id")
    return visible_messages(village, state, view.viewer, qs)
