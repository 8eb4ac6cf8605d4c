"""The fan-out: after a commit, send each viewer exactly what changed for it, and nothing
to a viewer whose view did not change (SPEC §8: the timing of a hidden action is hidden).

Called from `services.core` on commit, with the village as it was before and after. For
every viewer (each seat, and the spectators) that some socket listens for, the change is
worked out from the viewer's own views of the two versions — both made by the engine's
visibility function (`villages.selectors`, `villages.screenview`):

* API.md's JSON frames (`viewer_group`): the lines it may see, the public cues, and its
  `state` when its state view changed;
* the game screen (`screen_group`): the parts whose input changed, its lines, the cues.
  Viewers who see a commit alike (the living villagers, mostly) get one delta, which the
  socket processes render once.

A viewer for whom nothing changed gets nothing: no envelope, no empty frame. Each envelope
names the last earlier line *its viewer* may see (`prev`), so a socket can tell a missed
push without hearing about the lines it may not see (`villages.consumers`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction

from jinro_site.runtime import listening as who_listens
from jinro_site.runtime import publish as send_pushes
from villages import line_numbers, screenview, selectors
from villages.engine import GameState, Phase
from villages.engine import visibility as vis
from villages.engine.events import (
    Alert,
    Dawn,
    Died,
    Event,
    GameOver,
    Kicked,
    ObjectionRaised,
    Revote,
    Started,
)
from villages.groups import (
    encode,
    encoded_frame,
    roster_group,
    screen_group,
    user_changed,
    user_group,
    viewer_group,
    village_events,
    village_roster,
    village_screen,
)
from villages.models import Message, Village
from villages.snapshots import Loaded, snapshot_of

logger = logging.getLogger(__name__)


def _cue(event: Event) -> dict[str, Any] | None:
    """The public cue an engine event becomes (API.md's frames, and the screens' sounds)."""
    if isinstance(event, ObjectionRaised):
        return {"type": "objection", "seat_no": event.seat_no}
    if isinstance(event, Revote):
        return {"type": "revote", "day": event.day, "round": event.round, "reason": event.reason}
    if isinstance(event, Dawn):
        return {"type": "dawn", "day": event.day}
    if isinstance(event, GameOver):
        return {"type": "game_over", "winner": event.winner.value if event.winner else None}
    if isinstance(event, Alert):
        return {"type": "alert", "seconds_left": event.seconds_left}
    return None


def _widened(state: GameState, events: Sequence[Event]) -> set[int | None]:
    """Viewers who may see more from this commit on: the dead of it, everyone at the end."""
    if any(isinstance(e, GameOver) for e in events):
        return set(vis.message_audiences(state))
    return {e.seat_no for e in events if isinstance(e, Died)}


def _seats_may_change(state: GameState, events: Sequence[Event]) -> bool:
    """Seats change only before the start (sit, leave, kick) and at the start."""
    return state.phase is Phase.WAITING or any(
        isinstance(e, Started | Kicked | GameOver) for e in events
    )


def _only_the_clock(old: GameState, new: GameState) -> bool:
    """Nothing but the clock moved (talk by day, a silence, an alert): no seat, ballot,
    action or phase changed, so no viewer's seats, role or controls did."""
    return all(getattr(old, f) == getattr(new, f) for f in _NOT_CLOCK)


_NOT_CLOCK = tuple(f for f in GameState.__dataclass_fields__ if f != "clock")


def _same_face(old: Village, new: Village) -> bool:
    """The staff left the village's words and hidden lines as they were (core.edit_village
    changes them without touching the game)."""
    return (old.name, old.comment, old.hidden_mark) == (new.name, new.comment, new.hidden_mark)


