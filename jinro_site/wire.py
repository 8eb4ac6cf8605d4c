"""One pushed frame, framed once for every socket that sends it.

A commit's push gives every socket of the viewers who see it alike the same text. Sent the
ASGI way, each socket would encode it, frame it and pass it through daphne's reply path
again. Under daphne, a socket is an autobahn connection, and autobahn can frame a message
once and send the prepared frame on many connections (`prepareMessage`,
`sendPreparedMessage`, its public API for exactly this). `Wire` does that where it can
and sends the ASGI way elsewhere (the tests' communicators, another server).

The connection is found behind the ASGI `send` daphne gives an application
(`functools.partial(server.handle_reply, protocol)`, daphne 4.2);
tests/realtime/test_wire.py fails if an upgrade changes that.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from autobahn.websocket.protocol import PreparedMessage, WebSocketProtocol

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
    """How one socket sends text frames: the prepared frame on its open connection, else
    the ASGI message."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.connection = connection_of(send)

    async def text(self, text: str) -> None:
        connection = self.connection
        if connection is not None and connection.state == WebSocketProtocol.STATE_OPEN:
            connection.sendPreparedMessage(prepared(text))
        else:
            await self.send({"type": "websocket.send", "text": text})
