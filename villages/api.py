"""The villages part of the public API (shared/API.md): thin adapters over services."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status
from pydantic import Discriminator, Tag, create_model

from jinro_site.apiauth import client_ip, optional_user, require_user
from jinro_site.apischema import (
    NO_NUL,
    READ,
    WRITE,
    AnObject,
    Body,
    Int,
    answers,
    limits,
    refused_in_words,
)
from villages import bots, selectors
from villages.engine import MAX_PLAYERS, MIN_PLAYERS, speech
from villages.engine.cast import OPTION_FLAGS
from villages.engine.lobby import TRIP_LOOKALIKES
from villages.models import Icon
from villages.services import agents as agent_seats
from villages.services import bots as bot_seats
from villages.services import idempotency, lifecycle, play
from villages.services.config import rules

router = Router(tags=["villages"])

Json = dict[str, Any]


_RULES = rules()  # the limits below are the site's settings as the process started
_MIN_PHASE = _RULES.min_phase_seconds


def _escaped(chars: frozenset[str]) -> str:
    """`chars` for a regular expression's class, in runs of \\uXXXX-\\uXXXX (JSON Schema's
    and Python's syntax alike)."""
    runs: list[list[int]] = []
    for code in sorted(map(ord, chars)):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs)


_LINE_OFF = _escaped(speech.CONTROLS)  # NUL among them
_NAME_OFF = _escaped(speech.NAME_CONTROLS)
# A character that is not a space, and none that a name may not hold.
NAME = rf"^[^{_NAME_OFF}]*[^\s{_NAME_OFF}][^{_NAME_OFF}]*$"
_TRIP_MARKS = "".join(sorted(TRIP_LOOKALIKES)) + _NAME_OFF
HANDLE_NAME = rf"^[^{_TRIP_MARKS}]*[^\s{_TRIP_MARKS}][^{_TRIP_MARKS}]*$"  # no fake ◆
NO_CONTROLS = rf"^[^{_LINE_OFF}]*$"


class VirtualTime(Body):
    mode: Literal["virtual"] = "virtual"


class RealTime(Body):
    mode: Literal["realtime"]
    day_seconds: Int = Field(..., description="real seconds", **limits(ge=_MIN_PHASE))
    night_seconds: Int = Field(..., description="real seconds", **limits(ge=_MIN_PHASE))


def _time_mode(value: Any) -> str | None:
    """The tag of a time: a body's `mode` (virtual when it names none), or a model's."""
    if isinstance(value, dict):
        return value.get("mode", "virtual")
    return getattr(value, "mode", None)


# The time, told by its `mode` (virtual when it names none): a time that is no object
# ("virtual", 5, a list, null) or of an unknown mode is a bad request, not virtual time.
TimeIn = Annotated[
    Annotated[VirtualTime, Tag("virtual")] | Annotated[RealTime, Tag("realtime")],
    Discriminator(_time_mode),
    AnObject,
]

# The host's options are the engine's (`cast.Options`): a new flag there is one here too.
OptionsIn = create_model(
    "OptionsIn",
    __base__=Body,
    time=(TimeIn, Field(default_factory=VirtualTime)),
    **{name: (bool, False) for name in OPTION_FLAGS},  # type: ignore[call-overload]
)


class VillageIn(Body):
    name: str = Field(..., **limits(min_length=1, max_length=60, pattern=NAME))
    comment: str = Field("", **limits(max_length=200, pattern=NO_CONTROLS))
    capacity: Int = Field(..., **limits(ge=MIN_PLAYERS, le=MAX_PLAYERS))
    options: Annotated[OptionsIn, AnObject] = Field(default_factory=OptionsIn)


class SeatIn(Body):
    handle_name: str = Field(..., **limits(min_length=1, max_length=40, pattern=HANDLE_NAME))
    icon: Int = Field(..., description="an id from GET icons", **limits(ge=1))
    trip: str = Field("", **limits(max_length=64, pattern=NO_NUL))


