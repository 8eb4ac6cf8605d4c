"""What a socket process's hub works out for a change of a village: the village as
committed now (made from the one its sockets were brought to and the events, on the hub's
loop; or read, in its thread), and what each of its sockets is to be handed of the
difference (`villages.fanout`, so the engine's visibility function). See
`villages.consumers.hub`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from jinro_site import dbchanges
from villages import line_numbers
from villages.consumers.sequence import MAX_GAP
from villages.consumers.session import Push
from villages.fanout import Change, Moderation, followed, lines_between
from villages.groups import VILLAGE_CATCH_UP, VILLAGE_RELOAD
from villages.models import Message, Village
from villages.snapshots import Loaded, snapshot_of

WAKE = {"type": "hub.wake"}  # to an agent: what its seat sees changed


class Listener(Protocol):
    """A socket as the hub sees it."""

    village_id: int
    user_id: int | None
    flavour: str  # "api", "screen" or "agent"

    @property
    def viewer(self) -> int | None: ...

    def deliver(self, message: Any) -> None:
        """Take `message` for later (never blocks)."""


@dataclass
class Followed:
    now: Loaded | None
    deliveries: list[tuple[Listener, Any]]


Target = tuple[Listener, str, "int | None", "int | None"]  # listener, flavour, viewer, user


class CommittedVersions:
    """The villages' versions as committed, for the heartbeat: read again only when
    another connection has committed since the last read (`jinro_site.dbchanges`; a quiet
    site's heartbeat then reads SQLite's data version only) or other villages are asked.
    Called in the hub's one thread, which never commits a village's change itself (its
    own commits would not move the marker)."""

    def __init__(self) -> None:
        self.last: tuple[object, dict[int, int]] | None = None

    def __call__(self, village_ids: list[int]) -> dict[int, int]:
        found = dbchanges.marker()  # first: a commit after the read below moves it
        if found is not None and self.last is not None and self.last[0] == found:
            known = self.last[1]
            if all(village_id in known for village_id in village_ids):
                return {village_id: known[village_id] for village_id in village_ids}
        versions = dict(Village.objects.filter(pk__in=village_ids).values_list("pk", "version"))
        self.last = (found, versions) if found is not None else None
        return versions


def follow(
    village_id: int,
    known: Loaded | None,
    events: list[dict[str, Any]],
    notes: list[dict[str, Any]],
    targets: list[Target],
    read: bool,
) -> Followed:
    """The village as committed now, and what each target is to be handed of the change
    from `known` (see Hub.follow): made from `known` and the events when they carry what
    it takes (`follow_unread`), else read from the database (always with `read`: a
    reload, or a catch-up with no event to follow)."""
    if known is not None and not read:
        line_numbers.HIDDEN.upto(known.village)  # read here, if need be: then it follows on
    made = None if read else follow_unread(known, events, notes, targets)
    if made is not None:
        return made
    now = snapshot_of(village_id)
    if now is None:
        return Followed(None, [(t[0], {"type": VILLAGE_RELOAD}) for t in targets])
    if known is None:
        return Followed(now, [])  # the first read: the sockets read for themselves
    if now.village.version - known.village.version > MAX_GAP:
        return Followed(now, [(t[0], {"type": VILLAGE_RELOAD}) for t in targets])
    return _handed(village_id, known, now, lines_between(known, now), notes, targets)


def follow_unread(
    known: Loaded | None,
    events: list[dict[str, Any]],
    notes: list[dict[str, Any]],
    targets: list[Target],
) -> Followed | None:
    """`follow` without the database, so on the hub's own loop, with no thread to wait
    for: when the events carry the change (`fanout.followed`: a commit that moved the
    clock and posted lines, most of a day's and a night's) or only bring cues. None when
    it takes a read (a missed version, a bigger change, lines the staff hid or showed,
    hidden lines this process has not numbered up to `known`)."""
    if known is None or any(note.get("moderated") for note in notes):
        return None
    if not line_numbers.HIDDEN.covers(known.village):
        return None  # numbering its lines would read the rows this process lacks
    if not events:
        return _handed(known.village.pk, known, known, [], notes, targets)
    made = followed(known, events)
    if made is None:
        return None
    now, lines = made
    return _handed(known.village.pk, known, now, lines, notes, targets)


def _handed(
    village_id: int,
    known: Loaded,
    now: Loaded,
    lines: list[Message],
    notes: list[dict[str, Any]],
    targets: list[Target],
) -> Followed:
    """What each target is handed of the change from `known` to `now`."""
    cues = [c for note in notes for c in note["cues"]]
    deliveries: list[tuple[Listener, Any]] = []
    moved = {t[0] for t in targets if _moved(now, t)}
    deliveries += [(listener, {"type": VILLAGE_CATCH_UP}) for listener in moved]
    stay = [t for t in targets if t[0] not in moved]
    if now.village.version > known.village.version or cues:
        base = known if now.village.version > known.village.version else now
        deliveries += _shares(Change(base, now, cues, lines if base is known else []), stay)
    for note in notes:
        if note.get("moderated"):
            moderated = note["moderated"]
            shown = Message.objects.filter(village_id=village_id, pk__in=moderated["lines"])
            deliveries += _shares(Moderation(now, list(shown), moderated["hidden"]), stay)
    return Followed(now, deliveries)


def _moved(now: Loaded, target: Target) -> bool:
    """The target's user holds another seat (or none) than the socket watches as."""
    _listener, _flavour, viewer, user = target
    if user is None:
        return False
    row = now.seat_of_user(user)
    return (row.seat_no if row is not None else None) != viewer


def _shares(change: Change | Moderation, targets: Iterable[Target]) -> list[tuple[Listener, Any]]:
    out: list[tuple[Listener, Any]] = []
    for listener, flavour, viewer, user in targets:
        if flavour == "screen":
            found = change.screen_for(viewer)
            if found is not None:
                out.append((listener, Push(found[1], viewer, user)))
            continue
        envelope = change.json_for(viewer, user)
        if envelope is None:
            continue
        out.append((listener, WAKE if flavour == "agent" else Push(envelope, viewer, user)))
    return out
