"""In-process sockets on the real ASGI application (channels' WebsocketCommunicator)."""

from __future__ import annotations

import asyncio
import io
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

ORIGIN = (b"origin", b"http://127.0.0.1")
# Every communicator a test opened, so that the socket is closed at the end of the test
# even where the test let the server close it (see `close_all`).
_OPENED: list[WebsocketCommunicator] = []
_LINE = re.compile(r'<div class="msg[^"]*" id="m(\d+)".*?</div>', re.S)
TIMEOUT = 10


@dataclass
class Socket:
    """A client socket that keeps every frame it received, in order."""

    communicator: WebsocketCommunicator
    frames: list[dict[str, Any]] = field(default_factory=list)

    async def receive(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        frame = await self.communicator.receive_json_from(timeout=timeout)
        self.frames.append(frame)
        return frame

    async def until_state(self, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """The frames of one push: everything up to and including its `state` frame."""
        return await self.until("state", timeout)

    async def until(self, kind: str, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """Everything up to and including the next frame of type `kind`."""
        batch = []
        while True:
            frame = await self.receive(timeout)
            batch.append(frame)
            if frame["type"] == kind:
                return batch

    async def quiet(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives until nothing has for `seconds`."""
        batch = []
        # Not a receive with a timeout: channels' communicator cancels the application
        # when one runs out.
        while not await self.communicator.receive_nothing(timeout=seconds):
            batch.append(await self.receive())
        return batch

    async def send(self, content: dict[str, Any]) -> None:
        await self.communicator.send_json_to(content)

    async def close(self) -> None:
        await self.communicator.disconnect()

    # -- what the frames carried ----------------------------------------------------------

    def messages(self) -> list[dict[str, Any]]:
        return [f["message"] for f in self.frames if f["type"] == "message"]

    def last_state(self) -> dict[str, Any]:
        return next(f["state"] for f in reversed(self.frames) if f["type"] == "state")

    def text(self) -> str:
        """Every frame as JSON: to check that a secret appears nowhere."""
        return json.dumps(self.frames, ensure_ascii=False)


def tracked(path: str, headers: list[tuple[bytes, bytes]]) -> WebsocketCommunicator:
    """A communicator on the site's ASGI application, closed by `close_all` at the end."""
    from jinro_site.asgi import application

    opened = WebsocketCommunicator(application, path, headers=headers)
    _OPENED.append(opened)
    return opened


async def close_all() -> None:
    """Disconnect every socket of the test whose consumer still runs, as a browser that
    goes away would. A consumer keeps running after it sent `websocket.close` until its
    client disconnects; left running, it is cancelled with the event loop, and a Redis
    channel layer's receive, cancelled together with its own helper tasks, could hang
    the test's teardown (seen in CI: 60 s, then a timeout)."""
    while _OPENED:
        opened = _OPENED.pop()
        # Through the communicator's documented methods only: a consumer that is over
        # takes the disconnect as nothing more (or raises what it died of, or its
        # cancellation if a receive's timeout cancelled it); one that does not stop
        # within TIMEOUT is cancelled by `disconnect` itself.
        try:
            await opened.disconnect(timeout=TIMEOUT)
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # this test's task, not the consumer
                raise
        except Exception:  # whatever it died of, the test has reported it
            pass


async def end_leftover_tasks(rounds: int = 40, pause: float = 0.25) -> None:
    """Cancel every other task of the test's event loop, again until each has ended.

    When pytest-asyncio closes a test's loop, asyncio cancels the tasks left in it once and
    waits for them without a limit. A task that loses that one cancellation (Python 3.11's
    `wait_for` returns the result instead when what it awaited finished at the same turn,
    and a library's retry or error loop may catch what the cancellation became) then runs
    on for good: CI saw a teardown wait its 60 s on PostgreSQL + Redis, the loop asleep
    between one-second retries. Cancelled again, such a task ends at its next wait. Tasks
    that needed it are named in a warning (so the run says where); a task that outlives
    every round fails the test with its stack instead of hanging the run."""
    me = asyncio.current_task()
    stubborn: dict[asyncio.Task[Any], str] = {}
    for n in range(rounds):
        left = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
        if not left:
            break
        if n == 1:
            stubborn = {task: _stack(task) for task in left}
        for task in left:
            task.cancel()
        await asyncio.wait(left, timeout=pause)
    else:
        left = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
        if left:
            stacks = "\n".join(_stack(task) for task in left)
            raise AssertionError(f"tasks that ignore cancellation:\n{stacks}")
    if stubborn:
        warnings.warn(
            "tasks that needed more than one cancellation at the end of the test:\n"
            + "\n".join(stubborn.values()),
            RuntimeWarning,
            stacklevel=1,
        )


def _stack(task: asyncio.Task[Any]) -> str:
    out = io.StringIO()
    task.print_stack(file=out)
    return out.getvalue()


async def hub_settled(village_id: int, timeout: float = TIMEOUT) -> None:
    """Until this process's hub has followed the village to its committed version and
    handed its sockets what that brought them (the hub hands out what a read brought in
    the same step as it counts the read, `villages.consumers.hub.Hub.follow`): after this,
    a socket's frames of the change are in flight or sent, and a short quiet tells the rest."""
    from villages.consumers import hub as hub_module
    from villages.models import Village

    version = await database_sync_to_async(
        lambda: Village.objects.values_list("version", flat=True).get(pk=village_id)
    )()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        hub = hub_module.HUBS.get(loop)
        watched = hub.villages.get(village_id) if hub is not None else None
        if watched is None:
            return  # no socket of this process watches it
        known = watched.known
        if known is not None and known.village.version >= version and not watched.wake.is_set():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the hub did not follow village {village_id} to version {version}")


async def connect(path: str, cookie: str | None) -> Socket:
    """A socket on `path` from the site's origin, with `cookie` if given."""
    headers = [ORIGIN]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    communicator = tracked(path, headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected, f"{path} refused the connection"
    return Socket(communicator)


async def open_socket(
    village_id: int,
    *,
    token: str | None = None,
    cookie: str | None = None,
    after: int | None = None,
    release: bool = True,
) -> Socket:
    """A connected socket whose first frame (the state) has been read.

    `release` sends a ping at once, as a client that has nothing to resume would, so the
    server does not hold pushes for HOLD_SECONDS.
    """
    query = []
    if token:
        query.append(f"token={token}")
    if after is not None:
        query.append(f"after={after}")
    path = f"/ws/villages/{village_id}/" + ("?" + "&".join(query) if query else "")
    socket = await connect(path, cookie)
    first = await socket.receive()
    assert first["type"] == "state", first
    if release:
        await socket.send({"type": "ping"})
    return socket


@dataclass
class Screen:
    """A game screen's socket (`?screen=1`): the HTML parts and lines it was sent."""

    socket: Socket
    parts: dict[str, str] = field(default_factory=dict)  # id -> html, as last sent
    lines: dict[int, str] = field(default_factory=dict)  # id -> html
    hidden: list[int] = field(default_factory=list)
    cues: list[dict[str, Any]] = field(default_factory=list)
    frames: int = 0

    async def read(self, seconds: float = 0.3) -> list[dict[str, Any]]:
        """Apply whatever arrives until nothing has for `seconds`."""
        frames = await self.socket.quiet(seconds)
        for frame in frames:
            self.apply(frame)
        return frames

    async def next(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        frame = await self.socket.receive(timeout)
        self.apply(frame)
        return frame

    def apply(self, frame: dict[str, Any]) -> None:
        assert frame["type"] == "screen", frame
        self.frames += 1
        for part_id, html, _digest in frame.get("parts", []):
            self.parts[part_id] = html
            if part_id in ("d-log", "h-log"):  # a whole log: its lines
                for match in _LINE.finditer(html):
                    self.lines[int(match.group(1))] = match.group(0)
        for line_id, _pane, _phase, html in frame.get("lines", []) + frame.get("restore", []):
            self.lines[line_id] = html
        for line_id in frame.get("hide", []):
            self.lines.pop(line_id, None)
            self.hidden.append(line_id)
        self.cues += frame.get("cues", [])

    def text(self) -> str:
        return json.dumps([self.parts, self.lines], ensure_ascii=False)

    async def close(self) -> None:
        await self.socket.close()


async def open_screen(
    village_id: int,
    *,
    token: str | None = None,
    cookie: str | None = None,
    lang: str = "ja",
) -> Screen:
    """A screen socket that said it shows nothing yet: its first frame draws everything."""
    path = f"/ws/villages/{village_id}/?screen=1" + (f"&token={token}" if token else "")
    screen = Screen(await connect(path, cookie))
    await screen.socket.send({"type": "hello", "after": 0, "parts": {}, "lang": lang})
    await screen.next()
    return screen
