"""In-process sockets on the real ASGI application (channels' WebsocketCommunicator)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from channels.testing import WebsocketCommunicator

ORIGIN = (b"origin", b"http://127.0.0.1")
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
    from jinro_site.asgi import application

    query = []
    if token:
        query.append(f"token={token}")
    if after is not None:
        query.append(f"after={after}")
    path = f"/ws/villages/{village_id}/" + ("?" + "&".join(query) if query else "")
    headers = [ORIGIN]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected, f"{path} refused the connection"
    socket = Socket(communicator)
    first = await socket.receive()
    assert first["type"] == "state", first
    if release:
        await socket.send({"type": "ping"})
    return socket