class BotsIn(Body):
    count: Int | None = Field(
        None, description="how many bots (none: every empty seat)", **limits(ge=1, le=MAX_PLAYERS)
    )
    strategy: str = Field(
        bots.DEFAULT,
        description="how the bots play",
        **limits(pattern="^(" + "|".join(sorted(bots.STRATEGIES)) + ")$"),
    )


class AgentsIn(Body):
    open: bool = Field(..., description="true: open the village to AIWolf agents; false: close it")


class KickIn(Body):
    seat_no: Int = Field(..., **limits(ge=1))


Role = Literal[
    "villager",
    "seer",
    "medium",
    "guard",
    "common",
    "poison",
    "wolf",
    "madman",
    "fanatic",
    "fox",
    "cupid",
]
SubRole = Literal["lovers", "decider", "authority"]


SEAT_KEYS = {"propertyNames": {"pattern": "^[1-9][0-9]*$"}}  # seat numbers, as JSON keys


class CastIn(Body):
    roles: dict[str, Role] = Field(..., json_schema_extra=SEAT_KEYS)
    sub_roles: dict[str, list[SubRole]] = Field(default_factory=dict, json_schema_extra=SEAT_KEYS)


# Where a command was made (API.md's `day`/`phase`): once the village has moved on, the
# command is refused 409 `phase_changed` and nothing is stored.
PhaseName = Literal["waiting", "night", "day", "ended"]
SCENE_DAY = "the day the command was made on (State.village.day): with phase, refused 409 "
SCENE_DAY += "phase_changed once the village is no longer there"
SCENE_PHASE = "the phase the command was made in (State.village.phase), as day"

# Talk: at most SPEECH_MAX_LINES lines, the last of them not blank (so: not only spaces).
_L = rf"[^\n{_LINE_OFF}]"  # a character of a line
TEXT = rf"^(?:{_L}*\n){{0,{_RULES.speech_max_lines - 1}}}{_L}*[^\s{_LINE_OFF}]{_L}*$"


class MessageIn(Body):
    text: str = Field(
        ...,
        **limits(min_length=1, max_length=_RULES.speech_max_chars, pattern=TEXT),
        description=f"at most {_RULES.speech_max_chars} characters and "
        f"{_RULES.speech_max_lines} lines, not only spaces (trailing blank lines are "
        "allowed too, though this pattern leaves them out)",
    )
    channel: Literal["talk", "will", "heaven"] = "talk"
    volume: Literal["strong", "normal", "weak"] = "normal"
    day: Int | None = Field(None, description=SCENE_DAY, **limits(ge=0))
    phase: PhaseName | None = Field(None, description=SCENE_PHASE)


class VoteIn(Body):
    target: Int = Field(..., **limits(ge=1))
    day: Int | None = Field(None, description=SCENE_DAY, **limits(ge=0))
    phase: PhaseName | None = Field(None, description=SCENE_PHASE)
    round: Int | None = Field(
        None,
        description="the vote round the ballot was cast in (1 + the day's rounds in "
        "State.votes; a revote frame's round): after a revote, refused 409 phase_changed",
        **limits(ge=1),
    )


class NightActionIn(Body):
    action: Literal["attack", "divine", "guard", "cupid"]
    targets: list[Int] = Field(..., **limits(min_items=1, max_items=2))
    day: Int | None = Field(None, description=SCENE_DAY, **limits(ge=0))
    phase: PhaseName | None = Field(None, description=SCENE_PHASE)


# The header of a command that may be sent again (documented on each such operation).
RETRY_SAFE = {
    "parameters": [
        {
            "in": "header",
            "name": "Idempotency-Key",
            "required": False,
            "description": "a key of the client's own (1-100 printable ASCII characters): "
            "the same request sent again with it is answered as the first time, and runs "
            "nothing (kept 24 hours)",
            "schema": {"type": "string", "pattern": "^[!-~]{1,100}$"},
        }
    ]
}


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """A command that honours `Idempotency-Key`: sent again with the same key, it answers
    as the first time and runs nothing (services/idempotency.py)."""

    @functools.wraps(view)
    def run(request: HttpRequest, village_id: int, **kwargs: Any) -> Any:
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(request, village_id=village_id, **kwargs)

        def answer() -> tuple[int, Any]:
            result = view(request, village_id=village_id, **kwargs)
            if isinstance(result, Status):
                return result.status_code, result.value
            return 200, result

        status, body = idempotency.once(
            require_user(request), key, f"{request.method} {request.path}", village_id, answer
        )
        return Status(status, body)

    return run


