"""過去ログ: the whole log of a village, a day at a time, as the viewer may see it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from villages import selectors
from villages.engine import Phase
from villages.screenview import speakers
from villages.services.errors import NotFound

from . import labels
from . import render as log
from .common import error_page, user_id


def _days(phases: list[tuple[int, str]]) -> list[int]:
    return sorted({d for d, _ in phases})


def past_log(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = log.view_for(village_id, user_id(request))
    except NotFound as error:
        return error_page(request, error)
    state = view.state
    groups = log.phases(state)
    days = _days(groups)
    try:
        day = int(request.GET.get("day", ""))
    except ValueError:
        day = None
    if day not in days:
        day = None
    wanted = [g for g in groups if day is None or g[0] == day]
    html, _last = log.log_html(
        state,
        view.village,
        view.viewer,
        speakers(view.loaded),
        heaven=None,
        groups=wanted,
        oldest_first=True,
    )
    s = selectors.state_dict(view)
    names = {no: row.handle_name for no, row in view.loaded.rows.items()}
    votes = [
        {
            "day": v["day"],
            "round": v["round"],
            "rows": [
                (names.get(b["voter"], "?"), names.get(b["target"], "?")) for b in v["ballots"]
            ],
            "executed": names.get(v["executed"]) if v["executed"] else None,
        }
        for v in s["votes"]
        if day is None or v["day"] == day
    ]
    seats = [
        {
            **x,
            "role_label": labels.label(labels.ROLE, x["role"]),
            "sub_labels": [labels.label(labels.SUB_ROLE, y) for y in x["sub_roles"] or []],
        }
        for x in s["seats"]
    ]
    return render(
        request,
        "villages/log.html",
        {
            "village": view.village,
            "days": [(d, _day_label(d)) for d in days],
            "day": day,
            "log_html": html,
            "votes": votes,
            "seats": seats,
            "ended": state.phase is Phase.ENDED,
            "winner_label": labels.label(labels.WINNER, s["winner"]),
        },
    )


def _day_label(day: int) -> str:
    if day == 0:
        return str(labels.PHASE["waiting"])
    return _("%(day)s日目") % {"day": day}
