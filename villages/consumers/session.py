"""What one socket knows of where its client stands, and what to do with each push: pure.

No I/O, no clock, no Django: the consumers (`villages.consumers.api`, `.screen`) read the
database and send frames; this module only decides. Its tests need no server.

**Lines** are numbered per viewer (`villages.line_numbers`: the numbers tell nothing of the
lines the viewer may not see). `cursor` is the number up to which the socket has handled
every line its viewer may see: a pushed line at or below it is a duplicate (it was read
from the database already, or pushed twice), and a push whose `prev` (the viewer's last
line before the commit's) is above it shows that an earlier push was lost or overtaken:
the gap is read from the database first.

**Pushes are held** from the moment the socket listens until it knows where its client
stands — its first frame (`resume`, `hello`), or a short wait — so that nothing new
overtakes what the client has missed.

**Seats move**: a push computed for another viewer than the socket's (its user sat down,
left or was kicked meanwhile) is dropped, or, when the seat number now belongs to someone
else, answered by reading everything again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from villages.groups import encode

NOT_CUES = frozenset({"message", "state", "shown", "hidden"})  # API frames that are no cue


class Route(enum.Enum):
    """What a push asks of the socket."""

    IGNORE = "ignore"  # computed for a group the socket has just left
    REREAD = "reread"  # the viewer's seat changed hands: read everything again
    WIDEN = "widen"  # the viewer may see more from now on: the whole log again
    GAP = "gap"  # an earlier push is missing: read the gap, then place this one
    IN_ORDER = "in_order"  # place it


@dataclass(frozen=True)
class Push:
    """An envelope (`villages.groups`: API frames or a screen delta) and whom the hub
    worked it out for: a seat (None: the spectators) and that seat's user."""

    envelope: dict[str, Any]
    viewer: int | None
    user: int | None


@dataclass
class ResumePlan:
    """A `resume` from `after`: where to start reading, and which lines the socket has
    sent already (`skip_from < id <= skip_to`) and must not send again."""

    start: int
    skip_from: int
    skip_to: int

    def wanted(self, line_id: int) -> bool:
        return not self.skip_from < line_id <= self.skip_to

    def next_start(self, last: int) -> int:
        """Where the next page starts, after a page that ended at `last`."""
        return last if not self.skip_from < last < self.skip_to else self.skip_to


@dataclass
class Session:
    """One socket's position among its viewer's lines and states."""

    viewer: int | None = None
    user: int | None = None
    cursor: int = 0  # every line of the viewer up to this number has been handled
    anchor: int = 0  # lines up to this number are the client's business (its resume point)
    state_version: int = -1  # the newest state this socket has sent
    held: list[dict[str, Any]] | None = field(default_factory=list)

    # -- holding ---------------------------------------------------------------------------

    @property
    def holding(self) -> bool:
        return self.held is not None

    def hold(self, message: dict[str, Any]) -> bool:
        """Keep `message` for later while the socket holds (True), else False."""
        if self.held is None:
            return False
        self.held.append(message)
        return True

    def release(self) -> list[dict[str, Any]]:
        """Stop holding: the messages held, to be handled now in their order."""
        held, self.held = self.held or [], None
        return held

    # -- moving ----------------------------------------------------------------------------

    def moved_to(self, viewer: int | None) -> None:
        """The socket now watches as `viewer`: its next state is due whatever its version."""
        self.viewer = viewer
        self.state_version = -1

    def read_up_to(self, last: int) -> None:
        """Lines up to `last` were read from the database (and sent)."""
        self.cursor = max(self.cursor, last)

    def state_is_news(self, version: int) -> bool:
        """Whether a state of `version` should be sent (and is then counted as sent)."""
        if version < self.state_version:
            return False
        self.state_version = version
        return True

    # -- pushes ----------------------------------------------------------------------------

    def route(self, push: Push) -> Route:
        """What a push (an API `village.events` or a `village.screen` envelope) asks."""
        if push.viewer != self.viewer:
            return Route.IGNORE
        if self.viewer is not None and push.user != self.user:
            return Route.REREAD
        envelope = push.envelope
        if envelope.get("widen"):
            return Route.WIDEN
        prev = envelope.get("prev")
        if prev is not None and prev > self.cursor:
            return Route.GAP
        return Route.IN_ORDER

    def frames_of(self, envelope: dict[str, Any]) -> list[str]:
        """An API envelope's encoded frames this socket has not sent yet, in order: lines
        above the cursor, a state newer than the last one sent, and every cue."""
        texts = []
        for kind, message_id, text in envelope["frames"]:
            if kind == "message":
                if message_id <= self.cursor:
                    continue  # sent already (read from the database, or pushed twice)
            elif kind == "state":
                if envelope["version"] <= self.state_version:
                    continue  # this state or a newer one was sent
                self.state_version = envelope["version"]
            texts.append(text)
        if envelope.get("last") is not None:
            self.read_up_to(envelope["last"])
        return texts

    @staticmethod
    def cues_of(envelope: dict[str, Any]) -> list[str]:
        """An API envelope's cue frames (objection, revote, dawn, ...): what a socket that
        reads everything again still sends, after the lines."""
        return [text for kind, _id, text in envelope["frames"] if kind not in NOT_CUES]

    # -- resuming ----------------------------------------------------------------------------

    def resume(self, after: int) -> ResumePlan:
        """A client asks for every line after `after`: what it covered already on this
        socket, `anchor < id <= cursor`, is not read or sent again."""
        sent_from, sent_to = self.anchor, self.cursor
        self.anchor = min(self.anchor, after)
        start = after if after < sent_from else max(after, sent_to)
        return ResumePlan(start=start, skip_from=sent_from, skip_to=sent_to)

    def resumed(self, after: int, last: int) -> None:
        self.cursor = max(self.cursor, last, after)

    def started_at(self, after: int | None, last: int) -> None:
        """The socket opened: with `?after=` the client's resume point, else the present
        (`last`, the viewer's newest line)."""
        if after is None:
            self.cursor = self.anchor = last
        else:
            self.anchor = after
            self.cursor = max(after, last)


