"""SPEC §8 ("Talk and who sees what"), written again from the spec for the tests.

It reads the truth straight from the database rows and says what one viewer (a seat
number, or None for a spectator) may see. It deliberately shares no code with
`villages.engine.visibility`: the API's answers are checked against this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

PUBLIC = {"talk", "system", "will", "objection"}
HOWL = "アオォーン・・・"
WHISPER = "ヒソヒソ・・・"
MARKER = re.compile(r"MK-[a-z]+-\d+")


@dataclass(frozen=True)
class SeatTruth:
    no: int
    role: str
    sub_roles: frozenset[str]
    alive: bool
    dummy: bool
    will: str
    death_day: int | None
    death_cause: str


@dataclass(frozen=True)
class LineTruth:
    id: int
    kind: str
    seat_no: int | None
    text: str
    hidden: bool = False  # by the staff: shown to nobody, yet still counted in the numbers


@dataclass(frozen=True)
class Truth:
    phase: str
    day: int
    hide: bool
    seats: dict[int, SeatTruth]
    lines: list[LineTruth]

    @property
    def started(self) -> bool:
        return any(s.role for s in self.seats.values())

    @property
    def ended(self) -> bool:
        return self.phase == "ended"


def load_truth(village_id: int) -> Truth:
    from villages.models import Message, Seat, Village

    village = Village.objects.get(pk=village_id)
    seats = {
        r.seat_no: SeatTruth(
            r.seat_no,
            r.role,
            frozenset(r.sub_roles),
            r.alive,
            r.dummy,
            r.will,
            r.death_day,
            r.death_cause,
        )
        for r in Seat.objects.filter(village=village, kicked=False)
    }
    lines = [
        LineTruth(m.pk, m.kind, m.seat_no, m.text, m.hidden)
        for m in Message.objects.filter(village=village).order_by("id")
    ]
    return Truth(
        village.phase,
        village.day,
        bool(village.options.get("hide_roles_in_heaven")),
        seats,
        lines,
    )


# ---------------------------------------------------------------------------
# The rules of seeing


def sees_everything(t: Truth, viewer: int | None) -> bool:
    """After the end everyone; during the game the dead, unless roles are hidden in heaven."""
    if t.ended:
        return True
    me = t.seats.get(viewer) if viewer is not None else None
    return me is not None and t.started and not me.alive and not t.hide


def line_as_seen(t: Truth, viewer: int | None, line: LineTruth) -> tuple | None:
    """(kind, seat_no, text) as the viewer gets it, or None if the viewer gets nothing."""
    whole = (line.kind, line.seat_no, line.text)
    if line.kind in PUBLIC or sees_everything(t, viewer):
        return whole
    me = t.seats.get(viewer) if viewer is not None else None
    if line.kind == "wolf":
        # Wolves hear the pack (alive or dead); everyone else hears a howl from nobody.
        return whole if me is not None and me.role == "wolf" else ("wolf_howl", None, HOWL)
    if line.kind == "common":
        return (
            whole if me is not None and me.role == "common" else ("common_whisper", None, WHISPER)
        )
    if line.kind == "monologue":
        return whole if me is not None and me.no == line.seat_no else None
    if line.kind == "heaven":
        return whole if me is not None and not me.alive else None
    raise AssertionError(f"unknown kind {line.kind}")


SPAN = 1_000_000


def expected_messages(t: Truth, viewer: int | None) -> list[tuple]:
    """(number, kind, seat_no, text) of each line the viewer gets. The numbers tell nothing
    of the lines it does not get: every line a spectator sees (itself or its stand-in) is
    numbered SPAN, 2·SPAN, …, for everyone; a line spectators never see (a monologue,
    heaven talk) takes the next number after the last such public line among the lines
    *this viewer* sees since."""
    out = []
    public = seen_since = 0
    for line in t.lines:
        seen = line_as_seen(t, viewer, line)
        if line.kind not in ("monologue", "heaven"):
            public, seen_since = public + 1, 0
            number = public * SPAN
        elif seen is not None:
            seen_since += 1
            number = public * SPAN + seen_since
        if seen is not None and not line.hidden:
            out.append((number, *seen))
    return out


def role_known(t: Truth, viewer: int | None, seat: SeatTruth) -> bool:
    if not seat.role:
        return False
    if sees_everything(t, viewer):
        return True
    me = t.seats.get(viewer) if viewer is not None else None
    if me is None:
        return False
    if me.no == seat.no:
        return True
    # Wolves and the fanatic know the wolves; commons know each other. Nothing else.
    if seat.role == "wolf" and me.role in ("wolf", "fanatic"):
        return True
    return seat.role == "common" and me.role == "common"


def sub_roles_known(t: Truth, viewer: int | None, seat: SeatTruth) -> set[str]:
    if sees_everything(t, viewer):
        return set(seat.sub_roles)
    me = t.seats.get(viewer) if viewer is not None else None
    if me is None:
        return set()
    known = set()
    if me.no == seat.no:
        known |= seat.sub_roles - {"decider"}  # the decider is never told
    if "lovers" in seat.sub_roles and (me.role == "cupid" or "lovers" in me.sub_roles):
        known.add("lovers")
    return known


def partners(t: Truth, viewer: int) -> list[int]:
    me = t.seats[viewer]
    known: set[int] = set()
    if me.role in ("wolf", "fanatic"):
        known |= {s.no for s in t.seats.values() if s.role == "wolf"}
    if me.role == "common":
        known |= {s.no for s in t.seats.values() if s.role == "common"}
    if me.role == "cupid" or "lovers" in me.sub_roles:
        known |= {s.no for s in t.seats.values() if "lovers" in s.sub_roles}
    known.discard(viewer)
    return sorted(known)


def will_published(t: Truth, seat: SeatTruth) -> bool:
    """A will is read out on the morning after its writer's death (at once if the game ends)."""
    if seat.alive or seat.dummy or not seat.will:
        return False
    return t.ended or (seat.death_day is not None and t.day > seat.death_day)


