"""A player's history and statistics, derived from the seats of finished games."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.contrib.auth import get_user_model

from villages.engine import Role, SubRole, Winner
from villages.engine.roles import team_of
from villages.models import Seat, Village
from villages.services.errors import NotFound


def history(username: str) -> dict[str, Any]:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound("そのユーザーはいません。")
    seats = (
        Seat.objects.filter(
            user=user,
            kicked=False,
            village__status=Village.Status.ENDED,
            village__abandoned=False,
        )
        .exclude(role="")
        .select_related("village")
        .order_by("-village__ended_at", "-village_id")
    )
    games = []
    by_role: dict[str, dict[str, int]] = defaultdict(lambda: {"games": 0, "wins": 0})
    by_team: dict[str, dict[str, int]] = defaultdict(lambda: {"games": 0, "wins": 0})
    wins = 0
    sudden_deaths = 0
    for seat in seats:
        village = seat.village
        team = team_of(Role(seat.role), frozenset(SubRole(s) for s in seat.sub_roles))
        won = village.winner not in ("", Winner.DRAW) and team.value == village.winner
        games.append(
            {
                "village_id": village.pk,
                "village_name": village.name,
                "ended_at": village.ended_at.isoformat() if village.ended_at else None,
                "role": seat.role,
                "sub_roles": seat.sub_roles,
                "team": team.value,
                "won": won,
                "survived": seat.alive,
            }
        )
        wins += won
        sudden_deaths += seat.death_cause == "sudden"
        for bucket in (by_role[seat.role], by_team[team.value]):
            bucket["games"] += 1
            bucket["wins"] += won
    return {
        "username": user.get_username(),
        "games": games,
        "stats": {
            "games": len(games),
            "wins": wins,
            "by_role": dict(by_role),
            "by_team": dict(by_team),
            "sudden_deaths": sudden_deaths,
        },
    }


def sudden_deaths(username: str) -> int:
    """The public count of a user's sudden deaths (SPEC §7)."""
    return Seat.objects.filter(user__username=username, death_cause="sudden", kicked=False).count()
