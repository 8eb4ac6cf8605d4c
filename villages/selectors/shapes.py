"""What the readers return: API.md's shapes, plain dicts, typed (the API's schemas are
made from these)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field  # the API's documentation of a field
from typing_extensions import TypedDict  # pydantic (the API's schemas) reads these


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


class StateVillageDict(VillageDict):
    """The Village of a State, with the waiting room's count (SPEC §2.4)."""

    start_votes: Annotated[
        int | None,
        Field(description="how many of the seated have voted to start; null once started"),
    ]
    seats_needed: Annotated[
        int, Field(description="the fewest seated players a game starts with (the cast table)")
    ]


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
    agent: Annotated[bool, Field(description="played by an AIWolf contest agent")]
    alive: bool
    role: str | None
    sub_roles: list[str] | None
    has_voted: bool | None
    death_cause: str | None
    death_day: int | None
    death_phase: str | None


class ResultDict(TypedDict):
    day: Annotated[
        int, Field(description="the night of a divination or guard; the day of the executed")
    ]
    ability: Annotated[str, Field(description='"divine", "medium" or "guard"')]
    target: int
    result: Annotated[
        str | None,
        Field(
            description='"human" or "wolf"; for a guard "guarded" when the wolves attacked '
            "the seat it guarded, else null. Told the next morning; none for a seer or "
            "guard the wolves killed that night"
        ),
    ]


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
    result: Annotated[
        str,
        Field(
            description="executed, tie (a revote followed), draw, or void (a sudden death "
            "cleared the ballots, which are not shown)"
        ),
    ]


class LogSeatDict(TypedDict):
    seat_no: int
    handle_name: str
    username: str | None
    trip: str
    icon_url: str | None
    dummy: bool
    bot: bool
    agent: Annotated[bool, Field(description="played by an AIWolf contest agent")]
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
    result: Annotated[
        str | None, Field(description='"win", "loss" or "draw" (a drawn village: nobody won)')
    ]


class DeathDict(TypedDict):
    seat_no: int
    day: int
    phase: str | None
    cause: str | None


class LogResultDict(TypedDict):
    day: Annotated[
        int, Field(description="the night of a divination or guard; the day of the executed")
    ]
    seat_no: Annotated[int, Field(description="the seer, medium or guard it was told to")]
    ability: Annotated[str, Field(description='"divine", "medium" or "guard"')]
    target: int
    result: Annotated[
        str | None,
        Field(
            description='"human" or "wolf"; for a guard "guarded" when the wolves attacked '
            "the seat it guarded, else null"
        ),
    ]


class VillageLogDict(TypedDict):
    village: FinishedVillageDict
    winner: str | None
    seats: list[LogSeatDict]
    messages: list[MessageDict]
    votes: list[VoteRoundDict]
    deaths: list[DeathDict]
    results: list[LogResultDict]


class StateDict(TypedDict):
    village: StateVillageDict
    clock: ClockDict
    seats: list[SeatDict]
    me: MeDict | None
    votes: list[VoteRoundDict]
    winner: str | None


def iso(value: Any) -> str | None:
    return value.isoformat() if value else None
