"""The site's HTTP application (jinro_site/http_threads.py): Django's WSGI application on a
pool of request threads, driven in-process as daphne drives it."""

from __future__ import annotations

import asyncio
import gc
import re
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpRequest
from django.templatetags.static import static

from jinro_site.http_threads import ThreadedWSGI
from jinro_site.runtime import ARRIVED
from tests.realtime.game import make_user, token_of, waiting_village

pytestmark = pytest.mark.django_db(transaction=True)  # the pool's threads read the rows


def scope(path: str, query: bytes = b"", headers: list | None = None, method: str = "GET"):
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query,
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *(headers or [])],
        "client": ("127.0.0.7", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def fetch(app, request_scope: dict, body: bytes = b"") -> tuple[int, dict, bytes]:
    """The status, headers and body the application answers."""
    sent: list[dict] = []
    asked = False

    async def receive() -> dict:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)  # the client stays: no disconnect
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(request_scope, receive, send)
    headers = {k.decode().lower(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


def test_pages_the_api_and_static_files_are_answered_as_django_answers_them(client):
    app = ThreadedWSGI(get_wsgi_application(), threads=2)
    waiting_village(3, capacity=8)  # the top page lists a village
    token = token_of(make_user("threads"))
    status, headers, body = asyncio.run(fetch(app, scope("/")))
    assert status == 200 and "汝は人狼なりや？" in body.decode()
    assert headers["content-type"].startswith("text/html")
    auth = [(b"authorization", f"Token {token}".encode())]
    status, _headers, body = asyncio.run(fetch(app, scope("/api/v1/me", headers=auth)))
    assert (status, body) == (
        200,
        client.get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {token}").content,
    )
    url = static("villages/js/jinro.js")
    on_disk = Path(settings.STATIC_ROOT, url.removeprefix(settings.STATIC_URL)).read_bytes()
    status, _headers, body = asyncio.run(fetch(app, scope(url)))
    assert (status, body) == (200, on_disk)


def test_the_request_django_sees_is_the_one_daphne_received():
    seen: dict = {}

    def app(environ, start_response):
        seen.update(environ)
        seen["body"] = environ["wsgi.input"].read()
        seen["arrived"] = ARRIVED.get()
        start_response("201 Created", [("X-Answer", "yes"), ("Set-Cookie", "a=1")])
        return [b"made"]

    headers = [
        (b"cookie", b"a=1"),
        (b"cookie", b"b=2"),
        (b"x-many", b"one"),
        (b"x-many", b"two"),
        (b"content-type", b"application/json"),
        (b"content-length", b"7"),
    ]
    request = scope("/村/ページ", query="q=名前&x=1".encode(), headers=headers, method="POST")
    status, answered, body = asyncio.run(fetch(ThreadedWSGI(app, threads=1), request, b'{"a":1}'))
    assert (status, answered["x-answer"], body) == (201, "yes", b"made")
    assert seen["PATH_INFO"].encode("latin-1").decode("utf-8") == "/村/ページ"
    assert seen["QUERY_STRING"].encode("latin-1").decode("utf-8") == "q=名前&x=1"
    assert seen["HTTP_COOKIE"] == "a=1; b=2" and seen["HTTP_X_MANY"] == "one,two"
    assert (seen["CONTENT_TYPE"], seen["CONTENT_LENGTH"]) == ("application/json", "7")
    assert (seen["REQUEST_METHOD"], seen["REMOTE_ADDR"], seen["body"]) == (
        "POST",
        "127.0.0.7",
        b'{"a":1}',
    )
    assert seen["arrived"] is not None and ARRIVED.get() is None


def behind_a_slow_request(request_scope: dict) -> tuple[list[str], tuple, tuple]:
    """`request_scope` sent while the only thread is busy for 0.3 s: what ran, and both
    answers (the slow request's, then its)."""
    ran: list[str] = []
    busy = threading.Event()

    def app(environ, start_response):
        ran.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/slow":
            busy.set()
            time.sleep(0.3)
        start_response("200 OK", [])
        return [b"ok"]

    threaded = ThreadedWSGI(app, threads=1)

    async def both() -> tuple:
        slow = asyncio.ensure_future(fetch(threaded, scope("/slow")))
        await asyncio.to_thread(busy.wait, 5)
        other = await fetch(threaded, request_scope)
        return await slow, other

    slow, other = asyncio.run(both())
    return ran, slow, other


def test_a_write_that_waited_too_long_for_a_thread_is_refused_without_running(settings):
    settings.JINRO_QUEUE_WAIT_MS = 50
    post = scope("/api/v1/villages/1/messages", method="POST")
    ran, (slow_status, _h, _b), (status, headers, body) = behind_a_slow_request(post)
    assert slow_status == 200 and ran == ["/slow"]  # the second never ran
    assert status == 503 and headers["retry-after"] == "1"
    assert b"overloaded" in body


def test_a_read_queues_past_a_writes_wait_and_is_refused_only_when_truly_overloaded(settings):
    """A burst of polls queues: a GET is refused only past JINRO_READ_QUEUE_WAIT_MS."""
    settings.JINRO_QUEUE_WAIT_MS = 50
    settings.JINRO_READ_QUEUE_WAIT_MS = 5000
    for method in ("GET", "HEAD"):
        read = scope("/villages/1/down/", method=method)
        ran, _slow, (status, _headers, _body) = behind_a_slow_request(read)
        assert (status, ran) == (200, ["/slow", "/villages/1/down/"])
    settings.JINRO_READ_QUEUE_WAIT_MS = 50
    ran, _slow, (status, headers, _body) = behind_a_slow_request(scope("/villages/1/down/"))
    assert ran == ["/slow"] and status == 503 and headers["retry-after"] == "1"


def test_a_client_that_goes_away_before_its_body_is_sent_is_not_answered():
    ran: list[str] = []

    def app(environ, start_response):
        ran.append("ran")
        start_response("200 OK", [])
        return [b""]

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(ThreadedWSGI(app, threads=1)(scope("/"), receive, send))
    assert (ran, sent) == ([], [])


def test_a_request_is_freed_when_answered_and_leaves_the_collector_nothing(client):
    """Django's request is held in cycles by its user and its messages' storage: freed only
    by a garbage collection, which a busy daphne paid as a pause every few seconds
    (jinro_site/requestcycles.py). A line posted, a pane read and a form that sets a flash
    message leave no request to collect; the message still shows on the next page."""
    app = ThreadedWSGI(get_wsgi_application(), threads=1)
    game = waiting_village(3, capacity=8)
    user = game.users[1]
    client.force_login(user)
    cookies = {"sessionid": client.cookies["sessionid"].value}

    def answer(path: str, method: str = "GET", body: bytes = b"", headers=()) -> tuple:
        jar = "; ".join(f"{k}={v}" for k, v in cookies.items())
        sent = [(b"cookie", jar.encode()), *headers]
        status, answered, content = asyncio.run(
            fetch(app, scope(path, method=method, headers=sent), body)
        )
        for line in answered.get("set-cookie", "").split(","):
            name, _, value = line.strip().partition("=")
            if name in ("csrftoken", "messages", "sessionid"):
                cookies[name] = value.split(";")[0]
        return status, answered, content.decode()

    lower = f"/villages/{game.village_id}/down/"
    answer(lower)  # every module the pages need is loaded
    _status, _headers, page = answer("/accounts/profile/")
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    form = [(b"content-type", b"application/x-www-form-urlencoded")]

    def left_to_collect(call) -> tuple[tuple, list[str]]:
        """What `call` answered, and the paths of the requests it left to the collector."""
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            answered = call()
            gc.collect()
            return answered, [o.path for o in gc.garbage if issubclass(type(o), HttpRequest)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()

    renew = f"csrfmiddlewaretoken={csrf}&renew_token=1".encode()
    renewed, left = left_to_collect(lambda: answer("/accounts/profile/", "POST", renew, form))
    assert (renewed[0], renewed[1]["location"], left) == (302, "/accounts/profile/", [])
    line = [
        (b"content-type", b"application/json"),
        (b"authorization", f"Token {token_of(user)}".encode()),  # the renewed token
    ]
    url = f"/api/v1/villages/{game.village_id}/messages"
    posted, left = left_to_collect(lambda: answer(url, "POST", b'{"text": "cy"}', line))
    assert (posted[0], left) == (201, [])
    # A pane drawn anew goes through Django's template context, itself a cycle holding the
    # request; the polls that follow are served from the drawing.
    assert "cy" in answer(lower)[2]
    read, left = left_to_collect(lambda: answer(lower))
    assert (read[0], "cy" in read[2], left) == (200, True, [])
    assert "APIトークンを新しくしました。" in answer("/accounts/profile/")[2]
