"""WebSocket endpoint of a village: `/ws/villages/<id>/` (API.md, "WebSocket").

Who is watching: the session's user (`jinro_site.wsorigin.SessionUser`) or `?token=<API
token>`; the viewer is that user's seat in the village, else a spectator. The socket
joins only its viewer's group (`villages.groups`), the village's roster signal and its
user's group, and relays what `villages.services.push` computed for that viewer. Every
frame, pushed or read here from the database, comes from `villages.selectors` /
`villages.screenview`, i.e. from the engine's visibility function: a socket carries
nothing its user may not see at that moment, and nothing at all for a change it may not
see.

Two flavours share one endpoint:

**API.md's JSON frames** (the default; bots and clients). Server → client: `state`
`{"state": State}`, `message` `{"message": Message}`, `objection` `{"seat_no"}`, `revote`
`{"day", "round"}`, `dawn` `{"day"}`, `game_over` `{"winner"}`; extras: `alert`
`{"seconds_left"}` (the sudden-death warning sound); `log` `{"messages": [Message]}` — what
the viewer may see has widened (its death, the end of the game): after the commit's own
lines (sent as `message` frames), the whole log as the viewer now sees it; `hidden`
`{"id"}` and `shown` `{"message"}` — the staff hid a line, or showed it again; `error`
`{"error": {"code", "message"}}` (before the server closes the socket: 4401 bad token,
4403 the account was banned from logging in, 4404 no such village; or `banned`, when the
user's account was banned from playing or talking; 4429 the client kept sending faster
than a socket may, see below).

Client → server: `{"type": "resume", "after": <last message id>}` sends every visible
message with a larger id, in order, before any new one (send it first, right after the
socket opens: until the first client frame, or HOLD_SECONDS, pushed frames are held so
that nothing new overtakes the missed ones). `?after=<id>` on the URL does the same at
connection time. The catch-up is read a page (`RESUME_PAGE` lines) at a time, the socket
sending each page before reading the next, so that one resume is never one long read.

What a socket may send is limited (unless JINRO_RATE_LIMIT_ENABLED is off): a burst of
`JINRO_WS_BURST` frames, then `JINRO_WS_PER_MINUTE` a minute. A frame beyond that is
answered `error` `rate_limited` and otherwise ignored; a client that goes on regardless
(`JINRO_WS_BURST` refused frames in a row) is closed with 4429.

**The game screen** (`?screen=1`, `static/villages/js/jinro.js`): HTML drawn by the site's
templates (`villages.views.parts`), one frame `{"type": "screen", ...}` per change:
`parts` `[[id, html, digest]]` (elements to replace by id), `lines` `[[id, pane, phase,
html]]` (new lines of the log or the heaven pane), `hide` `[id]`, `restore` (lines shown
again, like `lines`), `cues` `[{"kind", "text"}]` (sounds and the cue box) and `marks` (a
fingerprint of the hidden lines this viewer could see, `selectors.log_marks`). The client's
first frame is `{"type": "hello", "after", "parts": {id: digest}, "marks", "lang"}`: what
its page shows, from which the socket sends only what differs; it sends the same again
after a reconnection.

Ordering: the socket tracks `cursor`, the line number (`villages.line_numbers`: what its
viewer knows lines by, which tells nothing of the lines it may not see) up to which it has
handled every line. A pushed line at or below the cursor is a
duplicate and skipped; a push whose preceding visible line is above the cursor reveals a
lost or overtaken push (Redis restarted, another node's push arrived first), and the gap
is read from the database before going on. After the layer reconnects to Redis the socket
also catches up from the database, so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connections
from django.utils import translation

from jinro_site.wire import Wire
from villages.groups import (
    USER_CHANGED,
    VILLAGE_EVENTS,
    VILLAGE_ROSTER,
    VILLAGE_SCREEN,
    encode,
    roster_group,
    screen_group,
    user_group,
    viewer_group,
)
from villages.services.errors import Banned, RateLimited

logger = logging.getLogger(__name__)

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_BANNED = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN = 1013
CLOSE_FLOODING = 4429
NOTHING = 1 << 62  # an `after` that reads no line: the state alone
RESUME_PAGE = 200  # lines read at a time by a resume
RATE_LIMITED = RateLimited.default_message
_NOT_CUES = frozenset({"message", "state", "shown", "hidden"})
_NOBODY = object()
LANGUAGES = {code for code, _name in settings.LANGUAGES}


@dataclass
class Snapshot:
    """What the database says now, for one user of one village."""

    viewer: int | None
    version: int
    last: int  # the number of the viewer's last line when read
    state: dict[str, Any]
    messages: list[dict[str, Any]]  # visible lines with after < id <= last
    standing: Any = None  # the user's bans and kick (screens only)
    complete: bool = True  # False: a page of the lines, more after `last`


@dataclass
class Screen:
    """A screen's view drawn now: every part, the lines after a point, maybe the logs."""

    viewer: int | None
    version: int
    last: int
    parts: dict[str, tuple[str, str]]  # id -> (html, digest)
    lines: list[list[Any]]  # [id, pane, phase, html]
    marks: str
    local: Any  # villages.views.standing.Local: what the screen knows of its person
    send: set[str]  # the parts a client receives (a player list stands for its rows)
    logs: dict[str, tuple[str, str]] = field(default_factory=dict)


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


