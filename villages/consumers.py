"""WebSocket endpoint of a village: `/ws/villages/<id>/` (API.md, "WebSocket").

Who is watching: the session's user (AuthMiddlewareStack) or `?token=<API token>`; the
viewer is that user's seat in the village, else a spectator. The socket joins only its
viewer's group (`villages.groups.viewer_group`) and the village's roster signal, and
relays what `villages.services.push` computed for that viewer. Every frame, pushed or
read here from the database, comes from `villages.selectors`, i.e. from the engine's
visibility function: a socket carries nothing its user may not see at that moment.

Server → client frames (one JSON object per WebSocket message, each with `type`):

* API.md's `state` `{"state": State}`, `message` `{"message": Message}`, `objection`
  `{"seat_no"}`, `revote` `{"day", "round"}`, `dawn` `{"day"}`, `game_over` `{"winner"}`;
* extras: `alert` `{"seconds_left"}` (the sudden-death warning sound); `log`
  `{"messages": [Message]}` — what the viewer may see has widened (its death, the end of
  the game): after the commit's own lines (sent as `message` frames, like any others),
  the whole log as the viewer now sees it, to replace the one on screen;
  `error` `{"error": {"code", "message"}}` before the server closes the socket
  (4401 bad token, 4404 no such village).

Client → server: `{"type": "resume", "after": <last message id>}` sends every visible
message with a larger id, in order, before any new one (send it first, right after the
socket opens: until the first client frame, or HOLD_SECONDS, pushed frames are held so
that nothing new overtakes the missed ones). `?after=<id>` on the URL does the same at
connection time.

Ordering: the socket tracks `cursor`, the village message id up to which it has handled
every line (sent it or found it invisible). A pushed line at or below the cursor is a
duplicate and skipped; a push whose preceding line is above the cursor reveals a lost or
overtaken push (Redis restarted, another node's push arrived first), and the gap is read
from the database before going on. After the layer reconnects to Redis the socket also
catches up from the database, so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import connections

from villages.groups import VILLAGE_EVENTS, VILLAGE_ROSTER, roster_group, viewer_group

logger = logging.getLogger(__name__)

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN = 1013
NOTHING = 1 << 62  # an `after` that reads no line: the state alone


@dataclass
class Snapshot:
    """What the database says now, for one user of one village."""

    viewer: int | None
    version: int
    last: int  # the village's last message id when read
    state: dict[str, Any]
    messages: list[dict[str, Any]]  # visible lines with after < id <= last


def in_thread(func: Any) -> Any:
    """`func` for awaiting: in a thread of the pool, beside other sockets' reads (not in
    the one thread that Django's sync-to-async shares by default, where hundreds of
    sockets catching up at once would wait in one line). The thread's database
    connection is closed afterwards: a pool thread may not run database code again for
    a long while."""

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        finally:
            connections.close_all()

    return database_sync_to_async(call, thread_sensitive=False)


def read_snapshot(village_id: int, user_id: int | None, *, after: int) -> Snapshot | None:
    """The user's viewer, state and visible lines after `after` (None: no such village)."""
    from villages.models import Message, Village
    from villages.selectors import View, state_dict, visible_messages
    from villages.services.persist import load

    # The last id first: lines of one village are written under its row lock, so every
    # line up to it is committed, and the state read next is at least that new.
    last = (
        Message.objects.filter(village_id=village_id)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    ) or 0
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        return None
    loaded = load(village)
    row = loaded.seat_of_user(user_id)
    viewer = row.seat_no if row is not None else None
    lines = Message.objects.filter(
        village_id=village_id, hidden=False, id__gt=after, id__lte=last
    ).order_by("id")
    return Snapshot(
        viewer=viewer,
        version=village.version,
        last=last,
        state=state_dict(View(loaded, viewer)),
        messages=visible_messages(loaded.state, viewer, lines) if last > after else [],
    )


def resolve_viewer(village_id: int, user_id: int | None) -> tuple[bool, int | None]:
    """(the village exists, the user's seat number or None)."""
    from villages.models import Seat, Village

    if not Village.objects.filter(pk=village_id).exists():
        return False, None
    if user_id is None:
        return True, None
    seat = (
        Seat.objects.filter(village_id=village_id, user_id=user_id, kicked=False)
        .values_list("seat_no", flat=True)
        .first()
    )
    return True, seat


def user_for_token(key: str) -> Any:
    from accounts.services import user_for_token as lookup

    return lookup(key)


