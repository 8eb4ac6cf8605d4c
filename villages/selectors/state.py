"""One viewer's view of one village: the village, and the state it may see (API.md's
State), built from memoized pieces: a snapshot never changes, so what every viewer sees
alike is built once, and each viewer's seats and `me` once per viewer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from villages.engine import MIN_PLAYERS, GameState, Phase
from villages.engine import game as engine
from villages.engine import visibility as vis
from villages.groups import encode
from villages.models import Village
from villages.services.config import rules
from villages.services.errors import NotFound
from villages.snapshots import Loaded, load, options_from_api, options_to_api

from .shapes import (
    ClockDict,
    MeDict,
    SeatDict,
    StateDict,
    StateVillageDict,
    VillageDict,
    iso,
)


def villages(status: str | None = None) -> QuerySet[Village]:
    qs = Village.objects.order_by("-id")
    if status:
        qs = qs.filter(status=status)
    return qs


def get_village(village_id: int) -> Village:
    village = villages().filter(pk=village_id).first()
    if village is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    return village


def village_dict(village: Village) -> VillageDict:
    return {
        "id": village.pk,
        "name": village.name,
        "comment": village.comment,
        "status": village.status,
        "capacity": village.capacity,
        "seated": village.seated,
        "day": village.day,
        "phase": village.phase,
        "options": options_to_api(options_from_api(village.options)),
        "created_at": iso(village.created_at),
        "winner": village.winner or None,
        "abandoned": village.abandoned,
        "practice": village.practice,
        # From the start: the options in force (one whose minimum was not met is off).
        "options_in_force": (village.game or {}).get("active"),
    }


@dataclass
class View:
    """A loaded village and who is looking at it (a seat number, or None for a spectator)."""

    loaded: Loaded
    viewer: int | None

    @property
    def state(self) -> GameState:
        return self.loaded.state

    @property
    def village(self) -> Village:
        return self.loaded.village


def view_for(village_id: int, user_id: int | None) -> View:
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    loaded = load(village)
    row = loaded.seat_of_user(user_id)
    return View(loaded, row.seat_no if row else None)


def _memo(loaded: Loaded, key: Any, build: Any) -> Any:
    found = loaded.memo.get(key)
    if found is None:
        found = loaded.memo[key] = build()
    return found


def _public(loaded: Loaded) -> dict[str, Any]:
    state = loaded.state

    def build() -> dict[str, Any]:
        village: StateVillageDict = {
            **village_dict(loaded.village),
            "start_votes": vis.start_votes(state),
            "seats_needed": MIN_PLAYERS,
        }
        return {
            "village": village,
            "rows": {
                no: {
                    "username": row.user.username if row.user else None,
                    "icon": row.icon_id,
                    "icon_url": row.icon.url if row.icon else None,
                    "trip": row.trip,
                }
                for no, row in loaded.rows.items()
            },
            "votes": [
                {
                    "day": v.day,
                    "round": v.round,
                    "ballots": [
                        {"voter": b.voter, "target": b.target, "weight": b.weight}
                        for b in v.ballots
                    ],
                    "executed": v.executed,
                    "result": v.result.value,
                }
                for v in vis.vote_views(state)
            ],
            "deaths": {
                x.no: (x.death_day, x.death_phase.value if x.death_phase else None)
                for x in state.seats
                if not x.alive
            },
        }

    return _memo(loaded, "public", build)


def _seats(loaded: Loaded, viewer: int | None) -> list[SeatDict]:
    def build() -> list[SeatDict]:
        public = _public(loaded)
        rows, deaths = public["rows"], public["deaths"]
        seats = []
        for sv in vis.seat_views(loaded.state, viewer):
            row = rows[sv.no]
            died = deaths.get(sv.no, (None, None))
            seats.append(
                {
                    "seat_no": sv.no,
                    "handle_name": sv.name,
                    "username": row["username"],
                    "icon": row["icon"],
                    "icon_url": row["icon_url"],
                    "trip": row["trip"],
                    "dummy": sv.dummy,
                    "bot": sv.bot,
                    "agent": sv.agent,
                    "alive": sv.alive,
                    "role": sv.role.value if sv.role else None,
                    "sub_roles": sorted(s.value for s in sv.sub_roles)
                    if sv.sub_roles is not None
                    else None,
                    "has_voted": sv.has_voted,
                    "death_cause": sv.death_cause.value if sv.death_cause else None,
                    # When a seat died is public (the morning's or the tally's line).
                    "death_day": died[0],
                    "death_phase": died[1],
                }
            )
        return seats

    return _memo(loaded, ("seats", viewer), build)


def _me(loaded: Loaded, viewer: int | None) -> MeDict | None:
    def build() -> MeDict | None:
        me = vis.me_view(loaded.state, viewer)
        if me is None:
            return None
        tonight = me.night_action
        return {
            "seat_no": me.seat_no,
            "alive": me.alive,
            "role": me.role.value if me.role else None,
            "sub_roles": sorted(s.value for s in me.sub_roles),
            "partners": me.partners,
            "results": [
                {"day": x.day, "ability": x.ability, "target": x.target, "result": x.result}
                for x in me.results
            ],
            "vote": me.vote,
            "action_done": me.action_done,
            "objections_left": me.objections_left,
            "will": me.will,
            # Beyond API.md: what the seat may (and must) do now, and tonight's choice.
            "actions": list(engine.duties(loaded.state, me.seat_no)),
            "night_action": None
            if tonight is None
            else {
                "ability": tonight.ability,
                "by": tonight.seat_no,
                "targets": list(tonight.targets),
            },
        }

    return _memo(loaded, ("me", viewer), lambda: (build(),))[0]


def clock_dict(state: GameState, now: datetime | None = None) -> ClockDict:
    """The clock as everyone sees it; in real time its virtual seconds follow `now`."""
    r = rules()
    sudden = state.clock.sudden_death_at if state.phase in (Phase.DAY, Phase.NIGHT) else None
    return {
        "virtual_seconds_left": engine.virtual_seconds_left(state, now or timezone.now(), r),
        "phase_deadline": iso(engine.phase_deadline(state)),
        "sudden_death_deadline": iso(sudden),
        "time_up": state.clock.time_up_at is not None,
    }


def state_dict(view: View, now: datetime | None = None) -> StateDict:
    """API.md's State for the viewer: what it may see, nothing more."""
    loaded, state = view.loaded, view.state
    public = _public(loaded)
    return {
        "village": dict(public["village"]),
        "clock": clock_dict(state, now),
        "seats": _seats(loaded, view.viewer),
        "me": _me(loaded, view.viewer),
        "votes": public["votes"],
        "winner": state.winner.value if state.winner else None,
    }


