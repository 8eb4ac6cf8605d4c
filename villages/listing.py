"""The version of what the top page lists: villages made, deleted, renamed, changing their
status, day, seats or winner, and the published information pages.

The version is a row of the database (`villages.models.Listing`) that every such change
moves in its own transaction, so that every process reads the same version, and reads the
new version together with the new rows, never before them. The top page keeps its lists
drawn under the version in Django's cache (per language and filter): a visit while nothing
changed reads one small row, and draws no village.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import F
from django.db.models.signals import post_delete, post_save

from villages.models import InfoPage, Listing, Village

# The columns of a village that the list shows (villages/village_rows.html).
LISTED = (
    "status",
    "phase",
    "day",
    "winner",
    "abandoned",
    "practice",
    "seated",
    "name",
    "comment",
    "options",  # the agents option, opened or closed before the start (its mark)
)
ROW = 1
_READ = f'SELECT token, number FROM "{Listing._meta.db_table}" WHERE id = %s'


def version() -> str:
    """The version now (made when the database has none yet). Every visit of the top page
    asks it, an unchanged one for nothing else: read through a cursor (the ORM's query
    built for it took half of a 304's 0.49 ms in process)."""
    with connection.cursor() as cursor:
        cursor.execute(_READ, [ROW])
        found = cursor.fetchone()
    if found is None:
        row, _made = Listing.objects.get_or_create(pk=ROW)
        found = (row.token, row.number)
    return f"{found[0]}:{found[1]}"


def changed() -> None:
    """What the list shows changed: the version moves with the caller's transaction."""
    if not Listing.objects.filter(pk=ROW).update(number=F("number") + 1):
        Listing.objects.get_or_create(pk=ROW)


def listed_fields_changed(before: Village, after: dict[str, Any]) -> bool:
    return any(name in after and getattr(before, name) != after[name] for name in LISTED)


def _on_row_change(sender: type, **kwargs: Any) -> None:
    changed()


def connect_signals() -> None:
    """Villages made or deleted through the ORM, and information pages changed."""
    for model in (Village, InfoPage):
        post_save.connect(_on_row_change, sender=model, dispatch_uid=f"listing-save-{model}")
        post_delete.connect(_on_row_change, sender=model, dispatch_uid=f"listing-del-{model}")