class _Commit:
    """One commit as each of its viewers sees it (built lazily, shared between viewers)."""

    def __init__(
        self, before: Loaded, after: Loaded, events: Sequence[Event], messages: Sequence[Message]
    ) -> None:
        self.before, self.after = before, after
        self.lines_posted = [m for m in messages if not m.hidden]
        self.cues = [c for c in map(_cue, events) if c is not None]
        self.widened = _widened(after.state, events)
        self.clock_only = _only_the_clock(before.state, after.state) and _same_face(
            before.village, after.village
        )
        if self.clock_only:
            selectors.carry_over(before, after)
            screenview.carry_over(before, after)
        self.who = screenview.speakers(after)
        self._last_numbers: line_numbers.LastNumbers | None = None  # for `prev`, made once
        self._screen_cues_drawn: list[dict[str, Any]] | None = None
        self._clock_parts: dict[str, Any] | None = None
        self._deltas: dict[Any, dict[str, Any]] = {}
        self._seen: dict[tuple[int, str, int | None], dict[str, Any]] = {}
        self._frames: dict[int, list[Any]] = {}  # by id() of a dict kept in `_seen`
        self._cues_encoded: list[list[Any]] | None = None
        self._alike: dict[str, str] = {}  # the state frames' parts every viewer shares

    # -- what every flavour needs ---------------------------------------------------------

    def lines(self, viewer: int | None) -> list[dict[str, Any]]:
        """The commit's lines as the viewer may see them, numbered for it (one dict for all
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
        """The number of the last line before this commit's that the viewer may see (0:
        none), as the socket's cursor counts."""
        if self._last_numbers is None:
            self._last_numbers = line_numbers.LastNumbers(self.before.village, self.after.state)
        return self._last_numbers.of(viewer)

    def state_changed(self, viewer: int | None) -> bool:
        if self.clock_only:
            return self._clock_changed
        return selectors.stable_state(
            selectors.View(self.before, viewer)
        ) != selectors.stable_state(selectors.View(self.after, viewer))

    @property
    def _clock_changed(self) -> bool:
        found = getattr(self, "_clock", None)
        if found is None:
            found = self._clock = selectors.stable_clock(self.before.state) != (
                selectors.stable_clock(self.after.state)
            )
        return found

    # -- API.md's frames ------------------------------------------------------------------

    def json_for(self, viewer: int | None, user: int | None) -> dict[str, Any] | None:
        lines = self.lines(viewer)
        frames = [self._line_frame(m) for m in lines] + self._cue_frames()
        if self.state_changed(viewer):
            text = selectors.state_frame_text(selectors.View(self.after, viewer), self._alike)
            frames.append(["state", None, text])
        widen = viewer in self.widened
        if not frames and not widen:
            return None
        return village_events(
            frames,
            viewer=viewer,
            user=user,
            version=self.after.village.version,
            prev=self.prev(viewer) if lines else None,
            last=lines[-1]["id"] if lines else None,
            widen=widen,
        )

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

    def screen_for(self, viewer: int | None) -> tuple[Any, dict[str, Any]] | None:
        """The viewer's screen delta, and a key equal for the viewers who get the same."""
        if viewer in self.widened:
            # What the viewer may see has widened: its socket draws everything again.
            return ("widen",), {"widen": True, "cues": self._screen_cues()}
        parts, parts_key = self._parts_changed(viewer)
        lines = self.lines(viewer)
        cues = self._screen_cues()
        if not (parts or lines or cues):
            return None
        prev = self.prev(viewer) if lines else None
        key = (parts_key, tuple((m["id"], m["kind"], m["seat_no"]) for m in lines), prev)
        found = self._deltas.get(key)
        if found is None:
            ended = self.after.state.phase is Phase.ENDED
            found = self._deltas[key] = {
                "parts": parts,
                "lines": [screenview.line_input(m, self.who, ended=ended) for m in lines],
                "cues": cues,
                "prev": prev,
                "last": lines[-1]["id"] if lines else None,
            }
        return key, found

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


def _names(village_id: int, viewers: Sequence[int | None]) -> list[tuple[int | None, str, str]]:
    """Each viewer with its two groups (`viewer_group`, `screen_group`)."""
    return [(v, viewer_group(village_id, v), screen_group(village_id, v)) for v in viewers]


def _groups(names: Sequence[tuple[int | None, str, str]]) -> list[str]:
    return [g for _viewer, *groups in names for g in groups]


