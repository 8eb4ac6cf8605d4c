"""How a socket process follows one village's events: by number, pure.

No I/O, no clock, no Django: the hub (`villages.consumers.hub`) reads the database and
hands frames to its sockets; this module only decides. Its tests need no server.

Every commit of a village bumps its version by one, and its event carries that version
(and the version it followed). The hub has brought its sockets to `known`; an event
tells it how far the village has come:

* an event at or below `known` brings nothing new (a duplicate, or a change the hub read
  already): dropped — but its cues (sounds, once each) are still due if not handed out;
* the next number, or a gap (events lost or overtaken) up to `MAX_GAP`: the hub reads the
  village as committed now and hands each socket the difference (a gap costs no more
  than one event: the difference covers every commit in it);
* a gap beyond `MAX_GAP`: the sockets are told to read everything themselves (a reload),
  rather than one difference of a long stretch of the game;
* the layer was away (its own pings stopped coming back) and is back: every village is
  read again (a resync), since anything may have been lost meanwhile;
* quiet villages: each heartbeat, the hub asks the database for the versions; a version
  beyond `known` that the sockets still have not been brought to at the next heartbeat
  means its event was lost (an event is followed within milliseconds): read it
  (`heartbeat`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

MAX_GAP = 200  # versions: beyond this, sockets read for themselves


class Step(enum.Enum):
    DROP = "drop"  # nothing new
    FOLLOW = "follow"  # the next version: read it and hand out the difference
    CATCH_UP = "catch_up"  # versions were missed: the same, over the gap
    RELOAD = "reload"  # too far behind: every socket reads for itself
    WAIT = "wait"  # nothing to do yet


@dataclass
class Sequence:
    """Where a process's sockets stand in one village's events."""

    known: int = -1  # the version the sockets were brought to (-1: none read yet)
    cued: int = -1  # the newest version whose cues were handed out
    heard: int = -1  # the newest version an event announced (for after the first read)
    suspect: int = -1  # a version the database had at the last heartbeat, beyond `known`

    def event(self, version: int, since: int) -> Step:
        """An event of the village arrived."""
        self.heard = max(self.heard, version)
        if version <= self.known:
            return Step.DROP
        if self.known < 0:
            return Step.WAIT  # the first read is under way: followed after it (`behind`)
        if version - self.known > MAX_GAP:
            return Step.RELOAD
        return Step.FOLLOW if since == self.known else Step.CATCH_UP

    def behind(self) -> bool:
        """After the first read: whether an event announced a version beyond it."""
        return self.heard > self.known

    def cues_due(self, version: int) -> bool:
        """Whether the cues of the event of `version` are still to be handed out (each
        once, in the order of the versions); they count as handed out from now on."""
        if version <= self.cued:
            return False
        self.cued = version
        return True

    def read(self, version: int, *, whole: bool = False) -> None:
        """The sockets were brought to `version` (read from the database); `whole`: by
        reading everything (the first read, a reload), so the cues of what it covered
        are past."""
        self.known = max(self.known, version)
        if whole:
            self.cued = max(self.cued, self.known)

    def heartbeat(self, committed: int) -> Step:
        """The database says the village is at `committed`."""
        if self.known < 0 or committed <= self.known:
            self.suspect = -1
            return Step.DROP
        if self.known < self.suspect:  # what the last heartbeat found has not come since
            self.suspect = -1
            if committed - self.known > MAX_GAP:
                return Step.RELOAD
            return Step.CATCH_UP  # unheard of for a whole heartbeat: its event was lost
        self.suspect = committed
        return Step.WAIT

    def resync(self) -> Step:
        """The layer is back after an outage: read the village again."""
        if self.known < 0:
            return Step.WAIT
        return Step.CATCH_UP
