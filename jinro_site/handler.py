"""Django's ASGI handler, with each request's synchronous work in one thread hop.

Django's own ASGI handler runs its middleware in async mode: every `MiddlewareMixin`
middleware hops to a thread for its `process_request` and again for `process_response`,
the sync view hops once more, the request signals each hop, and every request gets a
thread of its own (`ThreadSensitiveContext`), so its database connection is opened and
closed every time. Measured through daphne, that fixed cost was most of a small page's time.

Here the middleware chain is loaded in sync mode and the whole request — the
`request_started` signal, middleware, view, and (for an ordinary response) `close()` with
`request_finished` — runs in one call on a small pool of threads, each keeping its
database connection between requests (`CONN_MAX_AGE`). Only reading the body and sending
the response stay on the event loop. A file's response (WhiteNoise's static files) is read
in the same call; other streaming responses are sent and closed as Django does.

A request that waited longer than `JINRO_QUEUE_WAIT_MS` for a thread is answered 503 with
Retry-After without running: past its capacity the site says so quickly, instead of
answering every request late.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from jinro_site.runtime import ARRIVED
from jinro_site.views import overloaded

# Threads that serve requests; each keeps its own database connection.
POOL = ThreadPoolExecutor(
    max_workers=int(os.environ.get("REQUEST_THREADS", "8")),
    thread_name_prefix="jinro-request",
)


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django serves HTTP only, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        try:
            response, closed = await sync_to_async(
                self._respond, thread_sensitive=False, executor=POOL
            )(scope, body_file, time.monotonic())
            await self.send_response(response, send)
            if not closed:
                await sync_to_async(response.close, thread_sensitive=False, executor=POOL)()
        finally:
            body_file.close()

    def _respond(
        self, scope: dict[str, Any], body_file: Any, queued: float
    ) -> tuple[HttpResponseBase, bool]:
        """The response, and whether it is closed already (its content is in memory)."""
        if (time.monotonic() - queued) * 1000 > settings.JINRO_QUEUE_WAIT_MS:
            # Past capacity: refused at once, before anything ran (jinro_site.views).
            return overloaded(scope["path"]), True
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            arrived = ARRIVED.set(queued)
            try:
                response = self.get_response(request)
            finally:
                ARRIVED.reset(arrived)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size
        if response.streaming and not response.is_async:
            # A file (a static file, served by WhiteNoise): read here, in this thread.
            # Django's own handler would read it all too, but after an exception (it first
            # tries the iterator as an async one), with a warning, on its one thread for
            # such work, and leave the exception's traceback and frames in cycles.
            response.streaming_content = _replay(list(response.streaming_content))
        elif response.streaming:
            return response, False  # read as it is sent, closed after
        # The content is in memory: close now (request_finished) and send it after.
        response.close()
        if request is not None:
            _let_go(request)
        return response, True


async def _replay(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _let_go(request: Any) -> None:
    """Drop what a finished request holds, so that it is freed when its last reference
    goes rather than by the garbage collector: the request, its session, its messages'
    storage and its lazy user refer to each other, about 55 objects in cycles a request.
    A posting daphne collected some 40,000 such objects at a time, every half minute, in
    80-105 ms (bench/ws_latency.py, stop 25). Only for a response already closed: a
    streaming one (but a file, read whole before it is sent) may still read the request
    while it is sent."""
    request.__dict__.clear()