def actor(request: HttpRequest, village_id: int) -> dict[str, Any]:
    """Who acts on which village: the first arguments of every command's service (whose
    other arguments are the body's fields, by the same names, where it has one)."""
    return {"village_id": village_id, "user": require_user(request)}


def command(
    rest: str, summary: str, *, status: int = 200
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A command on a village (`POST /villages/{village_id}/<rest>`): `status` (200, or 201
    for what it creates) with JSON, or the errors any write may give; `Idempotency-Key`
    makes a retry safe."""
    route = router.post(
        f"/villages/{{village_id}}/{rest}",
        response=answers({status: Json}, *WRITE),
        summary=summary,
        openapi_extra=RETRY_SAFE,
    )
    return lambda view: route(idempotent(view))


@router.get("/icons", response=answers({200: Json}, *READ), summary="Icons a seat may choose")
def icons(request: HttpRequest) -> Json:
    return {"icons": [{"id": i.pk, "name": i.name, "url": i.url} for i in Icon.objects.choosable()]}


PAGE = 200


@router.get(
    "/villages", response=answers({200: Json}, 400, *READ), summary="Villages, newest first"
)
def list_villages(
    request: HttpRequest,
    status: Literal["waiting", "playing", "ended"] | None = None,
    before: int | None = Query(None, description="only villages with a smaller id (paging)"),
    limit: int = Query(PAGE, ge=1, le=PAGE, description="at most this many"),
) -> Json:
    found = selectors.villages(status)
    if before is not None:
        found = found.filter(pk__lt=before)
    return {"villages": [selectors.village_dict(v) for v in found[:limit]]}


@router.post("/villages", response=answers({201: Json}, *WRITE), summary="Create a village")
def create_village(request: HttpRequest, payload: VillageIn) -> Status[Json]:
    user = require_user(request)
    village = lifecycle.create_village(
        user=user,
        name=payload.name,
        comment=payload.comment,
        capacity=payload.capacity,
        options=payload.options.dict(),
    )
    return Status(201, selectors.village_dict(selectors.get_village(village.pk)))


@router.get("/villages/{village_id}", response=answers({200: Json}, *READ), summary="One village")
def get_village(request: HttpRequest, village_id: int) -> Json:
    return selectors.village_dict(selectors.get_village(village_id))


@command("seats", "Sit (村人登録)", status=201)
def sit(request: HttpRequest, village_id: int, payload: SeatIn) -> Status[Json]:
    seat_no = lifecycle.sit(
        **actor(request, village_id),
        handle_name=payload.handle_name,
        icon_id=payload.icon,
        trip=payload.trip,
        ip=client_ip(request),
    )
    return Status(201, {"seat_no": seat_no})


@router.delete(
    "/villages/{village_id}/seats/me", response=answers({204: None}, *WRITE), summary="Leave"
)
def leave(request: HttpRequest, village_id: int) -> Status[None]:
    lifecycle.leave(**actor(request, village_id))
    return Status(204, None)


@command("bots", "Fill empty seats with bots (the host or staff, before the start)", status=201)
def add_bots(request: HttpRequest, village_id: int, payload: BotsIn) -> Status[Json]:
    seat_nos = bot_seats.add_bots(**actor(request, village_id), **payload.model_dump())
    return Status(201, {"seat_nos": seat_nos})


@command(
    "agents", "Open the village to AIWolf agents, or close it (the host or staff, before the start)"
)
def set_agents(request: HttpRequest, village_id: int, payload: AgentsIn) -> Json:
    agent_seats.set_open(**actor(request, village_id), open_=payload.open)
    return {"agents": payload.open}


@router.delete(
    "/villages/{village_id}/agents/{seat_no}",
    response=answers({204: None}, *WRITE),
    summary="Remove an AIWolf agent's seat (the host or staff, before the start)",
    openapi_extra=refused_in_words(
        "bad_request: the seat is not an AIWolf agent's (a person's, a bot's, or none)"
    ),
)
def remove_agent(request: HttpRequest, village_id: int, seat_no: int) -> Status[None]:
    agent_seats.remove(**actor(request, village_id), seat_no=seat_no)
    return Status(204, None)


@command("start-vote", "Vote to start")
def start_vote(request: HttpRequest, village_id: int) -> Json:
    started = lifecycle.vote_start(**actor(request, village_id))
    return {"started": started}


@command("kick-votes", "Vote to kick a seat")
def kick_vote(request: HttpRequest, village_id: int, payload: KickIn) -> Json:
    kicked = lifecycle.kick_vote(**actor(request, village_id), target=payload.seat_no)
    return {"kicked": kicked}


@command("cast", "Fix the cast (staff)")
def fix_cast(request: HttpRequest, village_id: int, payload: CastIn) -> Json:
    lifecycle.fix_cast(**actor(request, village_id), **payload.model_dump())
    return {"roles": payload.roles, "sub_roles": payload.sub_roles}


@router.get(
    "/villages/{village_id}/state",
    response=answers({200: Json}, *READ),
    summary="The caller's view",
)
def state(request: HttpRequest, village_id: int) -> Json:
    user = optional_user(request)
    return selectors.state_dict(selectors.view_for(village_id, user.pk if user else None))


@router.get(
    "/villages/{village_id}/messages",
    response=answers({200: Json}, 400, *READ),
    summary="Lines the caller may see",
)
def messages(request: HttpRequest, village_id: int, after: int = 0) -> Json:
    user = optional_user(request)
    view = selectors.view_for(village_id, user.pk if user else None)
    return {"messages": selectors.messages_for(view, after)}


@router.post(
    "/villages/{village_id}/messages",
    response=answers({200: Json, 201: Json}, *WRITE),
    summary="Talk, will, heaven",
    openapi_extra=RETRY_SAFE,
)
@idempotent
def post_message(request: HttpRequest, village_id: int, payload: MessageIn) -> Status[Json]:
    posted = play.post_message(**actor(request, village_id), **payload.model_dump())
    if posted.message is None:  # a will: kept until the morning after its writer's death
        return Status(200, {"channel": "will", "will": posted.will})
    assert posted.seen is not None  # a speaker always sees their own line
    return Status(201, selectors.message_dict(posted.message, posted.seen, posted.number))


@command("vote", "The day's execution vote")
def vote(request: HttpRequest, village_id: int, payload: VoteIn) -> Json:
    done = play.vote(**actor(request, village_id), **payload.model_dump())
    return {"tally_done": done}


@command("night-action", "A night action")
def night_action(request: HttpRequest, village_id: int, payload: NightActionIn) -> Json:
    dawn = play.night_action(**actor(request, village_id), **payload.model_dump())
    return {"ok": True, "dawn": dawn}


@command("objection", "異議あり")
def objection(request: HttpRequest, village_id: int) -> Json:
    left = play.object_(**actor(request, village_id))
    return {"objections_left": left}


# ---------------------------------------------------------------------------
# A finished village, whole (issue 12): one document to keep, study or replay


class VillageLog(Schema):
    """A finished village: every line (in order), vote round, death (in order), role and
    result, and every ability result, as everyone may see them once it has ended."""

    village: selectors.FinishedVillageDict
    winner: str | None
    seats: list[selectors.LogSeatDict]
    messages: list[selectors.MessageDict]
    votes: list[selectors.VoteRoundDict]
    deaths: list[selectors.DeathDict]
    results: list[selectors.LogResultDict] = Field(
        description="every divination, medium reading and guard, as its seat was told it "
        "the next morning (none for a seer or guard the wolves killed that night), in "
        "order of the night or day it is of, then of the seat"
    )


@router.get(
    "/villages/{village_id}/log",
    response=answers({200: VillageLog}, 409, *READ),
    summary="A finished village, whole (409 wrong_phase before its end)",
)
def village_log(request: HttpRequest, village_id: int) -> Json:
    return selectors.village_log(village_id)
