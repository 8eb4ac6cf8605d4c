"""A pushed text is framed once and written on daphne's own connection (jinro_site.wire);
these fail if an upgrade of daphne or autobahn changes what the fast path relies on."""

from __future__ import annotations

import asyncio

from daphne.server import Server
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

from jinro_site import wire


class Connection:
    """What Wire uses of autobahn's connection: its state, and the prepared frame's
    write (autobahn's own, tested by autobahn; its frame is checked here)."""

    def __init__(self) -> None:
        self.state = WebSocketProtocol.STATE_OPEN
        self.written: list[bytes] = []

    def sendPreparedMessage(self, prepared) -> None:
        self.written.append(prepared.payloadHybi)


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


async def test_an_open_connection_gets_the_prepared_frame_and_a_closing_one_the_asgi_message():
    connection = Connection()
    asgi: list[dict] = []

    async def send(message):
        asgi.append(message)

    socket = wire.Wire(send)
    socket.connection = connection  # as found behind daphne's send (test above)
    text = '{"type":"screen","lines":[[1000000,"d","2-day","<p>こんばんは</p>"]]}'
    await socket.text(text)
    payload = text.encode()
    assert connection.written == [bytes([0x81, len(payload)]) + payload]
    assert wire.prepared(text) is wire.prepared(text)  # framed once for every socket
    assert asgi == []

    connection.state = WebSocketProtocol.STATE_CLOSING
    await socket.text(text)
    assert asgi == [{"type": "websocket.send", "text": text}]
    assert len(connection.written) == 1
