"""Everything a village is, as the API shows it to each viewer and as the database holds it.

Two snapshots taken around a refused request must be equal: an error never changes state.
"""

from __future__ import annotations

from typing import Any

from .client import Table


def db_rows(village_id: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from villages.models import Ballot, Message, NightAction, Seat, Village

    return {
        "village": list(Village.objects.filter(pk=village_id).values()),
        "seats": list(Seat.objects.filter(village_id=village_id).order_by("pk").values()),
        "messages": list(Message.objects.filter(village_id=village_id).order_by("pk").values()),
        "ballots": list(Ballot.objects.filter(village_id=village_id).order_by("pk").values()),
        "actions": list(NightAction.objects.filter(village_id=village_id).order_by("pk").values()),
        "villages": Village.objects.count(),
        "users": list(get_user_model().objects.order_by("pk").values_list("pk", "is_active")),
        "tokens": list(Profile.objects.order_by("pk").values_list("user_id", "api_token")),
    }


def snapshot(table: Table) -> dict[str, Any]:
    """Every seat's and a spectator's /state and /messages, the village, and its rows."""
    callers = [None, table.host, *table.seated()]
    views = {}
    for caller in callers:
        key = caller.username if caller is not None else "spectator"
        views[key] = {
            "state": table.state(caller),
            "messages": table.messages(caller),
        }
    village = table.api.spectator.get(table.path())
    return {"views": views, "village": village, "rows": db_rows(table.id)}
