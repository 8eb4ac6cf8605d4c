"""What both village sockets share: the ASGI WebSocket dialogue, who is watching, the
turn-taking between the client's frames and the pushes, and reads.

A socket is an ASGI application of its own (the ASGI WebSocket protocol: `websocket.connect`,
`.receive`, `.disconnect` in; `.accept`, `.send`, `.close` out), routed by channels'
`URLRouter`. It does not hear the channel layer itself: it registers with its event
loop's hub (`villages.consumers.hub`), which hands it, in-process, what each change of
the village means to its viewer, its user's ban notices, and signals (read again: the
user moved seats; read everything: the hub could not follow). Two loops run per socket:
the client's frames, and what the hub hands it. What they touch is guarded by one lock,
and pushes are held until the socket knows where its client stands
(`villages.consumers.session`).

Who is watching: `?token=<API token>`, else the session's user (`jinro_site.websocket`);
the viewer is that user's seat in the village, else a spectator. Every frame it sends was
worked out for its viewer by the hub, or read here through the selectors: from the
engine's visibility function.
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
from django.conf import settings

from accounts.bans import notice_for, user_may_log_in
from accounts.services import user_for_token
from villages.consumers.hub import Hub, LayerAway
from villages.consumers.session import Push, Session
from villages.groups import USER_CHANGED, VILLAGE_CATCH_UP, VILLAGE_RELOAD, encode
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
    the flavour: the first read, pushes, catch-ups, client frames."""

    HOLD_SECONDS = 0.5
    INBOX_LIMIT = 200  # handed over and not yet handled: past it, read everything again
    flavour = ""

    def __init__(self, scope: dict[str, Any], send: Any) -> None:
        super().__init__(send)
        self.scope = scope
        self.query = query_of(scope)
        self.village_id = int(scope["url_route"]["kwargs"]["village_id"])
        self.user_id: int | None = None
        self.session = Session()
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.hub: Hub | None = None
        self.lock = asyncio.Lock()
        self.hold_task: asyncio.Future[None] | None = None
        self.limiter = TokenBucket(settings.JINRO_WS_BURST, settings.JINRO_WS_PER_MINUTE)
        self.refused = 0

    @property
    def viewer(self) -> int | None:
        return self.session.viewer

    def deliver(self, message: Any) -> None:
        """What the hub hands this socket, for its listening loop (never blocks). A socket
        that fell that far behind reads everything again instead."""
        if self.inbox.qsize() >= self.INBOX_LIMIT:
            while not self.inbox.empty():
                self.inbox.get_nowait()
            message = {"type": VILLAGE_RELOAD}
        self.inbox.put_nowait(message)

    # -- the ASGI dialogue ----------------------------------------------------------------

    async def run(self, receive: Any) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        # Accepted first: a refusal (a close code and its reason) reaches the client only
        # on an accepted socket (one closed before is an HTTP 403 whatever the reason).
        await self.asgi_send({"type": "websocket.accept"})
        listening = asyncio.ensure_future(self.or_close(self.listen))
        try:
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
            if self.hub is not None:
                await self.hub.unwatch(self)

    async def listen(self) -> None:
        while True:
            message = await self.inbox.get()
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
        """Who is watching, the hub's ear, then the flavour's first read."""
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
        self.session.viewer, self.session.user = seat, self.user_id
        hub = Hub.here()
        try:
            await hub.watch(self)  # before the first read: no change falls between
        except LayerAway as away:
            logger.warning("village %s: channel layer unavailable: %s", self.village_id, away)
            await self.refuse(CLOSE_TRY_AGAIN, "layer_away")
            return
        self.hub = hub
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

    async def start(self, after: int | None) -> None:
        """The first read, once the socket hears its groups (under the lock)."""
        raise NotImplementedError

    async def place(self, push: Push) -> None:
        """A push of the socket's flavour, once released (under the lock)."""
        raise NotImplementedError

    async def catch_up(self) -> None:
        """Send what the database has beyond what the socket sent (under the lock)."""
        raise NotImplementedError

    async def reload(self) -> None:
        """Send everything again, as the database has it (under the lock)."""
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

    async def apply(self, message: Any) -> None:
        if isinstance(message, Push):
            await self.place(message)
            return
        kind = message["type"]
        if kind == VILLAGE_CATCH_UP:
            await self.catch_up()  # the user sat, left or was kicked: as the new viewer
        elif kind == USER_CHANGED:
            await self.check_standing()
        elif kind == VILLAGE_RELOAD:
            await self.reload()

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
        self.session.moved_to(viewer)


def _standing(user_id: int) -> tuple[bool, str]:
    """(the user may still log in, the notice of a ban in force or "")."""
    return user_may_log_in(user_id), notice_for(user_id)
