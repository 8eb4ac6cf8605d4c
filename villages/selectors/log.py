"""Finished villages: one whole (GET /villages/{id}/log and the HTML export), and the
search of the past ones."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext_noop

from villages.engine import Phase
from villages.engine import visibility as vis
from villages.engine.errors import WrongPhase
from villages.engine.outcome import result_of
from villages.engine.state import death_order
from villages.models import Seat as SeatRow
from villages.models import Village

from .lines import messages_for
from .shapes import DeathDict, LogSeatDict, VillageDict, VillageLogDict, iso
from .state import state_dict, view_for


def village_log(village_id: int) -> VillageLogDict:
    """Everything of a finished village, as everyone may see it once it has ended: the
    village, each seat with its role and result, every line (hidden ones left out), every
    vote round, the deaths in the order they came, and every ability result. Refused
    before the end."""
    view = view_for(village_id, None)
    state = view.state
    if state.phase is not Phase.ENDED:
        raise WrongPhase(gettext_noop("過去ログを書き出せるのは、村が終わってからです。"))
    whole = state_dict(view)
    village = view.loaded.village
    results = {seat.no: result_of(state.winner, seat) for seat in state.seats}
    seats: list[LogSeatDict] = []
    for seat in whole["seats"]:
        result = results.get(seat["seat_no"])
        seats.append(
            {
                "seat_no": seat["seat_no"],
                "handle_name": seat["handle_name"],
                "username": seat["username"],
                "trip": seat["trip"],
                "icon_url": seat["icon_url"],
                "dummy": seat["dummy"],
                "bot": seat["bot"],
                "agent": seat["agent"],
                "role": seat["role"],
                "sub_roles": seat["sub_roles"] or [],  # everyone's are shown at the end
                "alive": seat["alive"],
                "death_day": seat["death_day"],
                "death_phase": seat["death_phase"],
                "death_cause": seat["death_cause"],
                "team": result.team.value if result else None,
                "won": result.won if result else None,
                "result": result.result if result else None,
            }
        )
    deaths: list[DeathDict] = [
        {"seat_no": s["seat_no"], "day": day, "phase": s["death_phase"], "cause": s["death_cause"]}
        for s in seats
        if not s["alive"] and (day := s["death_day"]) is not None
    ]
    deaths.sort(key=lambda d: death_order(d["day"], d["phase"], d["cause"], d["seat_no"]))
    return {
        "village": {
            **{k: v for k, v in whole["village"].items() if k in VillageDict.__annotations__},
            "started_at": iso(village.started_at),
            "ended_at": iso(village.ended_at),
        },
        "winner": whole["winner"],
        "seats": seats,
        "messages": messages_for(view),
        "votes": whole["votes"],
        "deaths": deaths,
        "results": [
            {
                "day": r.day,
                "seat_no": r.seat_no,
                "ability": r.ability,
                "target": r.target,
                "result": r.result,
            }
            for r in vis.results_seen(state, None)
        ],
    }


def search_ended(
    *,
    name: str = "",
    player: str = "",
    role: str = "",
    winner: str = "",
    players: int | None = None,
    option: str = "",
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Village]:
    """Ended villages matching every criterion given, newest ended first (the index on
    status and end time serves the order; a player is looked for among the seats)."""
    qs = Village.objects.filter(status=Village.Status.ENDED).order_by("-ended_at", "-id")
    if name:
        qs = qs.filter(name__icontains=name)
    if player or role:
        seats = SeatRow.objects.filter(village=OuterRef("pk"), kicked=False)
        if player:
            # The accounts first (their ids, a few): an OR between a column of the joined
            # users and one of the seats keeps PostgreSQL from the seats' own indexes (on
            # the user and, by trigrams, on the handle name: migration 0013), and a name
            # that nobody has was looked for village by village, in every seat.
            users = get_user_model().objects.filter(username__iexact=player)
            ids = list(users.values_list("pk", flat=True))
            seats = seats.filter(Q(user_id__in=ids) | Q(handle_name__icontains=player))
        if role:  # a role, or a second role (in the JSON list, as its quoted code)
            seats = seats.filter(Q(role=role) | Q(sub_roles__icontains=f'"{role}"'))
        qs = qs.filter(Exists(seats))
    if winner == "abandoned":
        qs = qs.filter(abandoned=True)
    elif winner:
        qs = qs.filter(winner=winner, abandoned=False)
    if players is not None:
        qs = qs.filter(seated=players)
    if option == "realtime":
        qs = qs.filter(options__time__mode="realtime")
    elif option:
        qs = qs.filter(**{f"options__{option}": True})
    if since is not None:
        qs = qs.filter(ended_at__gte=since)
    if until is not None:
        qs = qs.filter(ended_at__lt=until)
    return qs
