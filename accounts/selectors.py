"""A player's history and statistics, derived from the seats of finished games."""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_noop

from villages.engine import Winner
from villages.engine.outcome import result_of
from villages.models import Seat, Village
from villages.services.errors import NotFound
from villages.snapshots import engine_seat


class Game(TypedDict):
    village_id: int
    village_name: str
    ended_at: str | None
    role: str
    sub_roles: list[str]
    team: str
    won: bool
    result: str  # "win", "loss" or "draw" (a drawn village: nobody won, nobody lost)
    survived: bool
    practice: bool  # a practice village (bot seats)


class Tally(TypedDict):
    games: int
    wins: int


class Stats(TypedDict):
    games: int
    wins: int
    draws: int
    by_role: dict[str, Tally]
    by_team: dict[str, Tally]
    sudden_deaths: int


class History(TypedDict):
    username: str
    games: list[Game]
    stats: Stats


def history(username: str, *, include_practice: bool = False) -> History:
    """API.md's history: the finished games (abandoned ones are not games) and their
    statistics. Each result is the engine's (`outcome.result_of`). Practice games (with
    bots) are listed, but count in the statistics only with `include_practice`."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound(gettext_noop("そのユーザーはいません。"))
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
    games: list[Game] = []
    by_role: dict[str, Tally] = defaultdict(lambda: Tally(games=0, wins=0))
    by_team: dict[str, Tally] = defaultdict(lambda: Tally(games=0, wins=0))
    wins = draws = 0
    for row in seats:
        village = row.village
        result = result_of(Winner(village.winner) if village.winner else None, engine_seat(row))
        if result is None:
            continue
        games.append(
            Game(
                village_id=village.pk,
                village_name=village.name,
                ended_at=village.ended_at.isoformat() if village.ended_at else None,
                role=row.role,
                sub_roles=row.sub_roles,
                team=result.team.value,
                won=result.won,
                result=result.result,
                survived=result.survived,
                practice=village.practice,
            )
        )
        if village.practice and not include_practice:
            continue
        wins += result.won
        draws += result.drawn
        for bucket in (by_role[row.role], by_team[result.team.value]):
            bucket["games"] += 1
            bucket["wins"] += result.won
    return History(
        username=user.get_username(),
        games=games,
        stats=Stats(
            games=sum(1 for g in games if include_practice or not g["practice"]),
            wins=wins,
            draws=draws,
            by_role=dict(by_role),
            by_team=dict(by_team),
            sudden_deaths=sudden_deaths(user.get_username()),
        ),
    )


def sudden_death_seats():
    """The seats that count as sudden deaths (SPEC §7), the one definition the profile, the
    history page, the API's history and the statistics use: the user's sudden deaths in
    villages that have ended, abandoned (廃村) ones and practice ones included, whatever
    the statistics count as games. A sudden death left the others of its village a player
    short, and an abandoned village does not undo it; a running game's counts once it ends,
    like everything on the profile."""
    return Seat.objects.filter(
        death_cause="sudden", kicked=False, village__status=Village.Status.ENDED
    )


def sudden_deaths(username: str) -> int:
    """The public count of a user's sudden deaths."""
    return sudden_death_seats().filter(user__username=username).count()
