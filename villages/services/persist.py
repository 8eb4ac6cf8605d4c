"""Saving a command's outcome: the engine's GameState → rows.

Each fact has one home (see `villages.snapshots`, which loads them). Ballots and night
actions are append-only, so saving writes only what a command added.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from villages.engine import Cast, GameState, Seat
from villages.models import Ballot as BallotRow
from villages.models import NightAction as NightActionRow
from villages.models import Seat as SeatRow
from villages.models import Village
from villages.snapshots import Loaded, options_to_api


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _cast_to_json(cast: Cast | None) -> dict[str, Any] | None:
    if cast is None:
        return None
    return {
        "roles": {str(no): role.value for no, role in cast.roles.items()},
        "sub_roles": {
            str(no): sorted(s.value for s in subs) for no, subs in cast.sub_roles.items()
        },
    }


# ---------------------------------------------------------------------------
# Saving


def game_json(state: GameState) -> dict[str, Any]:
    c = state.clock
    return {
        "vote_round": state.vote_round,
        "ties": state.ties,
        "rounds": [
            {"day": r.day, "round": r.round, "result": r.result.value, "executed": r.executed}
            for r in state.rounds
        ],
        "clock": {
            "phase_started_at": _iso(c.phase_started_at),
            "virtual_left": c.virtual_left,
            "silence_ref": _iso(c.silence_ref),
            "time_up_at": _iso(c.time_up_at),
            "sudden_death_at": _iso(c.sudden_death_at),
            "last_alert_at": _iso(c.last_alert_at),
            "last_activity_at": _iso(c.last_activity_at),
        },
        "kick_votes": {str(k): sorted(v) for k, v in state.kick_votes.items()},
        "fixed_cast": _cast_to_json(state.fixed_cast),
        "active": options_to_api(state.active) if state.active else None,
        "last_seat_no": state.last_seat_no,
    }


SEAT_FIELDS = (
    "role",
    "sub_roles",
    "alive",
    "death_cause",
    "death_day",
    "death_phase",
    "will",
    "will_published",
    "objections_left",
    "start_voted",
)


def _seat_values(seat: Seat) -> dict[str, Any]:
    return {
        "role": seat.role.value if seat.role else "",
        "sub_roles": sorted(s.value for s in seat.sub_roles),
        "alive": seat.alive,
        "death_cause": seat.death_cause.value if seat.death_cause else "",
        "death_day": seat.death_day,
        "death_phase": seat.death_phase.value if seat.death_phase else "",
        "will": seat.will,
        "will_published": seat.will_published,
        "objections_left": seat.objections_left,
        "start_voted": seat.start_voted,
    }


def save_seats(loaded: Loaded, new: GameState, kicked: Mapping[int, bool]) -> dict[int, SeatRow]:
    """Write changed seats, insert new ones, mark kicked ones (`kicked`: seat number -> by
    the staff), delete those who left.

    Returns the rows of the new version. The loaded rows are left as they were (they may
    be a snapshot that other readers hold): a changed seat's row is a copy.
    """
    present = {s.no for s in new.seats}
    for no, row in loaded.rows.items():
        if no in present:
            continue
        gone = copy.copy(row)
        if no in kicked:
            gone.kicked, gone.kicked_by_staff = True, kicked[no]
            gone.save(update_fields=["kicked", "kicked_by_staff"])
        else:
            gone.delete()
    rows: dict[int, SeatRow] = {}
    changed: list[SeatRow] = []
    for seat in new.seats:
        row = loaded.rows.get(seat.no) or loaded.new_rows[seat.no]
        if row.pk is not None and loaded.state.seat(seat.no) == seat:
            rows[seat.no] = row  # as it was (most commands change no seat)
            continue
        values = _seat_values(seat)
        if row.pk is None:
            for name, value in values.items():
                setattr(row, name, value)
            row.save()
        elif any(getattr(row, name) != value for name, value in values.items()):
            row = copy.copy(row)
            for name, value in values.items():
                setattr(row, name, value)
            changed.append(row)
        rows[seat.no] = row
    if changed:
        SeatRow.objects.bulk_update(changed, list(SEAT_FIELDS))
    return rows


def save_records(village: Village, old: GameState, new: GameState) -> None:
    """Append the ballots and night actions the command added (most add none)."""
    ballots = [
        BallotRow(
            village=village,
            day=b.day,
            round=b.round,
            voter=b.voter,
            target=b.target,
            weight=b.weight,
        )
        for b in new.ballots[len(old.ballots) :]
    ]
    actions = [
        NightActionRow(
            village=village,
            day=a.day,
            seat_no=a.seat_no,
            ability=a.ability.value,
            targets=list(a.targets),
        )
        for a in new.actions[len(old.actions) :]
    ]
    for rows in (ballots, actions):
        if rows:
            type(rows[0]).objects.bulk_create(rows)
