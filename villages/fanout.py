"""What one change of a village means to each of its viewers: the read side of a push.

The write path publishes one small event per commit (`villages.services.push`); a socket
process turns it into frames here, from two snapshots of the village — the one its
sockets were last brought to and the one now committed — so that it works the same for
one commit or several (a gap it caught up on). For every viewer (a seat, or the
spectators) that a socket of the process watches for, the change is worked out from the
viewer's own views of the two versions, both made by the engine's visibility function
(`villages.selectors`, `villages.screenview`):

* API.md's JSON frames (`json_for`): the lines it may see, the public cues, and its
  `state` when its state view changed;
* the game screen (`screen_for`): the parts whose input changed, its lines, the cues.
  Viewers who see a change alike (the living villagers, mostly) get one delta, which the
  process renders once.

A viewer for whom nothing changed gets nothing: no envelope, no empty frame. Each envelope
names the last earlier line *its viewer* may see (`prev`), so a socket can tell a missed
change without hearing about the lines it may not see (`villages.consumers.session`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from villages import line_numbers, screenview, selectors, snapshots
from villages.engine import GameState, Phase
from villages.engine import visibility as vis
from villages.groups import encode, encoded_frame, village_events, village_screen
from villages.models import Message, Village
from villages.snapshots import Loaded


def widened(before: Loaded, after: Loaded) -> set[int | None]:
    """Viewers who may see more from this change on: the seats that died in it, and
    everyone when it ended the game."""
    if after.state.phase is Phase.ENDED and before.state.phase is not Phase.ENDED:
        return set(vis.message_audiences(after.state))
    alive = {seat.no for seat in before.state.seats if seat.alive}
    return {seat.no for seat in after.state.seats if not seat.alive and seat.no in alive}


def only_the_clock(before: Loaded, after: Loaded) -> bool:
    """Nothing but the clock moved (talk by day, a silence, an alert): no seat, ballot,
    action or phase changed, and the staff left the village's words as they were, so no
    viewer's seats, role or controls did."""
    old, new = before.state, after.state
    return all(getattr(old, f) == getattr(new, f) for f in _NOT_CLOCK) and _same_face(
        before.village, after.village
    )


_NOT_CLOCK = tuple(f.name for f in dataclasses.fields(GameState) if f.name != "clock")


def _same_face(old: Village, new: Village) -> bool:
    return (old.name, old.comment, old.hidden_mark) == (new.name, new.comment, new.hidden_mark)


def lines_between(before: Loaded, after: Loaded) -> list[Message]:
    """The lines committed after `before` up to `after`, oldest first (those the staff
    hid meanwhile too: numbering counts them; `Change` leaves them out)."""
    first, last = before.village.last_line, after.village.last_line
    if last <= first:
        return []
    lines = list(
        Message.objects.filter(village_id=after.village.pk, id__gt=first, id__lte=last).order_by(
            "id"
        )
    )
    # This process numbers them from now on without reading them again.
    line_numbers.HIDDEN.advance(before.village, after.village, lines)
    return lines


# A posted line as an event carries it, for a process that follows without reading it.
LINE_FIELDS = ("day", "phase", "kind", "seat_no", "text", "volume", "code", "params", "cost")
LINE_FIELDS += ("hidden", "public_no")


def line_fields(m: Message) -> dict[str, Any]:
    out = {name: getattr(m, name) for name in LINE_FIELDS}
    out["id"], out["created_at"] = m.pk, m.created_at.isoformat()
    return out


def line_from(village_id: int, fields: dict[str, Any]) -> Message:
    """A line as committed, from `line_fields` (a model instance not read from the
    database: what the visibility function and the selectors ask of a line)."""
    given = {name: fields[name] for name in LINE_FIELDS}
    created = datetime.fromisoformat(fields["created_at"])
    return Message(pk=fields["id"], village_id=village_id, created_at=created, **given)


def following(before: Loaded, after: Loaded, messages: Sequence[Message]) -> dict[str, Any] | None:
    """What an event carries for a process to make `after` from `before` without reading
    the database (`followed`): when the commit moved only the clock and posted lines."""
    if not only_the_clock(before, after):
        return None
    return {
        "village": snapshots.clock_fields(after.village),
        "lines": [line_fields(m) for m in messages],
    }


