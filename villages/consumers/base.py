"""What both village sockets share: the ASGI WebSocket dialogue, who is watching, the
groups heard, the turn-taking between the client's frames and the pushes, and reads.

A socket is an ASGI application of its own (the ASGI WebSocket protocol: `websocket.connect`,
`.receive`, `.disconnect` in; `.accept`, `.send`, `.close` out), routed by channels'
`URLRouter`, and hears the channel layer through the layer API (`new_channel`, `receive`,
`group_add`, `group_discard`). Two loops run per socket: the client's frames, and the
layer's messages. What they touch is guarded by one lock, and pushes are held until the
socket knows where its client stands (`villages.consumers.session`).

Who is watching: `?token=<API token>`, else the session's user (`jinro_site.websocket`);
the viewer is that user's seat in the village, else a spectator. The socket hears three
groups (`villages.groups`): its viewer's own (in its flavour), the village's roster signal
and its user's. Every frame it sends was computed for its viewer by the push, or read here
through the selectors: from the engine's visibility function.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from accounts.bans import notice_for, user_may_log_in
from accounts.services import user_for_token
from villages.consumers.session import Session
from villages.groups import (
    USER_CHANGED,
    VILLAGE_EVENTS,
    VILLAGE_ROSTER,
    VILLAGE_SCREEN,
    encode,
    roster_group,
    user_group,
)
from villages.live_reads import resolve_viewer
from villages.services.errors import Banned
from villages.services.ratelimit import TokenBucket
from villages.wording import SOCKET_REFUSALS

logger = logging.getLogger(__name__)

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_BANNED = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_FAILED = 1011
CLOSE_TRY_AGAIN = 1013
CLOSE_FLOODING = 4429
NOTHING = 1 << 62  # an `after` that reads no line: the state alone

REFUSALS = SOCKET_REFUSALS

T = TypeVar("T")


def in_thread(func: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`func` for awaiting, in a thread of the loop's pool (beside other sockets' reads,
    not in the one thread that sync-to-async shares by default, where hundreds of sockets
    catching up at once would wait in one line); channels' helper closes the thread's
    stale database connections around it."""
    return database_sync_to_async(func, thread_sensitive=False)


def query_of(scope: dict[str, Any]) -> dict[str, list[str]]:
    return parse_qs(scope.get("query_string", b"").decode("latin-1"))


def whole_number(value: object) -> int | None:
    """A client's message number: a whole number ≥ 0, else None."""
    if isinstance(value, bool):
        return None
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


class ClientLink:
    """The ASGI WebSocket to the client: frames out, errors in API.md's shape, closing."""

    def __init__(self, send: Any) -> None:
        self.asgi_send = send
        self.closed = False

    async def send_texts(self, texts: list[str]) -> None:
        for text in texts:
            if self.closed:
                return
            await self.asgi_send({"type": "websocket.send", "text": text})

    async def send_frames(self, frames: list[dict[str, Any]]) -> None:
        await self.send_texts([encode(frame) for frame in frames])

    async def error(self, code: str, message: str) -> None:
        await self.send_frames([{"type": "error", "error": {"code": code, "message": message}}])

    async def refuse(self, close_code: int, refusal: str) -> None:
        await self.fail(close_code, *REFUSALS[refusal])

    async def fail(self, close_code: int, code: str, message: str) -> None:
        await self.error(code, message)
        await self.close(close_code)

    async def close(self, code: int) -> None:
        if self.closed:
            return
        self.closed = True
        await self.asgi_send({"type": "websocket.close", "code": code})


