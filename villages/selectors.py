"""Reads: what a viewer may see of villages, built on the engine's visibility function.

Every page, API answer, WebSocket frame and past log goes through here; the
decision itself is `villages.engine.visibility`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop
from pydantic import Field  # the API's documentation of a field
from typing_extensions import TypedDict  # pydantic (the API's schemas) reads these

from villages import line_numbers
from villages.engine import GameState, Phase
from villages.engine import game as engine
from villages.engine import visibility as vis
from villages.engine.state import death_order
from villages.groups import encode
from villages.lru import LRU
from villages.models import Message, Village
from villages.models import Seat as SeatRow
from villages.services.config import rules
from villages.services.errors import NotFound
from villages.snapshots import Loaded, load, options_from_api, options_to_api

# ---------------------------------------------------------------------------
# What the readers return: API.md's shapes (plain dicts, typed)


class VillageDict(TypedDict):
    id: int
    name: str
    comment: str
    status: str
    capacity: int
    seated: int
    day: int
    phase: str
    options: dict[str, Any]
    created_at: str | None
    winner: str | None
    abandoned: bool
    practice: bool
    options_in_force: dict[str, Any] | None


class FinishedVillageDict(VillageDict):
    started_at: str | None
    ended_at: str | None


class MessageDict(TypedDict):
    id: int
    day: int
    phase: str
    kind: str
    seat_no: int | None
    text: str
    volume: str
    created_at: str | None
    code: str
    params: dict[str, Any]


class ClockDict(TypedDict):
    virtual_seconds_left: int | None
    phase_deadline: str | None
    sudden_death_deadline: str | None
    time_up: bool


class SeatDict(TypedDict):
    seat_no: int
    handle_name: str
    username: str | None
    icon: int | None
    icon_url: str | None
    trip: str
    dummy: bool
    bot: bool
    alive: bool
    role: str | None
    sub_roles: list[str] | None
    has_voted: bool | None
    death_cause: str | None
    death_day: int | None
    death_phase: str | None


class ResultDict(TypedDict):
    day: int
    ability: str
    target: int
    result: str | None


class NightChoiceDict(TypedDict):
    ability: str
    by: int
    targets: list[int]


class MeDict(TypedDict):
    seat_no: int
    alive: bool
    role: str | None
    sub_roles: list[str]
    partners: list[int]
    results: list[ResultDict]
    vote: int | None
    action_done: bool
    objections_left: int
    will: str
    actions: list[str]
    night_action: NightChoiceDict | None


class BallotDict(TypedDict):
    voter: int
    target: int
    weight: int


class VoteRoundDict(TypedDict):
    day: int
    round: int
    ballots: list[BallotDict]
    executed: int | None


class LogSeatDict(TypedDict):
    seat_no: int
    handle_name: str
    username: str | None
    trip: str
    icon_url: str | None
    dummy: bool
    bot: bool
    role: str | None
    sub_roles: list[str]
    alive: bool
    death_day: int | None
    death_phase: str | None
    death_cause: str | None
    team: Annotated[
        str | None, Field(description="the team it played for (a lover's is the lovers')")
    ]
    won: bool | None


class DeathDict(TypedDict):
    seat_no: int
    day: int
    phase: str | None
    cause: str | None


class VillageLogDict(TypedDict):
    village: FinishedVillageDict
    winner: str | None
    seats: list[LogSeatDict]
    messages: list[MessageDict]
    votes: list[VoteRoundDict]
    deaths: list[DeathDict]


class StateDict(TypedDict):
    village: VillageDict
    clock: ClockDict
    seats: list[SeatDict]
    me: MeDict | None
    votes: list[VoteRoundDict]
    winner: str | None


def _iso(value: Any) -> str | None:
    return value.isoformat() if value else None


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
        "created_at": _iso(village.created_at),
        "winner": village.winner or None,
        "abandoned": village.abandoned,
        "practice": village.practice,
        # From the start: the options in force (one whose minimum was not met is off).
        "options_in_force": (village.game or {}).get("active"),
    }


# ---------------------------------------------------------------------------
# One viewer's view of one village


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


def message_dict(msg: Message, seen: vis.MessageView, number: int) -> MessageDict:
    """A line as its viewer may see it (API.md's Message; `id` is the `number` the viewer
    knows it by, `villages.line_numbers`; `code`/`params` name a system line's wording, so
    that a page can show it in its own language)."""
    whole = seen.kind == msg.kind  # not a howl or whisper standing in for hidden talk
    return {
        "id": number,
        "day": msg.day,
        "phase": msg.phase,
        "kind": seen.kind.value,
        "seat_no": seen.seat_no,
        "text": seen.text,
        # A stand-in tells nothing of the hidden line, not even how loud it was.
        "volume": msg.volume if whole else "normal",
        "created_at": _iso(msg.created_at),
        "code": msg.code if whole else "",
        "params": (msg.params or {}) if whole and msg.code else {},
    }


def visible_messages(
    village: Village, state: GameState, viewer: int | None, messages: Iterable[Message]
) -> list[MessageDict]:
    """The lines the viewer may see, as it sees them, numbered for it."""
    seen = [(msg, s) for msg in messages if (s := vis.see_message(state, viewer, msg))]
    number = line_numbers.numbers(village, state, viewer, (msg for msg, _s in seen))
    return [message_dict(msg, s, number[msg.pk]) for msg, s in seen]


# The village's hidden lines at one `hidden_mark`: (id, kind, seat).
_HIDDEN: LRU[tuple[int, int, int], list[tuple[int, str, int | None]]] = LRU(1000)


def log_marks(loaded: Loaded, viewer: int | None) -> str:
    """A fingerprint of the hidden lines the viewer could see: a drawn log is out of date
    when it differs. It changes only when the staff hide or show a line the viewer may
    see, so it tells nobody of the moderation of lines kept from them."""
    village = loaded.village
    if not village.hidden_mark:
        return "0"  # nothing was ever hidden here
    key = (village.pk, village.seed, village.hidden_mark)
    rows = _HIDDEN.get(key)
    if rows is None:
        rows = list(
            Message.objects.filter(village_id=village.pk, hidden=True)
            .order_by("id")
            .values_list("id", "kind", "seat_no")
        )
        _HIDDEN.put(key, rows)
    seen = [
        str(pk)
        for pk, kind, seat_no in rows
        if vis.see_message(loaded.state, viewer, vis.BareLine(kind, seat_no))
    ]
    if not seen:
        return "0"
    return hashlib.blake2s(",".join(seen).encode(), digest_size=8).hexdigest()


def messages_for(view: View, after: int = 0) -> list[MessageDict]:
    """The lines the viewer may see after its line number `after`."""
    village, state = view.village, view.state
    start = line_numbers.row_after(village, state, view.viewer, after)
    qs = Message.objects.filter(
        village=village, hidden=False, id__gt=start, id__lte=village.last_line
    ).order_by("id")
    return visible_messages(village, state, view.viewer, qs)


# ---------------------------------------------------------------------------
# The state a viewer may see (API.md's State), built from memoized pieces: a snapshot
# never changes, so what every viewer sees alike is built once, and each viewer's seats
# and `me` once per viewer.


def _memo(loaded: Loaded, key: Any, build: Any) -> Any:
    found = loaded.memo.get(key)
    if found is None:
        found = loaded.memo[key] = build()
    return found


def _public(loaded: Loaded) -> dict[str, Any]:
    state = loaded.state

    def build() -> dict[str, Any]:
        return {
            "village": village_dict(loaded.village),
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
        "phase_deadline": _iso(engine.phase_deadline(state)),
        "sudden_death_deadline": _iso(sudden),
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


# ---------------------------------------------------------------------------
# A finished village, whole (GET /villages/{id}/log and the HTML export)


def village_log(village_id: int) -> VillageLogDict:
    """Everything of a finished village, as everyone may see it once it has ended: the
    village, each seat with its role and result, every line (hidden ones left out), every
    vote round, and the deaths in the order they came. Refused before the end."""
    from villages.engine.errors import WrongPhase
    from villages.engine.outcome import result_of

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
                "role": seat["role"],
                "sub_roles": seat["sub_roles"] or [],  # everyone's are shown at the end
                "alive": seat["alive"],
                "death_day": seat["death_day"],
                "death_phase": seat["death_phase"],
                "death_cause": seat["death_cause"],
                "team": result.team.value if result else None,
                "won": result.won if result else None,
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
            **whole["village"],
            "started_at": _iso(village.started_at),
            "ended_at": _iso(village.ended_at),
        },
        "winner": whole["winner"],
        "seats": seats,
        "messages": messages_for(view),
        "votes": whole["votes"],
        "deaths": deaths,
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
    from django.contrib.auth import get_user_model
    from django.db.models import Exists, OuterRef, Q

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
