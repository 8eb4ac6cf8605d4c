"""The staff's hand on a village beside the rules: hide or show lines, rename a village.

Ending a village and kicking a seat are rules (`lifecycle`); what is here changes no game
state, but every open screen follows it at once, as after any command."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from villages.models import Message, Village

from . import core


def set_hidden(message_ids: Iterable[int], *, hidden: bool) -> int:
    """Hide (or show again) lines; returns how many changed. Screens that showed them drop
    them (or put them back in their place)."""
    with transaction.atomic():
        rows = list(
            Message.objects.select_for_update().filter(pk__in=list(message_ids), hidden=not hidden)
        )
        Message.objects.filter(pk__in=[m.pk for m in rows]).update(hidden=hidden)
        by_village: dict[int, list[Message]] = defaultdict(list)
        for m in rows:
            m.hidden = hidden
            by_village[m.village_id].append(m)
        for village_id, lines in by_village.items():
            # A new version that every drawn log depends on, published with the lines.
            core.edit_village(village_id, _next_mark, moderated=lines, hidden=hidden)
    return len(rows)


def _next_mark(village: Village) -> dict[str, int]:
    return {"hidden_mark": village.hidden_mark + 1}


def edit_village(*, village_id: int, name: str, comment: str) -> None:
    core.edit_village(village_id, lambda _v: {"name": name.strip(), "comment": comment.strip()})
