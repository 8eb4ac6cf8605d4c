"""Site-wide statistics (統計): how each team and role fares, and the players' ranking.

What counts as a game is what a player's history counts (`accounts.selectors.history`):
a village that ended with a winner (not abandoned), not a practice village unless asked
(`Filters.practice`, as the history's 練習村を含める), each seat of a person (not the
dummy boy, not a bot, not an AIWolf agent) with its result from the engine
(`outcome.result_of`). Sudden deaths are counted as everywhere else
(`accounts.selectors.sudden_death_seats`: abandoned and practice villages included).

Reading every seat of every finished game is the expensive part: the answer for a set of
filters is kept in Django's cache under the number and newest end of the finished
villages, so it is worked out again only once another game has ended.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max

from accounts.selectors import sudden_death_seats
from villages.engine.outcome import result_of
from villages.engine.roles import Role, SubRole, Winner
from villages.engine.state import Seat as EngineSeat
from villages.models import Seat, Village

CACHE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Filters:
    players: int | None = None
    option: str = ""
    since: datetime | None = None
    until: datetime | None = None
    min_games: int = 5
    practice: bool = False  # practice villages (bots) count too

    def key(self) -> str:
        return "|".join(
            str(x)
            for x in (
                self.players,
                self.option,
                self.since,
                self.until,
                self.min_games,
                self.practice,
            )
        )


def _games(filters: Filters):
    qs = Village.objects.filter(status=Village.Status.ENDED, abandoned=False).exclude(winner="")
    if not filters.practice:
        qs = qs.filter(practice=False)
    if filters.players is not None:
        qs = qs.filter(seated=filters.players)
    if filters.option == "realtime":
        qs = qs.filter(options__time__mode="realtime")
    elif filters.option:
        qs = qs.filter(**{f"options__{filters.option}": True})
    if filters.since is not None:
        qs = qs.filter(ended_at__gte=filters.since)
    if filters.until is not None:
        qs = qs.filter(ended_at__lt=filters.until)
    return qs


def _generation() -> str:
    """Changes when a village ends (or a finished one is deleted)."""
    ended = Village.objects.filter(status=Village.Status.ENDED).aggregate(
        n=Count("id"), last=Max("ended_at")
    )
    return f"{ended['n']}:{ended['last']}"


def statistics(filters: Filters) -> dict[str, Any]:
    said = f"{_generation()}|{filters.key()}"
    key = "jinro:stats:" + hashlib.blake2b(said.encode(), digest_size=16).hexdigest()
    found = cache.get(key)
    if found is None:
        found = _compute(filters)
        cache.set(key, found, CACHE_SECONDS)
    return found


def _tally() -> dict[str, int]:
    return {"games": 0, "wins": 0, "survived": 0}


def _compute(filters: Filters) -> dict[str, Any]:
    games = _games(filters)
    rows = (
        Seat.objects.filter(village__in=games, kicked=False, dummy=False, user__isnull=False)
        .exclude(role="")
        .exclude(bot__gt="")
        .exclude(agent__gt="")
        .values_list("role", "sub_roles", "alive", "village__winner", "user_id", "user__username")
    )
    by_role: dict[str, dict[str, int]] = defaultdict(_tally)
    by_team: dict[str, dict[str, int]] = defaultdict(_tally)
    players: dict[int, dict[str, Any]] = {}
    for role, sub_roles, alive, winner, user_id, username in rows.iterator(chunk_size=5000):
        subs = frozenset(SubRole(s) for s in sub_roles or ())
        seat = EngineSeat(no=0, name="", role=Role(role), sub_roles=subs, alive=alive)
        result = result_of(Winner(winner), seat)
        if result is None:
            continue
        for bucket in (by_role[role], by_team[result.team.value]):
            bucket["games"] += 1
            bucket["wins"] += result.won
            bucket["survived"] += result.survived
        for sub in subs:
            bucket = by_role[sub.value]
            bucket["games"] += 1
            bucket["wins"] += result.won
            bucket["survived"] += result.survived
        player = players.setdefault(user_id, {"username": username, "games": 0, "wins": 0})
        player["games"] += 1
        player["wins"] += result.won
    sudden = dict(
        sudden_death_seats()
        .filter(user_id__in=[u for u, p in players.items() if p["games"] >= filters.min_games])
        .values_list("user_id")
        .annotate(n=Count("id"))
        .values_list("user_id", "n")
    )
    ranking = sorted(
        (
            {**p, "rate": p["wins"] / p["games"], "sudden_deaths": sudden.get(user_id, 0)}
            for user_id, p in players.items()
            if p["games"] >= filters.min_games
        ),
        key=lambda p: (-p["rate"], -p["games"], p["username"]),
    )
    return {
        "games": games.count(),
        "by_role": dict(by_role),
        "by_team": dict(by_team),
        "ranking": ranking[:50],
        "most_games": sorted(players.values(), key=lambda p: (-p["games"], p["username"]))[:10],
    }