@dataclass
class Page:
    """What a game screen's page shows (the screen socket's side of its `hello`): each
    part's digest and the village version it was drawn from, and the fingerprint of the
    hidden lines its logs were drawn with."""

    shown: dict[str, str] = field(default_factory=dict)  # part id -> digest
    versions: dict[str, int] = field(default_factory=dict)  # part id -> version drawn from
    marks: str = ""

    def says(self, parts: Any, marks: Any) -> None:
        """The page's `hello`: the digests of what it shows, and its marks."""
        if isinstance(parts, dict):
            self.shown.update({str(k): str(v) for k, v in parts.items()})
        if isinstance(marks, str):
            self.marks = marks

    def forget_versions(self) -> None:
        """The viewer changed: every part is due again whatever its version."""
        self.versions = {}

    def redrawn(
        self,
        parts: dict[str, tuple[str, str]],
        sendable: set[str],
        version: int,
        versioned: set[str],
    ) -> list[list[str]]:
        """The parts of a fresh drawing (id -> (html, digest)) that the page lacks, as a
        frame's `parts` (only those in `sendable`); the page now shows them all."""
        out = []
        for part_id, (html, digest) in parts.items():
            if self.shown.get(part_id) == digest:
                continue
            self.shown[part_id] = digest
            if part_id in sendable:
                out.append([part_id, html, digest])
        for part_id in versioned:
            self.versions[part_id] = version
        return out

    def delta_texts(
        self, session: Session, envelope: dict[str, Any], drawn: dict[str, Any]
    ) -> list[str]:
        """What a drawn screen delta (`villages.views.live.draw_delta`) brings that the page
        lacks, as the texts to send: parts newer than the page's and not shown already,
        lines above the cursor. The page and the session count it as shown."""
        version = envelope["version"]
        fresh = [
            part
            for part in drawn["parts"]
            if version > self.versions.get(part[0], -1) and self.shown.get(part[0]) != part[2]
        ]
        lines = [line for line in drawn["lines"] if line[0] > session.cursor]
        if envelope["last"] is not None:
            session.read_up_to(envelope["last"])
        for part_id, _html, digest, _send in fresh:
            self.versions[part_id] = version
            self.shown[part_id] = digest
        if drawn.get("marks"):
            self.marks = drawn["marks"]
        if len(fresh) == len(drawn["parts"]) and len(lines) == len(drawn["lines"]):
            return [drawn["text"]] if drawn["text"] else []  # as drawn for every socket alike
        frame: dict[str, Any] = {"type": "screen"}
        parts = [[part_id, html, digest] for part_id, html, digest, send in fresh if send]
        if parts:
            frame["parts"] = parts
        if lines:
            frame["lines"] = lines
        for name in ("hide", "restore", "cues", "marks"):
            if drawn.get(name):
                frame[name] = drawn[name]
        return [encode(frame)] if len(frame) > 1 else []