class VillageConsumer(AsyncJsonWebsocketConsumer):
    """One socket watching one village, as one viewer."""

    HOLD_SECONDS = 0.5

    async def connect(self) -> None:
        self.village_id: int = int(self.scope["url_route"]["kwargs"]["village_id"])
        self.user_id: int | None = None
        self.viewer: int | None = None
        self.cursor = 0  # every line of the village up to this id has been handled
        self.anchor = 0  # lines up to this id are the client's business (its resume point)
        self.state_version = -1
        self.held: list[dict[str, Any]] | None = None
        self._lock = asyncio.Lock()
        self._hold_task: asyncio.Future[None] | None = None
        self._closed = False

        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        await self.accept()
        if not await self._identify(query.get("token", [""])[0]):
            await self._fail(
                CLOSE_NOT_AUTHENTICATED, "not_authenticated", "トークンが正しくありません。"
            )
            return
        exists, seat = await in_thread(resolve_viewer)(self.village_id, self.user_id)
        if not exists:
            await self._fail(CLOSE_NOT_FOUND, "not_found", "村が見つかりません。")
            return
        try:
            await self._join(roster_group(self.village_id))
            await self._join(viewer_group(self.village_id, seat))
        except Exception:
            logger.warning("village %s: channel layer unavailable", self.village_id, exc_info=True)
            self._closed = True
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        self.viewer = seat

        after = _int(query.get("after", [None])[0])
        async with self._lock:
            snap = await self._sync_viewer(after=NOTHING if after is None else after)
            if snap is None:
                return
            await self._emit_state(snap)
            if after is None:
                self.cursor = self.anchor = snap.last
                self.held = []
                self._hold_task = asyncio.ensure_future(self._release_later())
            else:
                self.anchor = after
                self.cursor = max(after, snap.last)
                await self._emit([{"type": "message", "message": m} for m in snap.messages])

    async def disconnect(self, code: int) -> None:
        self._closed = True
        if self._hold_task is not None:
            self._hold_task.cancel()

    async def dispatch(self, message: dict[str, Any]) -> None:
        # The base class closes stale database connections before every handler (a thread
        # hop per pushed frame); here only the database helpers touch the database, and
        # database_sync_to_async already does that for them.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    # -- client -> server --------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            content = json.loads(text_data or "")
        except ValueError:
            content = None
        async with self._lock:
            kind = content.get("type") if isinstance(content, dict) else None
            after = _int(content.get("after")) if kind == "resume" else None
            if after is not None:
                await self._resume(after)  # before anything held: the missed lines first
            await self._release()
            if kind is None:
                await self._error("bad_request", "JSON のオブジェクトを送ってください。")
            elif kind == "resume" and after is None:
                await self._error("bad_request", "after にメッセージ ID を指定してください。")
            elif kind not in ("resume", "ping"):
                await self._error("bad_request", "未知の type です。")

    async def _resume(self, after: int) -> None:
        """Every visible line after `after` not yet sent on this socket, in order."""
        snap = await self._sync_viewer(after=after)
        if snap is None:
            return
        sent_from, sent_to = self.anchor, self.cursor  # this socket covered (from, to]
        lines = [m for m in snap.messages if not sent_from < m["id"] <= sent_to]
        self.anchor = min(self.anchor, after)
        self.cursor = max(self.cursor, snap.last, after)
        await self._emit([{"type": "message", "message": m} for m in lines])
        await self._emit_state(snap)

    # -- channel layer -> server -------------------------------------------------------

    async def village_events(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def village_roster(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """The channel layer lost Redis for a while: pushes may be lost; catch up."""
        await self._handle(message)

    async def _handle(self, message: dict[str, Any]) -> None:
        async with self._lock:
            if self.held is not None:
                self.held.append(message)
            else:
                await self._apply(message)

    async def _apply(self, message: dict[str, Any]) -> None:
        if message["type"] == VILLAGE_EVENTS:
            await self._place(message)
        elif message["type"] == VILLAGE_ROSTER:
            await self._check_roster(message)
        else:
            await self._catch_up()

    async def _place(self, envelope: dict[str, Any]) -> None:
        if envelope.get("viewer") != self.viewer:
            return  # queued for the group this socket has just left
        if self.viewer is not None and envelope.get("user") != self.user_id:
            await self._catch_up()  # the seat number now belongs to someone else
            return
        cues = [f for f in envelope["events"] if f["type"] not in ("message", "state")]
        if envelope.get("widen"):
            await self._catch_up(full_log=True, cues=cues)
            return
        prev = envelope.get("prev")
        if prev is not None and prev > self.cursor:
            await self._catch_up()  # a push before this one never arrived (yet)
        frames = []
        for frame in envelope["events"]:
            if frame["type"] == "message":
                if frame["message"]["id"] <= self.cursor:
                    continue  # sent already (read from the database)
            elif frame["type"] == "state":
                if envelope["version"] <= self.state_version:
                    continue  # the socket already showed this state or a newer one
                self.state_version = envelope["version"]
            frames.append(frame)
        if envelope.get("last") is not None:
            self.cursor = max(self.cursor, envelope["last"])
        await self._emit(frames)

    async def _check_roster(self, envelope: dict[str, Any]) -> None:
        if self.user_id is None:
            return
        mine = next((no for no, user in envelope["seats"] if user == self.user_id), None)
        if mine != self.viewer:
            await self._catch_up()

    # -- reading the database ----------------------------------------------------------

    async def _catch_up(
        self, *, full_log: bool = False, cues: list[dict[str, Any]] | None = None
    ) -> None:
        """Send what the database has beyond the cursor (or the whole log), then the state."""
        snap = await self._sync_viewer(after=0 if full_log else self.cursor)
        if snap is None:
            return
        frames: list[dict[str, Any]] = [
            {"type": "message", "message": m} for m in snap.messages if m["id"] > self.cursor
        ]
        if full_log:
            # The new lines came as `message` frames (API.md); `log` then gives the older
            # lines as they are seen now, for a client that shows the whole log.
            frames.append({"type": "log", "messages": snap.messages})
        self.cursor = max(self.cursor, snap.last)
        await self._emit(frames + (cues or []))
        await self._emit_state(snap)

    async def _sync_viewer(self, *, after: int) -> Snapshot | None:
        """A snapshot for the user's current viewer, moving this socket to its group first."""
        snap = await self._snapshot(after=after)
        for _ in range(3):
            if snap is None or snap.viewer == self.viewer:
                return snap
            # The user sat, left or was kicked: hear the new viewer's group before
            # reading again, so that no push falls between the read and the move.
            await self._move_to(snap.viewer)
            snap = await self._snapshot(after=after)
        return snap

    async def _snapshot(self, *, after: int) -> Snapshot | None:
        snap = await in_thread(read_snapshot)(self.village_id, self.user_id, after=after)
        if snap is None:
            await self._fail(CLOSE_NOT_FOUND, "not_found", "村が見つかりません。")
        return snap

    async def _move_to(self, viewer: int | None) -> None:
        old = viewer_group(self.village_id, self.viewer)
        await self._join(viewer_group(self.village_id, viewer))
        if old in self.groups:
            self.groups.remove(old)
            await self.channel_layer.group_discard(old, self.channel_name)
        self.viewer = viewer
        self.state_version = -1  # the new viewer's state is due, whatever its version

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        if group not in self.groups:
            self.groups.append(group)  # the base class leaves self.groups on disconnect

    async def _identify(self, token: str) -> bool:
        if token:
            user = await in_thread(user_for_token)(token)
            if user is None:
                return False
        else:
            user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
        return True

    # -- holding pushes until the client has said where it stands ----------------------

    async def _release_later(self) -> None:
        await asyncio.sleep(self.HOLD_SECONDS)
        async with self._lock:
            await self._release()

    async def _release(self) -> None:
        held, self.held = self.held, None
        if held is None:
            return
        if self._hold_task is not None and self._hold_task is not asyncio.current_task():
            self._hold_task.cancel()
        for message in held:
            await self._apply(message)

    # -- server -> client --------------------------------------------------------------

    async def _emit_state(self, snap: Snapshot) -> None:
        if snap.version >= self.state_version:
            self.state_version = snap.version
            await self._emit([{"type": "state", "state": snap.state}])

    async def _emit(self, frames: list[dict[str, Any]]) -> None:
        if self._closed:
            return
        for frame in frames:
            await self.send_json(frame)

    async def _error(self, code: str, message: str) -> None:
        await self._emit([{"type": "error", "error": {"code": code, "message": message}}])

    async def _fail(self, close_code: int, code: str, message: str) -> None:
        await self._error(code, message)
        self._closed = True
        await self.close(code=close_code)

    @classmethod
    async def encode_json(cls, content: dict[str, Any]) -> str:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None