def followed(
    known: Loaded, events: Sequence[dict[str, Any]]
) -> tuple[Loaded, list[Message]] | None:
    """The village after `events` (in order of their versions), made from `known` and what
    they carry, with their lines; None when some event does not follow on (a version
    missed) or does not carry it (a commit that changed more than the clock)."""
    now, lines = known, []
    for event in sorted(events, key=lambda e: e["version"]):
        if event["version"] <= now.village.version:
            continue
        if event["since"] != now.village.version or not event.get("follow"):
            return None
        now = snapshots.advanced(now, event["follow"]["village"])
        lines += [line_from(now.village.pk, f) for f in event["follow"]["lines"]]
    if now is known:
        return None
    snapshots.keep(now)
    line_numbers.HIDDEN.advance(known.village, now.village, lines)
    return now, lines


class Change:
    """A change of a village (one commit or several) as each of its viewers sees it:
    built lazily, shared between the viewers who see it alike."""

    def __init__(
        self,
        before: Loaded,
        after: Loaded,
        cues: Sequence[dict[str, Any]],
        messages: Sequence[Message],
    ) -> None:
        self.before, self.after = before, after
        self.lines_posted = [m for m in messages if not m.hidden]
        self.cues = list(cues)
        self.widened = widened(before, after)
        self.clock_only = only_the_clock(before, after)
        if self.clock_only:
            selectors.carry_over(before, after)
            screenview.carry_over(before, after)
        self.who = screenview.speakers(after)
        self.version = after.village.version
        self._last_numbers: line_numbers.LastNumbers | None = None  # for `prev`, made once
        self._screen_cues_drawn: list[dict[str, Any]] | None = None
        self._clock_parts: dict[str, Any] | None = None
        self._clock_changed: bool | None = None
        self._json: dict[int | None, dict[str, Any] | None] = {}
        self._screens: dict[int | None, tuple[str, dict[str, Any]] | None] = {}
        self._deltas: dict[Any, tuple[str, dict[str, Any]]] = {}
        self._seen: dict[tuple[int, str, int | None, int], dict[str, Any]] = {}
        self._frames: dict[int, list[Any]] = {}  # by id() of a dict kept in `_seen`
        self._cues_encoded: list[list[Any]] | None = None
        self._alike: dict[str, str] = {}  # the state frames' parts every viewer shares

    # -- what every flavour needs ---------------------------------------------------------

    def lines(self, viewer: int | None) -> list[dict[str, Any]]:
        """The change's lines as the viewer may see them, numbered for it (one dict for all
        who see a line alike)."""
        state = self.after.state
        seen = [(m, s) for m in self.lines_posted if (s := vis.see_message(state, viewer, m))]
        if not seen:
            return []
        number = line_numbers.numbers(self.after.village, state, viewer, (m for m, _s in seen))
        out = []
        for m, s in seen:
            key = (m.pk, s.kind.value, s.seat_no, number[m.pk])
            found = self._seen.get(key)
            if found is None:
                found = self._seen[key] = selectors.message_dict(m, s, number[m.pk])
            out.append(found)
        return out

    def prev(self, viewer: int | None) -> int:
        """The number of the last line before this change's that the viewer may see (0:
        none), as the socket's cursor counts."""
        if self._last_numbers is None:
            self._last_numbers = line_numbers.LastNumbers(self.before.village, self.after.state)
        return self._last_numbers.of(viewer)

    def state_changed(self, viewer: int | None) -> bool:
        if self.clock_only:
            if self._clock_changed is None:
                self._clock_changed = selectors.stable_clock(self.before.state) != (
                    selectors.stable_clock(self.after.state)
                )
            return self._clock_changed
        return selectors.stable_state(
            selectors.View(self.before, viewer)
        ) != selectors.stable_state(selectors.View(self.after, viewer))

    # -- API.md's frames ------------------------------------------------------------------

    def json_for(self, viewer: int | None, user: int | None) -> dict[str, Any] | None:
        """The viewer's envelope of API frames (None: nothing it may see changed); the
        same dict for every socket of the viewer."""
        if viewer in self._json:
            return self._json[viewer]
        lines = self.lines(viewer)
        frames = [self._line_frame(m) for m in lines] + self._cue_frames()
        if self.state_changed(viewer):
            text = selectors.state_frame_text(selectors.View(self.after, viewer), self._alike)
            frames.append(["state", None, text])
        widen = viewer in self.widened
        found = None
        if frames or widen:
            found = village_events(
                frames,
                viewer=viewer,
                user=user,
                version=self.version,
                prev=self.prev(viewer) if lines else None,
                last=lines[-1]["id"] if lines else None,
                widen=widen,
            )
        self._json[viewer] = found
        return found

    def _line_frame(self, line: dict[str, Any]) -> list[Any]:
        """A line's `message` frame, encoded once for all who see the line alike (`lines`
        gives them the same dict)."""
        found = self._frames.get(id(line))
        if found is None:
            found = self._frames[id(line)] = encoded_frame({"type": "message", "message": line})
        return found

    def _cue_frames(self) -> list[list[Any]]:
        if self._cues_encoded is None:
            self._cues_encoded = [encoded_frame(c) for c in self.cues]
        return self._cues_encoded

    # -- the game screen ------------------------------------------------------------------

    def screen_for(self, viewer: int | None) -> tuple[str, dict[str, Any]] | None:
        """The viewer's screen delta and a key equal for the viewers who get the same
        (None: nothing on its screen changed)."""
        if viewer not in self._screens:
            self._screens[viewer] = self._screen_for(viewer)
        return self._screens[viewer]

    def _screen_for(self, viewer: int | None) -> tuple[str, dict[str, Any]] | None:
        if viewer in self.widened:
            # What the viewer may see has widened: its socket draws everything again.
            return self._shared(("widen",), {"widen": True, "cues": self._screen_cues()})
        parts, parts_key = self._parts_changed(viewer)
        lines = self.lines(viewer)
        cues = self._screen_cues()
        if not (parts or lines or cues):
            return None
        prev = self.prev(viewer) if lines else None
        key = (parts_key, tuple((m["id"], m["kind"], m["seat_no"]) for m in lines), prev)
        if key in self._deltas:
            return self._deltas[key]
        ended = self.after.state.phase is Phase.ENDED
        return self._shared(
            key,
            {
                "parts": parts,
                "lines": [screenview.line_input(m, self.who, ended=ended) for m in lines],
                "cues": cues,
                "prev": prev,
                "last": lines[-1]["id"] if lines else None,
            },
        )

    def _shared(self, key: Any, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        found = self._deltas.get(key)
        if found is None:
            envelope = village_screen(delta, version=self.version)
            found = self._deltas[key] = (envelope["key"], envelope)
        return found

    def _parts_changed(self, viewer: int | None) -> tuple[dict[str, Any], Any]:
        if self.clock_only:
            # Only the clock moved, and everyone sees the same clock (screenview.carry_over).
            if self._clock_parts is None:
                old = screenview.parts_of(selectors.View(self.before, None))["d-time"]
                new = screenview.parts_of(selectors.View(self.after, None))["d-time"]
                self._clock_parts = {"d-time": new} if new != old else {}
            return self._clock_parts, "clock"
        parts = screenview.changed(
            screenview.parts_of(selectors.View(self.before, viewer)),
            screenview.parts_of(selectors.View(self.after, viewer)),
        )
        return parts, encode(parts)

    def _screen_cues(self) -> list[dict[str, Any]]:
        if self._screen_cues_drawn is None:
            cues = []
            for cue in self.cues:
                if cue["type"] == "objection":
                    who = self.who.get(cue["seat_no"])
                    cue = {**cue, "name": who["name"] if who else ""}
                cues.append(cue)
            self._screen_cues_drawn = cues
        return self._screen_cues_drawn


class Moderation:
    """Lines the staff hid (or showed again), as each viewer may see it: nothing for a
    viewer who could not see any of them."""

    def __init__(self, loaded: Loaded, messages: Sequence[Message], hidden: bool) -> None:
        self.loaded, self.messages, self.hidden = loaded, list(messages), hidden
        self.who = screenview.speakers(loaded)
        self._seen: dict[int | None, list[dict[str, Any]]] = {}

    def seen(self, viewer: int | None) -> list[dict[str, Any]]:
        found = self._seen.get(viewer)
        if found is None:
            village, state = self.loaded.village, self.loaded.state
            found = self._seen[viewer] = selectors.visible_messages(
                village, state, viewer, self.messages
            )
        return found

    def json_for(self, viewer: int | None, user: int | None) -> dict[str, Any] | None:
        seen = self.seen(viewer)
        if not seen:
            return None
        frames = [
            {"type": "hidden", "id": m["id"]} if self.hidden else {"type": "shown", "message": m}
            for m in seen
        ]
        version = self.loaded.village.version
        return village_events(frames, viewer=viewer, user=user, version=version)

    def screen_for(self, viewer: int | None) -> tuple[str, dict[str, Any]] | None:
        seen = self.seen(viewer)
        if not seen:
            return None
        ended = self.loaded.state.phase is Phase.ENDED
        if self.hidden:
            delta: dict[str, Any] = {"hide": [m["id"] for m in seen]}
        else:
            delta = {"restore": [screenview.line_input(m, self.who, ended=ended) for m in seen]}
        delta["marks"] = selectors.log_marks(self.loaded, viewer)
        envelope = village_screen(delta, version=self.loaded.village.version)
        return envelope["key"], envelope