def publish(
    before: Loaded, after: Loaded, events: Sequence[Event], messages: Sequence[Message]
) -> None:
    """Push one commit to every viewer whose view it changed (see the module's docstring)."""
    village_id, version = after.village.pk, after.village.version
    viewers = vis.message_audiences(after.state)
    users = {no: row.user_id for no, row in after.rows.items()}
    roster = _seats_may_change(after.state, events)
    names = _names(village_id, viewers)
    groups = _groups(names)
    listening = who_listens([*groups, roster_group(village_id)] if roster else groups)
    sends: list[tuple[str, dict[str, Any]]] = []
    if roster and roster_group(village_id) in listening:
        sends.append((roster_group(village_id), village_roster(users, version=version)))
    if listening - {roster_group(village_id)}:
        commit = _Commit(before, after, events, messages)
        screens: dict[Any, tuple[dict[str, Any], dict[int | None, int | None]]] = {}
        for viewer, json_group, screen in names:
            user = None if viewer is None else users.get(viewer)
            if json_group in listening:
                envelope = commit.json_for(viewer, user)
                if envelope is not None:
                    sends.append((json_group, envelope))
            if screen in listening:
                found = commit.screen_for(viewer)
                if found is not None:
                    key, delta = found  # viewers who see the commit alike share one delta
                    screens.setdefault(key, (delta, {}))[1][viewer] = user
        for delta, alike in screens.values():
            envelope = village_screen(delta, viewers=alike, version=version)
            sends += [(screen_group(village_id, v), envelope) for v in alike]
    _send(village_id, sends)


def publish_moderated(village_id: int, messages: Sequence[Message], hidden: bool) -> None:
    """Lines hidden (or shown again) by the staff: off (or back on) every open screen."""
    loaded = snapshot_of(village_id)
    if loaded is None or not messages:
        return
    viewers = vis.message_audiences(loaded.state)
    users = {no: row.user_id for no, row in loaded.rows.items()}
    listening = who_listens(_groups(_names(village_id, viewers)))
    who = screenview.speakers(loaded)
    ended = loaded.state.phase is Phase.ENDED
    version = loaded.village.version
    sends: list[tuple[str, dict[str, Any]]] = []
    for viewer in viewers:
        seen = selectors.visible_messages(loaded.village, loaded.state, viewer, messages)
        if not seen:
            continue  # nothing this viewer could see changed
        user = None if viewer is None else users.get(viewer)
        if viewer_group(village_id, viewer) in listening:
            frames = [
                {"type": "hidden", "id": m["id"]} if hidden else {"type": "shown", "message": m}
                for m in seen
            ]
            sends.append(
                (
                    viewer_group(village_id, viewer),
                    village_events(frames, viewer=viewer, user=user, version=version),
                )
            )
        if screen_group(village_id, viewer) in listening:
            if hidden:
                delta: dict[str, Any] = {"hide": [m["id"] for m in seen]}
            else:
                delta = {"restore": [screenview.line_input(m, who, ended=ended) for m in seen]}
            delta["marks"] = selectors.log_marks(loaded, viewer)
            sends.append(
                (
                    screen_group(village_id, viewer),
                    village_screen(delta, viewers={viewer: user}, version=version),
                )
            )
    _send(village_id, sends)


def publish_user(user_id: int) -> None:
    """A user's standing changed (banned, unbanned): its open sockets read it again."""
    _send(None, [(user_group(user_id), user_changed(user_id))])


def after_commit(work: Callable[..., None], *args: Any) -> None:
    """Run `work(*args)` (a push) once the transaction commits. If it fails, the log says
    so and nothing else: the commit stands, its answer is sent, the caller goes on."""

    def run() -> None:
        try:
            work(*args)
        except Exception:
            logger.exception("after a commit, %s failed", getattr(work, "__name__", work))

    transaction.on_commit(run)


def _send(village_id: int | None, sends: list[tuple[str, dict[str, Any]]]) -> None:
    try:
        failures = send_pushes(sends)
    except Exception:  # a push never undoes a committed command
        logger.exception("push to village %s failed", village_id)
        return
    if failures:
        # Sockets that missed it catch up from the database (see villages.consumers).
        logger.warning(
            "push to village %s: %d of %d sends failed (%r)",
            village_id,
            len(failures),
            len(sends),
            failures[0],
        )
