"""A village as committed: its rows and the engine's GameState built from them.

Each fact has one home: seats in `Seat`, ballots in `Ballot`, night actions in
`NightAction`, lines in `Message`, and the engine's clock and counters in `Village.game`.
A committed version never changes (every write bumps `Village.version`), so a loaded
version is a snapshot that readers (`villages.selectors`, the push, the sockets) and writers
(`villages.services`) share in this process. Saving is `villages.services.persist`'s.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from villages.engine import (
    Ability,
    Ballot,
    Cast,
    DeathCause,
    GameState,
    NightAction,
    Options,
    Phase,
    Role,
    Seat,
    SubRole,
    TimeOptions,
    Winner,
)
from villages.engine.cast import OPTION_FLAGS
from villages.engine.state import Clock, RoundResult, VoteRound
from villages.lru import LRU
from villages.models import Ballot as BallotRow
from villages.models import NightAction as NightActionRow
from villages.models import Seat as SeatRow
from villages.models import Village

# ---------------------------------------------------------------------------
# Options: the API's JSON ↔ the engine's Options


def options_from_api(data: dict[str, Any] | None) -> Options:
    data = data or {}
    time = data.get("time") or {"mode": "virtual"}
    realtime = time.get("mode") == "realtime"
    return Options(
        time=TimeOptions(
            realtime=realtime,
            day_seconds=int(time.get("day_seconds", 0)) if realtime else 0,
            night_seconds=int(time.get("night_seconds", 0)) if realtime else 0,
        ),
        **{name: bool(data.get(name, False)) for name in OPTION_FLAGS},
    )


def options_to_api(options: Options) -> dict[str, Any]:
    time: dict[str, Any] = {"mode": "virtual"}
    if options.time.realtime:
        time = {
            "mode": "realtime",
            "day_seconds": options.time.day_seconds,
            "night_seconds": options.time.night_seconds,
        }
    return {"time": time, **{name: getattr(options, name) for name in OPTION_FLAGS}}


# ---------------------------------------------------------------------------
# Loading


SEATS_BY_USER = "seats_by_user"  # memo: user id -> the seat row (Loaded.seat_of_user)


@dataclass
class Loaded:
    """A village's rows and the engine state built from them: one committed version.

    A snapshot is shared (see `snapshot`) and never changed once built: a write makes the
    next version's rows as copies (`save_seats`). Only `new_rows` (seats a command is
    adding) and `memo` (what readers derive from it) are filled in afterwards.
    """

    village: Village
    rows: dict[int, SeatRow]
    state: GameState
    new_rows: dict[int, SeatRow] = field(default_factory=dict)
    # Users kicked from this village (user id -> by the staff, not by kick votes): they may
    # not sit again, and their screens say so, and by whom.
    kicked_users: Mapping[int, bool] = field(default_factory=dict)
    # What readers derive from this snapshot (villages.selectors, the push).
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def seat_of_user(self, user_id: int | None) -> SeatRow | None:
        if user_id is None:
            return None
        by_user = self.memo.get(SEATS_BY_USER)
        if by_user is None:  # once per version: a change asks it for each of its sockets
            by_user = {}
            for row in self.rows.values():
                by_user.setdefault(row.user_id, row)
            self.memo[SEATS_BY_USER] = by_user
        return by_user.get(user_id)


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def engine_seat(row: SeatRow) -> Seat:
    """A seat row as the engine sees it."""
    return Seat(
        no=row.seat_no,
        name=row.handle_name,
        role=Role(row.role) if row.role else None,
        sub_roles=frozenset(SubRole(s) for s in row.sub_roles),
        alive=row.alive,
        death_cause=DeathCause(row.death_cause) if row.death_cause else None,
        death_day=row.death_day,
        death_phase=Phase(row.death_phase) if row.death_phase else None,
        will=row.will,
        will_published=row.will_published,
        objections_left=row.objections_left,
        dummy=row.dummy,
        start_voted=row.start_voted,
        bot=bool(row.bot),
        agent=bool(row.agent),
    )


def _cast_from_json(data: dict[str, Any] | None) -> Cast | None:
    if not data:
        return None
    return Cast(
        roles={int(no): Role(code) for no, code in data["roles"].items()},
        sub_roles={
            int(no): frozenset(SubRole(c) for c in codes) for no, codes in data["sub_roles"].items()
        },
    )


def clock_from(c: dict[str, Any]) -> Clock:
    """The engine's clock from its JSON in `Village.game`."""
    return Clock(
        phase_started_at=_dt(c.get("phase_started_at")),
        virtual_left=c.get("virtual_left", 0),
        silence_ref=_dt(c.get("silence_ref")),
        time_up_at=_dt(c.get("time_up_at")),
        sudden_death_at=_dt(c.get("sudden_death_at")),
        last_alert_at=_dt(c.get("last_alert_at")),
        last_activity_at=_dt(c.get("last_activity_at")),
    )


def state_from_rows(
    village: Village,
    seat_rows: list[SeatRow],
    ballots: list[BallotRow],
    actions: list[NightActionRow],
) -> GameState:
    g = village.game or {}
    c = g.get("clock", {})
    active = g.get("active")
    return GameState(
        capacity=village.capacity,
        options=options_from_api(village.options),
        seats=[engine_seat(r) for r in seat_rows],
        phase=Phase(village.phase),
        day=village.day,
        vote_round=g.get("vote_round", 1),
        ties=g.get("ties", 0),
        ballots=[Ballot(b.day, b.round, b.voter, b.target, b.weight) for b in ballots],
        actions=[
            NightAction(a.day, a.seat_no, Ability(a.ability), tuple(a.targets)) for a in actions
        ],
        rounds=[
            VoteRound(r["day"], r["round"], RoundResult(r["result"]), r.get("executed"))
            for r in g.get("rounds", [])
        ],
        clock=clock_from(c),
        winner=Winner(village.winner) if village.winner else None,
        abandoned=village.abandoned,
        kick_votes={int(k): frozenset(v) for k, v in g.get("kick_votes", {}).items()},
        fixed_cast=_cast_from_json(g.get("fixed_cast")),
        active=options_from_api(active) if active else None,
        last_seat_no=g.get("last_seat_no", 0),
    )


