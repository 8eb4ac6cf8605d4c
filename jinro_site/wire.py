"""One pushed frame, framed once for every socket that sends it, and written at once.

A commit's push gives every socket of the viewers who see it alike the same text. Sent the
ASGI way, each socket would encode it, frame it and pass it through daphne's reply path
again, and twisted would hold the bytes until the next turn of the loop: it registers the
socket for writing (a system call), writes when the loop says it may, and unregisters it
(another). Under daphne a socket is an autobahn connection, and `Wire` takes the short way:

* the text is framed once (autobahn's `PreparedMessage`, its public API for sending the
  same message on many connections) and the frame kept for the next sockets;
* where nothing waits in the connection's buffers (autobahn's or twisted's), the frame
  is written to the socket at once; whatever the socket does not take goes to twisted's
  buffer as any write would, and everything after it waits behind it. Anywhere else
  (TLS done by twisted, a closing connection, a full buffer) the connection sends the
  prepared frame as usual.

With 21 screens this took a third off the event loop's CPU per line (bench/post_cpu.py).
Elsewhere (the tests' communicators, another server) it sends the ASGI message. The
connection is found behind the `send` that daphne gives an application
(`functools.partial(server.handle_reply, protocol)`, daphne 4.2); tests/realtime/
test_wire.py fails if an upgrade changes that, or what the direct write relies on.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from autobahn.websocket.protocol import PreparedMessage, WebSocketProtocol
from twisted.internet import tcp

Send = Callable[[dict[str, Any]], Awaitable[None]]

_PREPARED: OrderedDict[str, PreparedMessage] = OrderedDict()
_KEEP = 512  # texts of the last few commits: one is sent to many sockets in a row


def connection_of(send: Send) -> WebSocketProtocol | None:
    """The autobahn connection behind daphne's ASGI `send`, or None."""
    if not isinstance(send, functools.partial) or len(send.args) != 1:
        return None
    connection = send.args[0]
    if getattr(send.func, "__name__", "") != "handle_reply":
        return None
    return connection if isinstance(connection, WebSocketProtocol) else None


def prepared(text: str) -> PreparedMessage:
    """`text` framed as a server's text message, once for all the sockets that send it."""
    found = _PREPARED.get(text)
    if found is None:
        found = _PREPARED[text] = PreparedMessage(text.encode(), False, False, False)
        if len(_PREPARED) > _KEEP:
            _PREPARED.popitem(last=False)
    return found


class Wire:
    """How one socket sends text frames (see the module's text)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.connection = connection_of(send)

    async def text(self, text: str) -> None:
        if not self.text_now(text):
            await self.send({"type": "websocket.send", "text": text})

    @property
    def open(self) -> bool:
        """Whether `text_now` sends: an autobahn connection, open."""
        connection = self.connection
        return connection is not None and connection.state == WebSocketProtocol.STATE_OPEN

    def text_now(self, text: str) -> bool:
        """Send `text` without waiting (a direct write, or autobahn's own send): False where
        only the ASGI way can send it (nothing was sent)."""
        if not self.open:
            return False
        connection = self.connection
        frame = prepared(text)
        if not write_now(connection, frame.payloadHybi):
            connection.sendPreparedMessage(frame)
        return True


def write_now(connection: Any, data: bytes) -> bool:
    """Write `data` to the connection's socket now if nothing waits before it; whatever
    the socket does not take waits in twisted's buffer. False: not written (the caller
    sends it the usual way)."""
    if connection.send_queue:
        return False
    transport = connection.transport
    if not isinstance(transport, tcp.Connection) or transport.TLS:
        return False
    if (
        not transport.connected
        or transport.disconnecting
        or transport._writeDisconnected
        or transport._tempDataBuffer
        or len(transport.dataBuffer) > transport.offset
    ):
        return False
    try:
        sent = transport.socket.send(data)
    except BlockingIOError:
        sent = 0
    except OSError:
        return False  # twisted's own write meets the error and closes the connection
    if sent < len(data):
        transport.write(data[sent:])
    return True
