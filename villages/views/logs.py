"""過去ログ: the whole log of a village as the viewer may see it, with the reader's toggles.

The toggles live in the URL, so that a view can be linked:

* `order=new` newest first (oldest first by default);
* `heaven=0` without heaven talk;
* `roles=0` the spectator's eye: a finished game seen as a spectator saw it while it was
  played (no roles, no wolves' or commons' talk, no heaven), to read it as a puzzle;
* `player=<seat>` that player's own lines only;
* `day=<n>` one day (the whole game by default).

Every line has its permalink (`#m<id>`). Lines, deaths and votes are in time order.
"""

from __future__ import annotations

import base64
import dataclasses
import mimetypes
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlencode

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext as _

from villages import selectors, wording
from villages.engine import Phase
from villages.engine.errors import RuleError
from villages.screenview import deaths_in_order, speakers, tally_rounds
from villages.services.errors import NotFound

from . import render as log
from .common import error_page, user_id

# What a spectator learned of a death while the game was played (the others only say
# that the player was found dead).
PUBLIC_CAUSES = ("executed", "sudden")


@dataclass(frozen=True)
class Toggles:
    newest_first: bool = False
    heaven: bool = True
    roles: bool = True
    player: int | None = None
    day: int | None = None

    @classmethod
    def read(cls, query, *, days: list[int], seats: set[int], ended: bool) -> Toggles:
        def number(name: str, allowed) -> int | None:
            try:
                value = int(query.get(name, ""))
            except ValueError:
                return None
            return value if value in allowed else None

        return cls(
            newest_first=query.get("order") == "new",
            heaven=query.get("heaven") != "0",
            roles=not (ended and query.get("roles") == "0"),
            player=number("player", seats),
            day=number("day", days),
        )

    def query(self, **changes: object) -> str:
        """This view's query string with `changes` (defaults left out)."""
        t = dataclasses.replace(self, **changes)
        pairs = [
            ("order", "new" if t.newest_first else None),
            ("heaven", None if t.heaven else "0"),
            ("roles", None if t.roles else "0"),
            ("player", t.player),
            ("day", t.day),
        ]
        return "?" + urlencode([(k, v) for k, v in pairs if v is not None])


def _days(phases: list[tuple[int, str]]) -> list[int]:
    return sorted({d for d, _ in phases})


def past_log(request: HttpRequest, village_id: int) -> HttpResponse:
    try:
        view = log.view_for(village_id, user_id(request))
    except NotFound as error:
        return error_page(request, error)
    state = view.state
    ended = state.phase is Phase.ENDED
    groups = log.phases(state)
    days = _days(groups)
    toggles = Toggles.read(
        request.GET, days=days, seats={seat.no for seat in state.seats}, ended=ended
    )
    # The spectator's eye: nobody's seat, in the game as it stood before its end.
    viewer = view.viewer if toggles.roles else None
    sight = state if toggles.roles else dataclasses.replace(state, phase=Phase.DAY)
    wanted = [
        g
        for g in groups
        if (toggles.day is None or g[0] == toggles.day) and (toggles.roles or g[1] != "ended")
    ]
    html, _last = log.log_html(
        state,
        view.village,
        viewer,
        speakers(view.loaded),
        heaven=None if toggles.heaven else False,
        groups=wanted,
        oldest_first=not toggles.newest_first,
        only_seat=toggles.player,
        sight=sight,
    )
    s = selectors.state_dict(view)
    names = {no: row.handle_name for no, row in view.loaded.rows.items()}
    votes = tally_rounds(
        [v for v in s["votes"] if toggles.day is None or v["day"] == toggles.day], names
    )
    if toggles.newest_first:
        votes.reverse()
    seats = [
        {
            **x,
            "roles_label": wording.roles_text(x["role"], x["sub_roles"] or [])
            if toggles.roles
            else "",
        }
        for x in s["seats"]
    ]
    deaths = [
        {
            "name": d["name"],
            "when": wording.when(d["day"], d["phase"]),
            "cause": wording.label(wording.DEATH, d["cause"])
            if d["cause"] and (toggles.roles or d["cause"] in PUBLIC_CAUSES)
            else "",
        }
        for d in deaths_in_order(s["seats"])
        if toggles.day is None or d["day"] == toggles.day
    ]
    if toggles.newest_first:
        deaths.reverse()
    return render(
        request,
        "villages/log.html",
        {
            "village": view.village,
            "day_links": [
                (_("すべて"), toggles.query(day=None), toggles.day is None),
                *((wording.day_label(d), toggles.query(day=d), toggles.day == d) for d in days),
            ],
            "day": toggles.day,
            "t": toggles,
            "links": _links(toggles, ended=ended),
            "players": [(x["seat_no"], x["handle_name"]) for x in s["seats"]],
            "log_html": html,
            "votes": votes,
            "seats": seats,
            "deaths": deaths,
            "ended": ended,
            "winner_label": wording.label(wording.WINNER, s["winner"]) if toggles.roles else "",
        },
    )