class VillageSocket(ClientLink):
    """One socket watching one village as one viewer (see the module). Subclasses give
    the flavour: the group of a viewer, the first read, pushes, catch-ups, client frames."""

    HOLD_SECONDS = 0.5

    def __init__(self, scope: dict[str, Any], send: Any) -> None:
        super().__init__(send)
        self.scope = scope
        self.query = query_of(scope)
        self.village_id = int(scope["url_route"]["kwargs"]["village_id"])
        self.user_id: int | None = None
        self.session = Session()
        self.layer = get_channel_layer()
        self.channel = ""
        self.groups: list[str] = []
        self.lock = asyncio.Lock()
        self.hold_task: asyncio.Future[None] | None = None
        self.limiter = TokenBucket(settings.JINRO_WS_BURST, settings.JINRO_WS_PER_MINUTE)
        self.refused = 0

    @property
    def viewer(self) -> int | None:
        return self.session.viewer

    # -- the ASGI dialogue ----------------------------------------------------------------

    async def run(self, receive: Any) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        try:
            self.channel = await self.layer.new_channel()
        except Exception as error:  # Redis is away: the client comes back later
            logger.warning("village %s: channel layer unavailable: %s", self.village_id, error)
            await self.asgi_send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
            return
        listening = asyncio.ensure_future(self.or_close(self.listen))
        try:
            await self.asgi_send({"type": "websocket.accept"})
            await self.open()
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    break
                if message["type"] == "websocket.receive" and not self.closed:
                    await self.client_frame(message.get("text"))
        finally:
            self.closed = True
            for task in (listening, self.hold_task):
                if task is not None:
                    task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listening
            for group in self.groups:
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(group, self.channel)

    async def listen(self) -> None:
        while True:
            message = await self.layer.receive(self.channel)
            async with self.lock:
                if not self.session.hold(message):
                    await self.apply(message)

    async def or_close(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Work the socket does beside its client's frames (pushes, a held release). If it
        fails, the log says why and the socket is closed (1011), so that its client
        connects again and catches up: a socket whose pushes stopped must not look alive."""
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("village %s: a socket's pushes failed", self.village_id)
            with contextlib.suppress(Exception):
                await self.close(CLOSE_FAILED)

    async def open(self) -> None:
        """Who is watching, which groups to hear, then the flavour's first read."""
        try:
            identified = await self.identify(self.query.get("token", [""])[0])
        except Banned as banned:  # a token whose user is banned from logging in
            await self.fail(CLOSE_BANNED, banned.code, banned.message)
            return
        if not identified:
            await self.refuse(CLOSE_NOT_AUTHENTICATED, "bad_token")
            return
        exists, seat = await in_thread(resolve_viewer)(self.village_id, self.user_id)
        if not exists:
            await self.refuse(CLOSE_NOT_FOUND, "not_found")
            return
        try:
            await self.join(roster_group(self.village_id))
            if self.user_id is not None:
                await self.join(user_group(self.user_id))
            await self.join(self.group_for(seat))
        except Exception:
            logger.warning("village %s: channel layer unavailable", self.village_id, exc_info=True)
            await self.close(CLOSE_TRY_AGAIN)
            return
        self.session.viewer, self.session.user = seat, self.user_id
        async with self.lock:
            await self.start(whole_number(self.query.get("after", [None])[0]))

    async def identify(self, token: str) -> bool:
        if token:
            user = await in_thread(user_for_token)(token)
            if user is None:
                return False
        else:
            user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.user_id = user.pk
        return True

    # -- the flavour's part ---------------------------------------------------------------

    def group_for(self, viewer: int | None) -> str:
        raise NotImplementedError

    async def start(self, after: int | None) -> None:
        """The first read, once the socket hears its groups (under the lock)."""
        raise NotImplementedError

    async def place(self, envelope: dict[str, Any]) -> None:
        """A push of the socket's flavour, once released (under the lock)."""
        raise NotImplementedError

    async def catch_up(self) -> None:
        """Send what the database has beyond what the socket sent (under the lock)."""
        raise NotImplementedError

    async def client_message(self, content: Any) -> None:
        """A client frame that passed the limits, parsed (None: not JSON; under the lock)."""
        raise NotImplementedError

    # -- client -> server -----------------------------------------------------------------

    async def client_frame(self, text: str | None) -> None:
        if settings.JINRO_RATE_LIMIT_ENABLED and not self.limiter.take(time.monotonic()):
            self.refused += 1
            if self.refused >= settings.JINRO_WS_BURST:
                await self.refuse(CLOSE_FLOODING, "rate_limited")
            else:
                await self.error(*REFUSALS["rate_limited"])
            return
        self.refused = 0
        try:
            content = json.loads(text or "")
        except ValueError:
            content = None
        async with self.lock:
            await self.client_message(content if isinstance(content, dict) else None)

    async def answer_unknown(self, kind: Any, *, after: int | None) -> None:
        """The refusals every flavour gives a frame it cannot take."""
        if kind is None:
            await self.error(*REFUSALS["not_json"])
        elif kind == "resume" and after is None:
            await self.error(*REFUSALS["no_after"])
        elif kind not in ("resume", "ping", "hello"):
            await self.error(*REFUSALS["unknown_type"])

    # -- channel layer -> server ----------------------------------------------------------

    async def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in (VILLAGE_EVENTS, VILLAGE_SCREEN):
            await self.place(message)
        elif kind == VILLAGE_ROSTER:
            mine = next((no for no, user in message["seats"] if user == self.user_id), None)
            if self.user_id is not None and mine != self.viewer:
                await self.catch_up()  # the user sat, left or was kicked
        elif kind == USER_CHANGED:
            await self.check_standing()
        else:  # the layer lost pushes to this socket (Redis was away, or a full queue)
            await self.catch_up()

    async def check_standing(self) -> None:
        """A ban (or its end): log-in bans close the socket; others are shown."""
        if self.user_id is None:
            return
        may_log_in, notice = await in_thread(_standing)(self.user_id)
        if not may_log_in:
            code, default = REFUSALS["banned_login"]
            await self.fail(CLOSE_BANNED, code, notice or default)
            return
        await self.standing_changed(notice)

    async def standing_changed(self, notice: str) -> None:
        if notice:
            await self.error("banned", notice)

    # -- holding pushes until the client says where it stands -----------------------------

    def hold_a_while(self) -> None:
        self.hold_task = asyncio.ensure_future(self.or_close(self._release_later))

    async def _release_later(self) -> None:
        await asyncio.sleep(self.HOLD_SECONDS)
        async with self.lock:
            if self.session.holding:
                await self.never_said()
            await self.release()

    async def never_said(self) -> None:
        """The client said nothing of where it stands within HOLD_SECONDS."""

    async def release(self) -> None:
        if not self.session.holding:
            return
        if self.hold_task is not None and self.hold_task is not asyncio.current_task():
            self.hold_task.cancel()
        for message in self.session.release():
            await self.apply(message)

    # -- moving between viewers ------------------------------------------------------------

    async def as_viewer(self, read: Callable[[], Awaitable[Any]]) -> Any:
        """`read()` for the user's current viewer: when the user sat, left or was kicked,
        hear the new viewer's group first, then read again, so that no push falls between
        the read and the move."""
        found = await read()
        for _ in range(3):
            if found is None or found.viewer == self.viewer:
                return found
            await self.move_to(found.viewer)
            found = await read()
        return found

    async def move_to(self, viewer: int | None) -> None:
        old = self.group_for(self.viewer)
        await self.join(self.group_for(viewer))
        if old in self.groups:
            self.groups.remove(old)
            await self.layer.group_discard(old, self.channel)
        self.session.moved_to(viewer)

    async def join(self, group: str) -> None:
        await self.layer.group_add(group, self.channel)
        if group not in self.groups:
            self.groups.append(group)


def _standing(user_id: int) -> tuple[bool, str]:
    """(the user may still log in, the notice of a ban in force or "")."""
    return user_may_log_in(user_id), notice_for(user_id)
