"""A pushed text is framed once and written on daphne's own connection (jinro_site.wire);
these fail if an upgrade of daphne, autobahn or twisted changes what that relies on."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket

from daphne.server import Server
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet import tcp

from jinro_site import wire


class Reactor:
    """Where twisted registers a socket that has bytes waiting (it writes them later)."""

    def __init__(self) -> None:
        self.writers: list = []

    def addWriter(self, descriptor) -> None:
        self.writers.append(descriptor)


class Connection:
    """What Wire uses of autobahn's connection: its state, its queue, its transport (a
    real twisted TCP connection here, on one end of a socket pair), and the usual send
    of a prepared frame (autobahn's: through twisted's buffer)."""

    def __init__(self) -> None:
        self.state = WebSocketProtocol.STATE_OPEN
        self.send_queue: collections.deque = collections.deque()
        ours, self.peer = socket.socketpair()
        self.reactor = Reactor()
        self.transport = tcp.Connection(ours, None, reactor=self.reactor)
        self.transport.connected = True
        self.usual: list[bytes] = []

    def sendPreparedMessage(self, prepared) -> None:
        self.usual.append(prepared.payloadHybi)
        self.transport.write(prepared.payloadHybi)

    def received(self) -> bytes:
        self.peer.setblocking(False)
        chunks = []
        with contextlib.suppress(BlockingIOError):
            while chunk := self.peer.recv(1 << 20):
                chunks.append(chunk)
        return b"".join(chunks)


def frame_of(text: str) -> bytes:
    payload = text.encode()
    if len(payload) < 126:
        return bytes([0x81, len(payload)]) + payload
    if len(payload) < 1 << 16:
        return bytes([0x81, 126]) + len(payload).to_bytes(2, "big") + payload
    return bytes([0x81, 127]) + len(payload).to_bytes(8, "big") + payload


async def test_daphne_hands_an_application_a_send_behind_which_the_connection_is_found():
    seen = {}

    async def application(scope, receive, send):
        seen["send"] = send

    server = Server(application=application, endpoints=["tcp:port=0:interface=127.0.0.1"])
    connection = WebSocketFactory(server).buildProtocol(None)
    server.connections = {connection: {}}
    server.create_application(connection, {"type": "websocket"})
    await asyncio.sleep(0)
    assert wire.connection_of(seen["send"]) is connection
    assert wire.connection_of(lambda message: None) is None


async def test_an_open_connection_with_nothing_waiting_gets_the_frame_at_once():
    connection = Connection()
    asgi: list[dict] = []

    async def send(message):
        asgi.append(message)

    socket_ = wire.Wire(send)
    socket_.connection = connection  # as found behind daphne's send (test above)
    text = '{"type":"screen","lines":[[1000000,"d","2-day","<p>こんばんは</p>"]]}'
    await socket_.text(text)
    assert connection.received() == frame_of(text)
    assert connection.reactor.writers == [] and connection.usual == [] and asgi == []
    assert wire.prepared(text) is wire.prepared(text)  # framed once for every socket

    # Bytes already waiting in twisted's buffer go first: the frame waits behind them.
    connection.transport.write(b"earlier")
    await socket_.text(text)
    assert connection.usual == [frame_of(text)]
    assert connection.transport._tempDataBuffer == [b"earlier", frame_of(text)]
    assert connection.received() == b""

    # A closing connection: the ASGI message (daphne drops it or sends it as it may).
    connection.state = WebSocketProtocol.STATE_CLOSING
    await socket_.text(text)
    assert asgi == [{"type": "websocket.send", "text": text}]


async def test_what_a_full_socket_does_not_take_waits_in_twisteds_buffer_and_the_rest_behind_it():
    connection = Connection()
    connection.transport.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    socket_ = wire.Wire(None)  # type: ignore[arg-type]
    socket_.connection = connection
    big, small = "長" * 200_000, "short"
    await socket_.text(big)
    waiting = b"".join(connection.transport._tempDataBuffer)
    assert waiting and connection.reactor.writers == [connection.transport]
    await socket_.text(small)
    assert connection.usual == [frame_of(small)]  # behind the rest of the big one
    written = connection.received()
    assert written + waiting == frame_of(big)
    assert connection.transport._tempDataBuffer[-1] == frame_of(small)