def _links(t: Toggles, *, ended: bool) -> dict[str, str]:
    return {
        "old": t.query(newest_first=False),
        "new": t.query(newest_first=True),
        "heaven_on": t.query(heaven=True),
        "heaven_off": t.query(heaven=False),
        "roles_on": t.query(roles=True),
        "roles_off": t.query(roles=False) if ended else "",
        "everyone": t.query(player=None),
        "all_days": t.query(day=None),
    }


# ---------------------------------------------------------------------------
# One self-contained HTML file of a finished village


_LOCAL_FILE = re.compile(r'src="(/(?:static|media)/[^"?#]+)"')


def export_html(request: HttpRequest, village_id: int) -> HttpResponse:
    """The whole finished game as one HTML file to keep and read offline: the styles
    inline, every icon embedded, no script, no link out of the file but its own anchors."""
    try:
        data = selectors.village_log(village_id)
    except RuleError as error:
        return error_page(request, error)
    view = log.view_for(village_id, None)
    lines, _last = log.log_html(
        view.state, view.village, None, speakers(view.loaded), heaven=None, oldest_first=True
    )
    names = {s["seat_no"]: s["handle_name"] for s in data["seats"]}
    page = render_to_string(
        "villages/log_export.html",
        {
            "v": data["village"],
            "started": _local(data["village"]["started_at"]),
            "ended_at": _local(data["village"]["ended_at"]),
            "winner_label": wording.label(wording.WINNER, data["winner"]),
            "seats": [
                {
                    **s,
                    "roles_label": wording.roles_text(s["role"], s["sub_roles"]),
                    "team_label": wording.label(wording.TEAM, s["team"]),
                }
                for s in data["seats"]
            ],
            "deaths": [
                {
                    "name": names.get(d["seat_no"], "?"),
                    "when": wording.when(d["day"], d["phase"]),
                    "cause": wording.label(wording.DEATH, d["cause"]),
                }
                for d in data["deaths"]
            ],
            "votes": tally_rounds(data["votes"], names),
            "results": log.result_rows(data["results"], names),
            "lines": lines,
            "styles": _inline_styles(),
        },
        request=request,
    )
    page = _LOCAL_FILE.sub(lambda m: f'src="{_data_uri(m[1])}"', page)
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="jinro-village-{village_id}.html"'
    return response


def _local(iso: str | None) -> datetime | None:
    return timezone.localtime(datetime.fromisoformat(iso)) if iso else None


def _inline_styles() -> str:
    found = finders.find("villages/css/site.css")
    return Path(found).read_text(encoding="utf-8") if found else ""


@lru_cache(maxsize=512)
def _data_uri(url: str) -> str:
    """A site file (a static icon, an uploaded one) as a data: URI, or "" if it is gone."""
    for prefix, root in (
        ("/" + settings.STATIC_URL.lstrip("/"), settings.STATIC_ROOT),
        ("/" + settings.MEDIA_URL.lstrip("/"), settings.MEDIA_ROOT),
    ):
        if not url.startswith(prefix):
            continue
        name = unquote(url[len(prefix) :])
        base = Path(root).resolve()
        path = (base / name).resolve()
        if base not in path.parents or not path.is_file():
            found = finders.find(name) if prefix.endswith("static/") else None
            path = Path(found) if found else None
        if path is None:
            return ""
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode()}"
    return ""