def read_snapshot(
    village_id: int, user_id: int | None, *, after: int, page: int | None = None
) -> Snapshot | None:
    """The user's viewer, state and visible lines after `after` (None: no such village);
    with `page`, of the next `page` lines only (`last` is then the last line read)."""
    from villages import line_numbers
    from villages.models import Message
    from villages.selectors import View, state_dict, visible_messages
    from villages.snapshots import snapshot_of

    loaded = snapshot_of(village_id)
    if loaded is None:
        return None
    village, state = loaded.village, loaded.state
    row = loaded.seat_of_user(user_id)
    viewer = row.seat_no if row is not None else None
    last = line_numbers.last_number(village, state, viewer)  # the viewer's, in this version
    messages: list[Any] = []
    complete = True
    if last > after:
        start = line_numbers.row_after(village, state, viewer, after)
        lines = Message.objects.filter(
            village_id=village_id, hidden=False, id__gt=start, id__lte=village.last_line
        ).order_by("id")
        while True:
            rows = list(lines[:page]) if page is not None else list(lines)
            messages += visible_messages(village, state, viewer, rows)
            if page is None or len(rows) < page or rows[-1].pk >= village.last_line:
                break
            if len(messages) >= page:  # a page of lines this viewer sees: more after it
                last, complete = messages[-1]["id"], False
                break
            lines = lines.filter(id__gt=rows[-1].pk)  # lines it may not see: read on
    return Snapshot(
        complete=complete,
        viewer=viewer,
        version=village.version,
        last=last,
        state=state_dict(View(loaded, viewer)),
        messages=messages,
    )


def read_screen(
    village_id: int, user_id: int | None, *, after: int, lang: str, logs: bool
) -> Screen | None:
    """The user's screen as it should be now: every part, and the lines after `after`."""
    from villages import line_numbers
    from villages.models import Message
    from villages.screenview import line_input, parts_of, speakers
    from villages.selectors import View, log_marks, visible_messages
    from villages.snapshots import snapshot_of
    from villages.views import parts as render
    from villages.views.screen import log_parts
    from villages.views.standing import local_for

    loaded = snapshot_of(village_id)
    if loaded is None:
        return None
    village = loaded.village
    row = loaded.seat_of_user(user_id)
    viewer = row.seat_no if row is not None else None
    last = line_numbers.last_number(village, loaded.state, viewer)
    view = View(loaded, viewer)
    with translation.override(lang):
        local = local_for(user_id, loaded)
        parts = parts_of(view)
        drawn = render.render_parts(parts, parts, local)
        screen = Screen(
            viewer=viewer,
            version=loaded.village.version,
            last=last,
            parts={k: (html, render.digest(html)) for k, html in drawn.items()},
            send=set(render.to_send(drawn)) | set(render.LOGS),
            lines=[],
            marks=log_marks(loaded, viewer),
            local=local,
        )
        if last > after:
            start = line_numbers.row_after(village, loaded.state, viewer, after)
            rows = Message.objects.filter(
                village_id=village_id, hidden=False, id__gt=start, id__lte=village.last_line
            ).order_by("id")
            who = speakers(loaded)
            ended = loaded.state.phase.value == "ended"
            for m in visible_messages(village, loaded.state, viewer, rows):
                line = line_input(m, who, ended=ended)
                screen.lines.append(
                    [m["id"], line["into"], render.phase_key(m), render.line_html(line)]
                )
        if logs:
            for part_id, html in log_parts(view).items():
                screen.logs[part_id] = (html, render.digest(html))
    return screen


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


