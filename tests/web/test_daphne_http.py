"""daphne's requests hand the site their body unread by twisted (jinro_site.daphne_http);
these fail if an upgrade of daphne or twisted changes what that relies on."""

from __future__ import annotations

import asyncio

from daphne import http_protocol
from daphne.server import Server
from twisted.internet.testing import StringTransport
from twisted.web import http

import jinro_site.asgi  # noqa: F401  # the site as daphne loads it
from jinro_site import daphne_http

BOUNDARY = "jinro"
UPLOAD = (
    f"--{BOUNDARY}\r\n"
    'Content-Disposition: form-data; name="icon"; filename="a.png"\r\n'
    "Content-Type: image/png\r\n\r\n"
    "\x89PNG not really\r\n"
    f"--{BOUNDARY}--\r\n"
).encode("latin-1")


def post(content_type: str, body: bytes) -> bytes:
    return (
        b"POST /villages/1/up/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


async def received_through_daphne(raw: bytes) -> tuple[bytes, object]:
    """The body an ASGI application receives for the raw request, and daphne's request."""
    bodies: list[bytes] = []

    async def application(scope, receive, send):
        message = await receive()
        bodies.append(message["body"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    server = Server(application=application, endpoints=["tcp:port=0:interface=127.0.0.1"])
    server.connections = {}
    channel = http_protocol.HTTPFactory(server).buildProtocol(None)
    channel.makeConnection(StringTransport())
    channel.dataReceived(raw)
    (request,) = server.connections  # daphne registers each request it makes
    for _ in range(50):
        await asyncio.sleep(0.01)
        if bodies:
            break
    return bodies[0], request


async def test_the_site_makes_daphne_build_requests_that_leave_forms_and_uploads_unparsed(
    monkeypatch,
):
    parsed: list[bytes] = []
    parse = http._parseContentType
    monkeypatch.setattr(http, "_parseContentType", lambda line: parsed.append(line) or parse(line))

    for content_type, body in (
        ("application/x-www-form-urlencoded", b"text=%E3%81%82&mode=normal"),
        (f"multipart/form-data; boundary={BOUNDARY}", UPLOAD),
        ("application/json", b'{"text": "\\u3042"}'),
    ):
        got, request = await received_through_daphne(post(content_type, body))
        assert got == body  # the application gets the body whole, as sent
        assert isinstance(request, daphne_http.WebRequest)
        assert request.args == {}  # twisted did not parse it into arguments
    assert parsed == []  # nor its Content-Type


async def test_daphnes_own_request_parses_what_the_sites_does_not(monkeypatch):
    """The work taken away is real: daphne's own class parses every POST's Content-Type,
    and a form's body into arguments nobody reads."""
    parsed: list[bytes] = []
    parse = http._parseContentType
    monkeypatch.setattr(http, "_parseContentType", lambda line: parsed.append(line) or parse(line))
    monkeypatch.setattr(http_protocol, "WebRequest", daphne_http.WebRequest.__mro__[1])

    body = b"text=%E3%81%82&mode=normal"
    got, request = await received_through_daphne(post("application/x-www-form-urlencoded", body))
    assert got == body
    assert parsed == [b"application/x-www-form-urlencoded"]
    assert request.args == {b"text": ["あ".encode()], b"mode": [b"normal"]}
