"""A bare WebSocket client for the benchmarks' many listening sockets (RFC 6455, text
frames only, no extensions), as cheap per frame as Python allows.

A benchmark that holds 4,400 sockets in one process on the site's own machine takes its
CPU from the site it measures. The `websockets` library carries every frame through a
parser, a message assembler and a queue before `recv()` returns it: about 0.2 ms of this
client's CPU per frame in bench/ws_latency.py, a fifth of the machine's work per line.
Here a frame is cut from the stream where it arrives (`data_received`) and handed to a
callback with the time it was read. Real clients run on other machines: the less this
client costs, the more the figures are the site's own.

What it does not do: compression, binary messages, TLS, redirects. A frame it does not
expect (a masked frame from the server, an unknown opcode) closes the connection.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Callable
from urllib.parse import urlsplit

OnText = Callable[[bytes, float], None]  # (a text message as UTF-8, time.monotonic() when read)


def _frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: final, masked (RFC 6455 §5.3)."""
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        head = bytes((0x80 | opcode, 0x80 | size))
    elif size < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
    return head + mask + masked


class BareSocket(asyncio.Protocol):
    def __init__(self, on_text: OnText) -> None:
        self.on_text = on_text
        self.buffer = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.parts: list[bytes] = []  # a fragmented message so far

    # -- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        for future in (self.upgraded, self.closed):
            if not future.done():
                future.set_exception(exc or ConnectionError("closed"))

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        buffer = self.buffer
        buffer += data
        if not self.upgraded.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[: buffer.find(b"\r\n")])
            del buffer[: end + 4]
            if b" 101 " not in status + b" ":
                self.upgraded.set_exception(ConnectionError(status.decode("latin-1")))
                self._abort()
                return
            self.upgraded.set_result(None)
        while len(buffer) >= 2:
            first, second = buffer[0], buffer[1]
            size, start = second & 0x7F, 2
            if second & 0x80:  # a server never masks
                self._abort()
                return
            if size == 126:
                if len(buffer) < 4:
                    return
                size, start = int.from_bytes(buffer[2:4], "big"), 4
            elif size == 127:
                if len(buffer) < 10:
                    return
                size, start = int.from_bytes(buffer[2:10], "big"), 10
            if len(buffer) < start + size:
                return
            payload = bytes(buffer[start : start + size])
            del buffer[: start + size]
            self._frame(first & 0x0F, bool(first & 0x80), payload, now)

    # -- frames ---------------------------------------------------------------------------

    def _frame(self, opcode: int, final: bool, payload: bytes, now: float) -> None:
        if opcode in (0x1, 0x0):  # text, or a continuation of it
            self.parts.append(payload)
            if final:
                text = b"".join(self.parts) if len(self.parts) > 1 else payload
                self.parts = []
                self.on_text(text, now)  # left undecoded: the caller decodes what it reads
        elif opcode == 0x9:  # ping
            self._write(_frame(0xA, payload))
        elif opcode == 0x8:  # close: answer, then the server closes the TCP connection
            self._write(_frame(0x8, payload[:2]))
            if not self.closed.done():
                self.closed.set_result(None)
        elif opcode != 0xA:  # a pong needs nothing; anything else is not for this client
            self._abort()

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    # -- the caller's side ----------------------------------------------------------------

    def send_text(self, text: str) -> None:
        self._write(_frame(0x1, text.encode()))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def connect(url: str, on_text: OnText, origin: str, timeout: float = 60.0) -> BareSocket:
    """Open `url` (ws://host:port/path?query) and return once the server has upgraded it;
    every text message then goes to `on_text(its UTF-8 bytes, when_read)`."""
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    loop = asyncio.get_running_loop()
    _transport, socket = await asyncio.wait_for(
        loop.create_connection(lambda: BareSocket(on_text), host, port), timeout
    )
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: {origin}\r\n\r\n"
    )
    socket._write(request.encode())
    await asyncio.wait_for(socket.upgraded, timeout)
    return socket