# ---------------------------------------------------------------------------
# Checks of one viewer's answers


def markers(obj: Any) -> set[str]:
    import json

    return set(MARKER.findall(json.dumps(obj, ensure_ascii=False)))


def check_view(
    t: Truth, viewer: int | None, state: dict[str, Any], messages: list[dict[str, Any]]
) -> None:
    who = "spectator" if viewer is None else f"seat {viewer}"
    got = [(m["id"], m["kind"], m["seat_no"], m["text"]) for m in messages]
    want = expected_messages(t, viewer)
    for m in messages:  # a stand-in says nothing of the hidden line, not even its loudness
        if m["kind"] in ("wolf_howl", "common_whisper"):
            assert m["volume"] == "normal" and not m.get("code"), f"{who} got {m}"
    if got != want:
        extra = [m for m in got if m not in want]
        missing = [m for m in want if m not in got]
        raise AssertionError(f"{who} /messages: unexpected {extra}; missing {missing}")

    # /state: roles and sub-roles only where allowed; the only marker is one's own will.
    for view in state["seats"]:
        seat = t.seats[view["seat_no"]]
        known = role_known(t, viewer, seat)
        assert view["role"] == (seat.role if known else None), (
            f"{who} sees seat {seat.no}'s role as {view['role']!r}"
        )
        subs = sub_roles_known(t, viewer, seat)
        want_subs = sorted(subs) if (known or subs) else None
        assert view["sub_roles"] == want_subs, (
            f"{who} sees seat {seat.no}'s sub-roles as {view['sub_roles']!r}, not {want_subs!r}"
        )
        assert view["alive"] == seat.alive
        cause = seat.death_cause if known and not seat.alive else None
        assert view["death_cause"] == cause, (
            f"{who} sees seat {seat.no} died of {view['death_cause']}"
        )
    own_will = set()
    if viewer is not None:
        me = state["me"]
        seat = t.seats[viewer]
        assert me["seat_no"] == viewer and me["role"] == (seat.role or None)
        assert me["will"] == seat.will
        assert me["partners"] == (partners(t, viewer) if seat.role else [])
        own_will = markers(seat.will)
    else:
        assert state["me"] is None
    assert markers(state) == own_will, f"{who} /state holds {markers(state) - own_will}"

    # Wills: public exactly from the morning after the death.
    published = {line.text for line in t.lines if line.kind == "will"}
    for seat in t.seats.values():
        if seat.will:
            assert (seat.will in published) == will_published(t, seat), (
                f"seat {seat.no}'s will published={seat.will in published} on day {t.day}"
            )