def load(village: Village) -> Loaded:
    every = list(village.seats.select_related("icon", "user"))
    rows = [r for r in every if not r.kicked]
    state = state_from_rows(
        village,
        rows,
        list(BallotRow.objects.filter(village=village)),
        list(NightActionRow.objects.filter(village=village)),
    )
    return Loaded(
        village=village,
        rows={r.seat_no: r for r in rows},
        state=state,
        kicked_users={r.user_id: r.kicked_by_staff for r in every if r.kicked and r.user_id},
    )


# What a commit that moved only the clock changes of the village's row (besides its
# lines): enough to make the next version from the one before without reading it.
CLOCK_FIELDS = ("version", "game", "last_line", "public_lines", "deadline_at")


def clock_fields(village: Village) -> dict[str, Any]:
    """The village row's CLOCK_FIELDS, as JSON."""
    out = {name: getattr(village, name) for name in CLOCK_FIELDS}
    out["deadline_at"] = village.deadline_at.isoformat() if village.deadline_at else None
    return out


def advanced(known: Loaded, fields: dict[str, Any]) -> Loaded:
    """The village's next version after a commit that moved only its clock (and posted
    lines), from the version before and the row's CLOCK_FIELDS after: the same seats,
    ballots and actions, the new clock."""
    village = copy.copy(known.village)
    for name in CLOCK_FIELDS:
        setattr(village, name, fields[name])
    village.deadline_at = _dt(fields["deadline_at"])
    clock = clock_from((village.game or {}).get("clock", {}))
    state = dataclasses.replace(known.state, clock=clock)
    return Loaded(village, known.rows, state, kicked_users=known.kicked_users)


def snapshot_key(village: Village) -> tuple[int, int]:
    # A village's newest version known here is kept under its id and seed (ids may come
    # back: a rolled-back test, a restored backup). Every write bumps `Village.version` (a
    # compare-and-set in `services.core`), so a village's rows at one version are a
    # snapshot that can no longer change: the version tells whether it is the one wanted.
    return (village.pk, village.seed)


# The newest committed version of each village this process met, shared by its readers
# and writers (one entry a village: a busy site's villages each post every few seconds,
# and an entry per version pushed the ones still wanted out).
SNAPSHOTS: LRU[tuple[int, int], Loaded] = LRU(512)


def keep(loaded: Loaded) -> None:
    """Keep `loaded` as its village's newest version here (an older one never replaces
    a newer one a writer kept meanwhile)."""
    key = snapshot_key(loaded.village)
    known = SNAPSHOTS.get(key)
    if known is None or known.village.version <= loaded.village.version:
        SNAPSHOTS.put(key, loaded)


_STATE_FIELDS = ("created_at", "capacity", "options", "phase", "day", "winner", "abandoned", "game")


def snapshot(village: Village) -> Loaded:
    """The village at `village.version`, from this process's snapshots or the database.

    `village` is a row just read (by a writer under its lock): the snapshot is given that
    object, so that what the writer then changes on it is its own. A snapshot whose row
    differs from it (written behind the services' back: a restored backup, a test) is
    not used.
    """
    found = SNAPSHOTS.get(snapshot_key(village))
    if found is not None and (
        found.village.version != village.version
        or any(getattr(found.village, f) != getattr(village, f) for f in _STATE_FIELDS)
    ):
        found = None
    if found is None:
        found = load(village)
        keep(found)
    elif found.village is not village:
        found = Loaded(
            village, found.rows, found.state, kicked_users=found.kicked_users, memo=found.memo
        )
    return found


def head(village_id: int, *, lock: str = "") -> tuple[int, int, datetime] | None:
    """The village row's version, seed and creation (None: no such village), what tells
    whether a snapshot kept here is the village as committed; `lock` ends the query (a
    writer's FOR UPDATE). Every read and write of a village asks it, so it is SQL on a
    cursor: a tenth of what the ORM's `values_list().first()` costs to build."""
    if not -(2**63) <= village_id < 2**63:
        return None  # no row has an id its column cannot hold (as the ORM's lookup says)
    with connection.cursor() as cursor:
        table = Village._meta.db_table
        cursor.execute(
            f'SELECT version, seed, created_at FROM "{table}" WHERE id = %s{lock}', [village_id]
        )
        row = cursor.fetchone()
    if row is None:
        return None
    version, seed, created_at = row
    if timezone.is_naive(created_at):  # SQLite keeps UTC without its zone
        created_at = timezone.make_aware(created_at, UTC)
    return version, seed, created_at


def known(village_id: int, version: int, seed: int, created_at: datetime) -> Loaded | None:
    """This process's snapshot of the village at `version`, if it holds that one (the
    seed and the creation tell the village from one that took its id after it)."""
    cached = SNAPSHOTS.get((village_id, seed))
    if (
        cached is not None
        and cached.village.version == version
        and cached.village.created_at == created_at
    ):
        return cached
    return None


def snapshot_of(village_id: int) -> Loaded | None:
    """The village as committed now (one small query when its version is known here)."""
    found = head(village_id)
    if found is None:
        return None
    cached = known(village_id, *found)
    if cached is not None:
        return cached
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        return None
    loaded = load(village)
    keep(loaded)
    return loaded