def state_frame_text(view: View, alike: dict[str, str] | None = None) -> str:
    """`{"type": "state", "state": state_dict(view)}` as the socket sends it. The seats,
    `me` and votes are encoded once per viewer and version (and carried over with them,
    `carry_over`); what is the same for every viewer now (the village, the clock, the
    winner) once per `alike`, a dict the caller keeps for one moment (a push's commit)."""
    loaded, viewer = view.loaded, view.viewer
    public = _public(loaded)
    alike = {} if alike is None else alike
    if not alike:
        winner = view.state.winner
        alike["village"] = encode(public["village"])
        alike["clock"] = encode(clock_dict(view.state))
        alike["winner"] = encode(winner.value if winner else None)
    pieces = {
        "village": alike["village"],
        "clock": alike["clock"],
        "seats": _memo(loaded, ("seats_text", viewer), lambda: encode(_seats(loaded, viewer))),
        "me": _memo(loaded, ("me_text", viewer), lambda: encode(_me(loaded, viewer))),
        "votes": _memo(loaded, ("votes_text",), lambda: encode(public["votes"])),
        "winner": alike["winner"],
    }
    assert pieces.keys() == StateDict.__annotations__.keys()
    inner = ",".join(f'"{key}":{text}' for key, text in pieces.items())
    return '{"type":"state","state":{' + inner + "}}"


def stable_clock(state: GameState) -> ClockDict:
    """The clock without what only the passing of time changes (a real-time phase's
    virtual seconds, which every screen counts down by itself)."""
    found = clock_dict(state)
    if found["phase_deadline"] is not None:
        found["virtual_seconds_left"] = None
    return found


def carry_over(before: Loaded, after: Loaded) -> None:
    """`after` differs from `before` only by its clock: each viewer's seats and `me` are
    the same, and need not be built again."""
    for key, value in list(before.memo.items()):
        if isinstance(key, tuple) and key[0] in ("seats", "me", "seats_text", "me_text"):
            after.memo.setdefault(key, value)


def stable_state(view: View) -> StateDict:
    """`state_dict` without what only the passing of time changes (the virtual seconds
    of a real-time phase): two of these differ only if the viewer may see a change."""
    return {**state_dict(view), "clock": stable_clock(view.state)}
