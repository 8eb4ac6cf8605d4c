"""The site's ASGI handler (jinro_site/handler.py), driven in-process as daphne drives it."""

from __future__ import annotations

import asyncio
import gc
import warnings
from pathlib import Path

import pytest
from django.conf import settings
from django.templatetags.static import static

from jinro_site.handler import OneHopASGIHandler
from tests.realtime.game import make_user, token_of, waiting_village

pytestmark = pytest.mark.django_db(transaction=True)  # the handler's threads read the rows

REQUESTS = 20


def scope(path: str, token: str | None) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1")]
        + ([(b"authorization", f"Token {token}".encode())] if token else []),
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def get(handler: OneHopASGIHandler, path: str, token: str | None = None) -> int:
    return (await fetch(handler, path, token))[0]


async def fetch(handler: OneHopASGIHandler, path: str, token: str | None = None) -> tuple:
    """The status and the body of a GET of `path`."""
    sent: list[dict] = []
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # the client stays: no disconnect
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await handler(scope(path, token), receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def left_in_cycles(path: str, token: str | None = None) -> float:
    """Objects a request of `path` leaves in reference cycles, on average."""
    handler = OneHopASGIHandler()

    async def requests(count: int) -> list[int]:
        return [await get(handler, path, token) for _ in range(count)]

    assert asyncio.run(requests(3)) == [200] * 3  # warm: first-use objects are not counted
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert asyncio.run(requests(REQUESTS)) == [200] * REQUESTS
        gc.collect()
        return len(gc.garbage) / REQUESTS
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_finished_request_is_freed_at_once_not_left_in_cycles_for_the_collector():
    """A request's session, messages storage, lazy user and the request itself refer to
    each other; left so, every request of a busy daphne added some 50 objects to the
    collector's young generation, collected in pauses of 80-105 ms (stop 25)."""
    token = token_of(make_user("cycles"))
    # What stays: the token's user and its profile, which refer to each other (7 objects).
    assert left_in_cycles("/api/v1/villages", token) <= 10


def test_a_drawn_page_leaves_its_template_context_to_be_freed_at_once():
    """A template context and its dicts refer to each other (jinro_site/template_backend.py):
    the top page left about 350 objects in cycles a request."""
    waiting_village(3, capacity=8)  # the page lists a village
    assert left_in_cycles("/") <= 10


def test_a_static_file_is_sent_whole_read_in_the_requests_thread_and_freed_at_once():
    """WhiteNoise answers a static file with a file response, whose iterator is not an
    async one: Django's handler found that out by an exception on every file, warned,
    read the file on its one thread for such work and left the exception's frames in
    cycles (about 100 objects a file, when a screen loads two dozen files)."""
    url = static("villages/js/jinro.js")
    on_disk = Path(settings.STATIC_ROOT, url.removeprefix(settings.STATIC_URL)).read_bytes()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, body = asyncio.run(fetch(OneHopASGIHandler(), url))
    assert (status, body) == (200, on_disk)
    assert [str(w.message) for w in caught] == []
    assert left_in_cycles(url) <= 10
