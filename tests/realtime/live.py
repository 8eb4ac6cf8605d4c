"""A real WebSocket client of a real site process, behaving as the screen's JavaScript:
it loads the lines over HTTP, opens the socket, says `resume` from its last line, and
when the socket drops it opens a new one and resumes again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from typing import Any

import websockets


def api(base: str, method: str, path: str, token: str | None, body: dict | None = None) -> Any:
    request = urllib.request.Request(
        f"{base}/api/v1/{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"}
        | ({"Authorization": f"Token {token}"} if token else {}),
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        return response.status, (json.loads(raw) if raw else None)


def post_line(base: str, village_id: int, token: str, text: str, channel: str = "talk") -> int:
    status, _ = api(
        base, "POST", f"villages/{village_id}/messages", token, {"text": text, "channel": channel}
    )
    return status


class LiveClient:
    def __init__(self, base: str, village_id: int, token: str | None = None) -> None:
        self.base = base
        self.village_id = village_id
        self.token = token
        self.messages: list[dict[str, Any]] = []
        self.duplicates: list[int] = []
        self.state: dict[str, Any] | None = None
        self.connections = 0
        self.connected = asyncio.Event()
        self._socket: Any = None
        self._task: asyncio.Task[None] | None = None

    @property
    def last(self) -> int:
        return self.messages[-1]["id"] if self.messages else 0

    def texts(self) -> list[str]:
        return [m["text"] for m in self.messages]

    async def start(self) -> None:
        _, body = await asyncio.to_thread(
            api, self.base, "GET", f"villages/{self.village_id}/messages", self.token
        )
        self.messages = list(body["messages"])
        self._task = asyncio.ensure_future(self._run())
        await asyncio.wait_for(self.connected.wait(), 30)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def drop(self) -> None:
        """The network drops the socket (the client will reconnect)."""
        if self._socket is not None:
            self.connected.clear()
            await self._socket.close()

    async def _run(self) -> None:
        url = self.base.replace("http", "ws") + f"/ws/villages/{self.village_id}/"
        if self.token:
            url += f"?token={self.token}"
        while True:
            try:
                async with websockets.connect(url, origin=self.base, open_timeout=5) as socket:
                    self._socket = socket
                    await socket.send(json.dumps({"type": "resume", "after": self.last}))
                    async for raw in socket:
                        if not self.connected.is_set():
                            self.connections += 1
                            self.connected.set()
                        self._receive(json.loads(raw))
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            self.connected.clear()
            await asyncio.sleep(0.2)

    def _receive(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "message":
            message = frame["message"]
            if message["id"] <= self.last:
                self.duplicates.append(message["id"])
            else:
                self.messages.append(message)
        elif frame["type"] == "log":
            self.messages = list(frame["messages"])
        elif frame["type"] == "state":
            self.state = frame["state"]