def user_standing(user_id: int) -> tuple[bool, str]:
    """(the user may still log in, the notice of a ban in force or "")."""
    from accounts.bans import notice_for, user_may_log_in

    return user_may_log_in(user_id), notice_for(user_id)


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
        # Pushes are held until the socket knows where its client stands (see below).
        self.held: list[dict[str, Any]] | None = []
        self._lock = asyncio.Lock()
        self._hold_task: asyncio.Future[None] | None = None
        self._closed = False
        self._tokens, self._stamp, self._refused = float(settings.JINRO_WS_BURST), 0.0, 0
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        self.screen = query.get("screen", [""])[0] == "1"
        # The screen's own view of what its page shows.
        self.lang = settings.LANGUAGE_CODE
        self.shown: dict[str, str] = {}
        self.part_versions: dict[str, int] = {}
        self.marks = ""

        await self.accept()
        try:
            identified = await self._identify(query.get("token", [""])[0])
        except Banned as banned:  # a token whose user is banned from logging in
            await self._fail(CLOSE_BANNED, banned.code, banned.message)
            return
        if not identified:
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
            if self.user_id is not None:
                await self._join(user_group(self.user_id))
            await self._join(self._group(seat))
        except Exception:
            logger.warning("village %s: channel layer unavailable", self.village_id, exc_info=True)
            self._closed = True
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        self.viewer = seat
        after = _int(query.get("after", [None])[0])
        async with self._lock:
            if self.screen:
                # The page says what it shows in its first frame; until then, hold.
                self._hold_task = asyncio.ensure_future(self._or_close(self._release_later()))
                return
            snap = await self._sync_viewer(after=NOTHING if after is None else after)
            if snap is None:
                return
            await self._emit_state(snap)
            if after is None:
                self.cursor = self.anchor = snap.last
                self._hold_task = asyncio.ensure_future(self._or_close(self._release_later()))
            else:
                self.anchor = after
                self.cursor = max(after, snap.last)
                await self._emit([{"type": "message", "message": m} for m in snap.messages])
                await self._release()

    def _group(self, viewer: int | None) -> str:
        if self.screen:
            return screen_group(self.village_id, viewer)
        return viewer_group(self.village_id, viewer)

    async def disconnect(self, code: int) -> None:
        self._closed = True
        if self._hold_task is not None:
            self._hold_task.cancel()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """channels' consumer loop, leaner: the client's frames and the channel layer's
        messages are read by a loop each, instead of a new wait on both (and a new task)
        for every message; what they touch is guarded by `_lock`, and pushes are held
        until the connection knows its viewer. (One pushed line reaches many sockets: this
        is the screen's cost per socket.)"""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.base_send = send
        self.wire = Wire(send)
        take_at_once = getattr(self.channel_layer, "take_at_once", None)
        if take_at_once is not None and self.wire.connection is not None:
            take_at_once(self.channel_name, self.screen_at_once)

        async def from_layer() -> None:
            while True:
                await self.dispatch(await self.channel_layer.receive(self.channel_name))

        layer = asyncio.ensure_future(self._or_close(from_layer()))
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass
        finally:
            if take_at_once is not None:
                self.channel_layer.let_go(self.channel_name)
            layer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await layer

    async def _or_close(self, work: Coroutine[Any, Any, None]) -> None:
        """Work the socket does beside its client's frames (pushes, a held release). If it
        fails, the log says why and the socket is closed (1011), so that its client
        connects again and catches up: a socket whose pushes stopped must not look alive."""
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception:
            village = getattr(self, "village_id", "?")
            logger.exception("village %s: a socket's pushes failed", village)
            with contextlib.suppress(Exception):
                await self.close(code=1011)

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
        if not self._may_receive():
            self._refused += 1
            if self._refused >= settings.JINRO_WS_BURST:
                await self._fail(CLOSE_FLOODING, "rate_limited", RATE_LIMITED)
            else:
                await self._error("rate_limited", RATE_LIMITED)
            return
        self._refused = 0
        try:
            content = json.loads(text_data or "")
        except ValueError:
            content = None
        async with self._lock:
            kind = content.get("type") if isinstance(content, dict) else None
            after = _int(content.get("after")) if kind in ("resume", "hello") else None
            if kind == "hello" and self.screen:
                await self._hello(after, content)
            elif after is not None:
                await self._resume(after)  # before anything held: the missed lines first
            await self._release()
            if kind is None:
                await self._error("bad_request", "JSON のオブジェクトを送ってください。")
            elif kind == "resume" and after is None:
                await self._error("bad_request", "after にメッセージ ID を指定してください。")
            elif kind not in ("resume", "ping", "hello"):
                await self._error("bad_request", "未知の type です。")

    def _may_receive(self) -> bool:
        """A token bucket: JINRO_WS_BURST frames at once, JINRO_WS_PER_MINUTE after."""
        if not settings.JINRO_RATE_LIMIT_ENABLED:
            return True
        now = time.monotonic()
        burst = settings.JINRO_WS_BURST
        refill = (now - self._stamp) * settings.JINRO_WS_PER_MINUTE / 60
        self._tokens, self._stamp = min(burst, self._tokens + refill), now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    async def _resume(self, after: int) -> None:
        """Every visible line after `after` not yet sent on this socket, in order, read
        and sent a page at a time."""
        sent_from, sent_to = self.anchor, self.cursor  # this socket covered (from, to]
        self.anchor = min(self.anchor, after)
        # What it covered is not read again: a resume repeated costs the state alone.
        start = after if after < sent_from else max(after, sent_to)
        while True:
            snap = await self._sync_viewer(after=start, page=RESUME_PAGE)
            if snap is None:
                return
            lines = [m for m in snap.messages if not sent_from < m["id"] <= sent_to]
            await self._emit([{"type": "message", "message": m} for m in lines])
            if snap.complete:
                break
            start = snap.last if not sent_from < snap.last < sent_to else sent_to
        self.cursor = max(self.cursor, snap.last, after)
        await self._emit_state(snap)

    async def _hello(self, after: int | None, content: dict[str, Any]) -> None:
        """A page (or a pane of it) says what it shows: send it what differs from now,
        and the lines after its last one (`after`; None for a page without a log)."""
        lang = content.get("lang")
        if isinstance(lang, str) and lang in LANGUAGES:
            self.lang = lang
        shown = content.get("parts")
        if isinstance(shown, dict):
            self.shown.update({str(k): str(v) for k, v in shown.items()})
        if isinstance(content.get("marks"), str):
            self.marks = content["marks"]
        await self._redraw(after=after)

    # -- channel layer -> server -------------------------------------------------------

    async def village_events(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def village_screen(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def village_roster(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def user_changed(self, envelope: dict[str, Any]) -> None:
        await self._handle(envelope)

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """The channel layer lost pushes to this socket (Redis was away, or the socket's
        queue was full): catch up from the database."""
        await self._handle(message)

    async def _handle(self, message: dict[str, Any]) -> None:
        async with self._lock:
            if self.held is not None:
                self.held.append(message)
            else:
                await self._apply(message)

    async def _apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == VILLAGE_EVENTS:
            await self._place(message)
        elif kind == VILLAGE_SCREEN:
            await self._place_screen(message)
        elif kind == VILLAGE_ROSTER:
            await self._check_roster(message)
        elif kind == USER_CHANGED:
            await self._check_standing()
        else:
            await self._catch_up()

    async def _place(self, envelope: dict[str, Any]) -> None:
        if envelope.get("viewer") != self.viewer:
            return  # queued for the group this socket has just left
        if self.viewer is not None and envelope.get("user") != self.user_id:
            await self._catch_up()  # the seat number now belongs to someone else
            return
        frames = envelope["frames"]  # [type, message id, encoded frame]
        if envelope.get("widen"):
            cues = [text for kind, _id, text in frames if kind not in _NOT_CUES]
            await self._catch_up(full_log=True, cue_texts=cues)
            return
        prev = envelope.get("prev")
        if prev is not None and prev > self.cursor:
            await self._catch_up()  # a push before this one never arrived (yet)
        texts = []
        for kind, message_id, text in frames:
            if kind == "message":
                if message_id <= self.cursor:
                    continue  # sent already (read from the database)
            elif kind == "state":
                if envelope["version"] <= self.state_version:
                    continue  # the socket already showed this state or a newer one
                self.state_version = envelope["version"]
            texts.append(text)
        if envelope.get("last") is not None:
            self.cursor = max(self.cursor, envelope["last"])
        await self._send_texts(texts)

    async def _place_screen(self, envelope: dict[str, Any]) -> None:
        user = next((u for v, u in envelope["viewers"] if v == self.viewer), _NOBODY)
        if user is _NOBODY:
            return  # queued for the group this socket has just left
        if self.viewer is not None and user != self.user_id:
            await self._redraw()  # the seat number now belongs to someone else
            return
        drawn = self._draw(envelope)
        if envelope["widen"]:
            await self._redraw(logs=True, cue_texts=drawn["cues"])
            return
        prev = envelope["prev"]
        if prev is not None and prev > self.cursor:
            await self._redraw()  # a push before this one never arrived (yet)
        await self._send_texts(self._screen_texts(envelope, drawn))

    def screen_at_once(self, message: dict[str, Any]) -> bool:
        """A screen push handled as the channel layer hands it out, without a turn of this
        socket's task: the usual case of one pushed line, for every screen of a village in
        one pass (`InMemoryChannelLayer.take_at_once`). The layer calls it only when this
        socket has nothing queued; False when the push needs more than a write (a redraw,
        a catch-up, a socket not yet released or busy): then it is queued as any other."""
        if (
            message.get("type") != VILLAGE_SCREEN
            or self._closed
            or self.held is not None
            or self._lock.locked()
            or not self.wire.open
            or message["widen"]
        ):
            return False
        user = next((u for v, u in message["viewers"] if v == self.viewer), _NOBODY)
        if user is _NOBODY:
            return True  # sent to the group this socket has just left: nothing to do
        prev = message["prev"]
        if (self.viewer is not None and user != self.user_id) or (
            prev is not None and prev > self.cursor
        ):
            return False
        for text in self._screen_texts(message, self._draw(message)):
            self.wire.text_now(text)
        return True

    def _screen_texts(self, envelope: dict[str, Any], drawn: dict[str, Any]) -> list[str]:
        """What of a drawn delta this socket's page lacks, as the texts to send; the socket
        counts it as shown."""
        version = envelope["version"]
        fresh = [
            part
            for part in drawn["parts"]
            if version > self.part_versions.get(part[0], -1) and self.shown.get(part[0]) != part[2]
        ]
        lines = [line for line in drawn["lines"] if line[0] > self.cursor]
        if envelope["last"] is not None:
            self.cursor = max(self.cursor, envelope["last"])
        for part_id, _html, digest, _send in fresh:
            self.part_versions[part_id] = version
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

    def _draw(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The delta rendered in this socket's language, once per process (see `_DRAWN`)."""
        key = (envelope["key"], self.lang, self.local)
        drawn = _DRAWN.get(key)
        if drawn is None:
            drawn = _DRAWN[key] = _render_delta(json.loads(envelope["blob"]), self.lang, self.local)
            while len(_DRAWN) > 2000:
                _DRAWN.pop(next(iter(_DRAWN)))
        return drawn

    async def _check_roster(self, envelope: dict[str, Any]) -> None:
        if self.user_id is None:
            return
        mine = next((no for no, user in envelope["seats"] if user == self.user_id), None)
        if mine != self.viewer:
            await self._catch_up()

    async def _check_standing(self) -> None:
        """A ban (or its end): log-in bans close the socket; others are shown."""
        if self.user_id is None:
            return
        may_log_in, notice = await in_thread(user_standing)(self.user_id)
        if not may_log_in:
            await self._fail(CLOSE_BANNED, "banned", notice or "このアカウントは利用停止中です。")
            return
        if self.screen:
            await self._redraw()
        elif notice:
            await self._error("banned", notice)

    # -- reading the database ----------------------------------------------------------

    async def _catch_up(
        self, *, full_log: bool = False, cue_texts: list[str] | None = None
    ) -> None:
        """Send what the database has beyond the cursor (or the whole log), then the state;
        `cue_texts` (encoded frames) after the lines."""
        if self.screen:
            await self._redraw(logs=full_log)
            return
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
        await self._emit(frames)
        await self._send_texts(cue_texts or [])
        await self._emit_state(snap)

    async def _redraw(
        self,
        *,
        logs: bool = False,
        cue_texts: list[dict[str, str]] | None = None,
        after: int | None = -1,
    ) -> None:
        """Draw the screen as the database has it, and send what differs from the page:
        its parts, and its lines after `after` (the cursor by default; None: no lines);
        `cue_texts`, cues drawn already, go with them."""
        since = self.cursor if after == -1 else (NOTHING if after is None else after)
        screen = await self._screen(logs=logs, after=since)
        if screen is None:
            return
        if screen.marks != self.marks and not screen.logs:
            # Lines were hidden or shown while the socket was away: the logs again.
            screen = await self._screen(logs=True, after=since) or screen
        frame: dict[str, Any] = {"type": "screen"}
        parts = []
        for part_id, (html, digest) in {**screen.parts, **screen.logs}.items():
            if self.shown.get(part_id) == digest:
                continue
            self.shown[part_id] = digest
            if part_id in screen.send:
                parts.append([part_id, html, digest])
        for part_id in screen.parts:
            self.part_versions[part_id] = screen.version
        if parts:
            frame["parts"] = parts
        if not screen.logs and screen.lines:
            # A page that was drawn anew may lack lines this socket sent to the old one:
            # all of them after its own last (the page skips those it has).
            frame["lines"] = screen.lines
        self.cursor = max(self.cursor, screen.last)
        if cue_texts:
            frame["cues"] = cue_texts
        if screen.marks != self.marks:
            frame["marks"] = self.marks = screen.marks
        if len(frame) > 1:
            await self._emit([frame])

    async def _screen(self, *, logs: bool, after: int) -> Screen | None:
        for _ in range(3):
            screen = await in_thread(read_screen)(
                self.village_id, self.user_id, after=after, lang=self.lang, logs=logs
            )
            if screen is None:
                await self._fail(CLOSE_NOT_FOUND, "not_found", "村が見つかりません。")
                return None
            self.local = screen.local
            if screen.viewer == self.viewer:
                return screen
            # The user sat, left or was kicked: hear the new viewer's group before
            # reading again, so that no push falls between the read and the move.
            await self._move_to(screen.viewer)
            logs = True
        return screen

    async def _sync_viewer(self, *, after: int, page: int | None = None) -> Snapshot | None:
        """A snapshot for the user's current viewer, moving this socket to its group first."""
        snap = await self._snapshot(after=after, page=page)
        for _ in range(3):
            if snap is None or snap.viewer == self.viewer:
                return snap
            # The user sat, left or was kicked: hear the new viewer's group before
            # reading again, so that no push falls between the read and the move.
            await self._move_to(snap.viewer)
            snap = await self._snapshot(after=after, page=page)
        return snap

    async def _snapshot(self, *, after: int, page: int | None = None) -> Snapshot | None:
        snap = await in_thread(read_snapshot)(self.village_id, self.user_id, after=after, page=page)
        if snap is None:
            await self._fail(CLOSE_NOT_FOUND, "not_found", "村が見つかりません。")
        return snap

    async def _move_to(self, viewer: int | None) -> None:
        old = self._group(self.viewer)
        await self._join(self._group(viewer))
        if old in self.groups:
            self.groups.remove(old)
            await self.channel_layer.group_discard(old, self.channel_name)
        self.viewer = viewer
        self.state_version = -1  # the new viewer's state is due, whatever its version
        self.part_versions = {}

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        if group not in self.groups:
            self.groups.append(group)  # the base class leaves self.groups on disconnect

    async def _identify(self, token: str) -> bool:
        from villages.views.standing import Local

        if token:
            user = await in_thread(user_for_token)(token)
            if user is None:
                return False
        else:
            user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
        self.local = Local(authenticated=self.user_id is not None)
        return True

    # -- holding pushes until the client has said where it stands ----------------------

    async def _release_later(self) -> None:
        await asyncio.sleep(self.HOLD_SECONDS)
        async with self._lock:
            if self.screen and self.held is not None:
                await self._redraw(after=None)  # a screen that never said what it shows
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

    async def _send_texts(self, texts: list[str]) -> None:
        """Frames encoded already (by the push, or once for every socket of a delta): framed
        once for every socket that sends them (`jinro_site.wire`)."""
        if self._closed:
            return
        for text in texts:
            await self.wire.text(text)

    async def _error(self, code: str, message: str) -> None:
        await self._emit([{"type": "error", "error": {"code": code, "message": message}}])

    async def _fail(self, close_code: int, code: str, message: str) -> None:
        await self._error(code, message)
        self._closed = True
        await self.close(code=close_code)

    @classmethod
    async def encode_json(cls, content: dict[str, Any]) -> str:
        return encode(content)


# Deltas rendered in this process: (delta key, language, Local) -> parts, lines, cues. The
# viewers who see a commit alike share one delta, rendered here once for all their sockets.
_DRAWN: dict[Any, dict[str, Any]] = {}


def _render_delta(delta: dict[str, Any], lang: str, local: Any) -> dict[str, Any]:
    """A delta drawn in `lang` for a socket whose person is `local`: its parts (with their
    digests, and whether a client receives them), lines, cues, and the whole frame encoded
    for the sockets that take it as it is."""
    from villages.views import parts as render

    def lines(inputs: list[dict[str, Any]]) -> list[list[Any]]:
        return [
            [
                line["message"]["id"],
                line["into"],
                render.phase_key(line["message"]),
                render.line_html(line),
            ]
            for line in inputs
        ]

    with translation.override(lang):
        parts = delta.get("parts") or {}
        drawn = render.render_parts(parts, parts, local)
        sent = set(render.to_send(drawn))
        out: dict[str, Any] = {
            "parts": [[k, html, render.digest(html), k in sent] for k, html in drawn.items()],
            "lines": lines(delta.get("lines") or []),
            "restore": lines(delta.get("restore") or []),
            "hide": list(delta.get("hide") or []),
            "cues": [render.cue_text(c) for c in delta.get("cues") or []],
            "marks": delta.get("marks"),
        }
    frame: dict[str, Any] = {"type": "screen"}
    shown = [[k, html, digest] for k, html, digest, send in out["parts"] if send]
    if shown:
        frame["parts"] = shown
    for name in ("lines", "restore", "hide", "cues", "marks"):
        if out[name]:
            frame[name] = out[name]
    out["text"] = encode(frame) if len(frame) > 1 else ""
    return out


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None
