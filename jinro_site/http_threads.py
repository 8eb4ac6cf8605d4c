"""The site's pages and API, served to daphne from a pool of request threads.

daphne speaks ASGI. Every view and middleware of this site is synchronous, and Django's
ASGI handler runs such a site by hopping to a thread for each middleware's request and
response hooks and for the view, in a thread made anew for every request — so a database
connection made anew for every request too. Here Django's WSGI application (the documented
entry point of a synchronous Django site: `get_wsgi_application()`, PEP 3333) runs each
request whole, in one call, on a fixed pool of threads that keep their database
connections between requests (`CONN_MAX_AGE`, checked before reuse). Only reading the body
and sending the answer stay on the event loop. `ThreadedWSGI` is an ASGI application of
ours (the ASGI HTTP protocol in, PEP 3333's environ and `start_response` out).

Requests wait for a thread in the order they came. When one is refused for waiting:

* a read (GET or HEAD: a page, a pane's poll, a list) is answered 503 only when the site
  is truly overloaded: it waited longer than `JINRO_READ_QUEUE_WAIT_MS` (5 s) for a
  thread, so that the requests ahead of it took seconds of the threads' time. A burst of
  polls (22 screens reloading at once, each first render of a 1,000-line log some tens of
  milliseconds) queues and is answered: a refused poll would put an error page in a
  player's pane (the panes' script keeps the pane as it is on a 503 anyway:
  static/villages/js/jinro.js);
* any other request (a write: a post, a vote) that waited longer than
  `JINRO_QUEUE_WAIT_MS` (450 ms) is answered 503: past its capacity the site says so
  quickly, and the client may send it again (its Idempotency-Key runs it once).

A refused request is answered with Retry-After (`jinro_site.views.overloaded`) without
running. When one did run, the time it arrived goes with it (`jinro_site.runtime.ARRIVED`),
so that a write's own wait for its turn comes off the same budget
(`villages.services.gate`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings

from jinro_site.runtime import ARRIVED
from jinro_site.views import overloaded

Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


class ThreadedWSGI:
    """`wsgi_app` served as an ASGI HTTP application from `threads` threads."""

    def __init__(self, wsgi_app: Callable[..., Any], threads: int | None = None) -> None:
        self.wsgi_app = wsgi_app
        # Python runs one of a process's threads at a time: a few cover the database's
        # round trips, and more only take turns (docs/operations.md, REQUEST_THREADS).
        count = threads or int(os.environ.get("REQUEST_THREADS", "4"))
        self.pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="jinro-request")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"this application serves HTTP, not {scope['type']}")
        body = await read_body(receive)
        if body is None:
            return  # the client went away before it finished sending
        arrived = time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            status, headers, content = await loop.run_in_executor(
                self.pool, self.answer, scope, body, arrived
            )
        finally:
            body.close()
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def answer(self, scope: dict[str, Any], body: Any, arrived: float) -> Answer:
        """One request, whole, in a thread of the pool: its status, headers and body."""
        if (time.monotonic() - arrived) * 1000 > patience_ms(scope["method"]):
            refused = overloaded(scope["path"])
            headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in refused.items()]
            return refused.status_code, headers, refused.content
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            started[:] = [status, headers]
            return chunks.append  # PEP 3333's write(), for the applications that use it

        chunks: list[bytes] = []
        token = ARRIVED.set(arrived)
        try:
            result = self.wsgi_app(environ(scope, body), start_response)
            try:
                chunks.extend(result)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()  # Django's request_finished: the connection is kept or closed
        finally:
            ARRIVED.reset(token)
        status, headers = started
        encoded = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        return int(status.split(" ", 1)[0]), encoded, b"".join(chunks)


READS = frozenset({"GET", "HEAD"})


def patience_ms(method: str) -> int:
    """How long a request may wait for a thread before it is refused (see above)."""
    if method in READS:
        return settings.JINRO_READ_QUEUE_WAIT_MS
    return settings.JINRO_QUEUE_WAIT_MS


async def read_body(receive: Any) -> Any:
    """The request's body, in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE and in a temporary
    file beyond; None if the client disconnected first."""
    body = tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE)  # noqa: SIM115 (closed by the caller)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            body.close()
            return None
        body.write(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body.seek(0)
    return body


def body_length(body: Any) -> int:
    at = body.tell()
    body.seek(0, 2)
    length = body.tell()
    body.seek(at)
    return length


def environ(scope: dict[str, Any], body: Any) -> dict[str, Any]:
    """PEP 3333's environ for an ASGI HTTP scope (the ASGI specification's mapping)."""
    root = scope.get("root_path", "")
    path = scope["path"]
    if root and path.startswith(root):
        path = path[len(root) :]
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    env: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root.encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] if server[1] is not None else 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": str(client[0] or ""),
        "REMOTE_PORT": str(client[1] or ""),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        key = name if name in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{name}"
        if key in env:
            value = f"{env[key]}{'; ' if key == 'HTTP_COOKIE' else ','}{value}"
        env[key] = value
    if "CONTENT_LENGTH" not in env:  # a chunked body: daphne gave it whole, this long
        env["CONTENT_LENGTH"] = str(body_length(body))
    return env
