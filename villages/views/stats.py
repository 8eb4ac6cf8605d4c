"""統計: the site-wide statistics page (villages.stats), with its filters in the URL."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from villages import stats, wording
from villages.forms import LogSearchForm

BAR_WIDTH = 240


class StatsForm(LogSearchForm):
    """The past-log search's number of players, option and period, and the ranking's
    minimum number of games."""

    min_games = forms.IntegerField(
        label=_("ランキングの最低試合数"), required=False, min_value=1, max_value=1000
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("q", "player", "role", "winner"):
            del self.fields[name]


def _bars(table: dict[str, dict[str, int]], names: dict, search: dict[str, Any], key: str):
    most = max([v["games"] for v in table.values()] + [1])
    bars = []
    for code, v in sorted(table.items(), key=lambda kv: (-kv[1]["games"], kv[0])):
        games = v["games"]
        bars.append(
            {
                "name": wording.label(names, code),
                "games": games,
                "wins": v["wins"],
                "rate": round(100 * v["wins"] / games) if games else 0,
                "survival": round(100 * v["survived"] / games) if games else 0,
                "games_w": round(BAR_WIDTH * games / most),
                "wins_w": round(BAR_WIDTH * v["wins"] / most),
                "logs": "/villages/ended/?"
                + urlencode({k: v for k, v in {**search, key: code}.items() if v}),
            }
        )
    return bars


def _toggled(request: HttpRequest, name: str, value: str | None) -> str:
    """This page's address with one parameter set (or left out), the filters kept."""
    query = request.GET.copy()
    query.pop(name, None)
    if value is not None:
        query[name] = value
    return "?" + query.urlencode()


def statistics(request: HttpRequest) -> HttpResponse:
    practice = request.GET.get("practice") == "1"
    form = StatsForm(request.GET or None)
    valid = form.is_bound and form.is_valid()
    criteria = form.criteria() if valid else {}
    filters = stats.Filters(
        players=criteria.get("players"),
        option=criteria.get("option", ""),
        since=criteria.get("since"),
        until=criteria.get("until"),
        min_games=(form.cleaned_data.get("min_games") if valid else None) or 5,
        practice=practice,
    )
    found = stats.statistics(filters)
    search = {
        "players": filters.players,
        "option": filters.option,
        "since": form.cleaned_data.get("since") if valid else None,
        "until": form.cleaned_data.get("until") if valid else None,
    }
    teams = {k: v for k, v in found["by_team"].items()}
    return render(
        request,
        "villages/stats.html",
        {
            "form": form,
            "games": found["games"],
            "by_team": _bars(teams, wording.TEAM, {**search, "winner": ""}, "winner"),
            "by_role": _bars(
                found["by_role"], {**wording.ROLE, **wording.SUB_ROLE}, search, "role"
            ),
            "ranking": [{**p, "rate_pct": round(100 * p["rate"])} for p in found["ranking"]],
            "most_games": found["most_games"],
            "min_games": filters.min_games,
            "practice": practice,
            "practice_link": _toggled(request, "practice", None if practice else "1"),
        },
        status=400 if form.is_bound and not valid else 200,
    )
