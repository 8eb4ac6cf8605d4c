"""A request of this site leaves nothing for the garbage collector: it is freed the moment
its answer is sent.

Django's request object is held in reference cycles by what two of its middlewares hang on
it: the session's user (`request.user`, a lazy object whose function holds the request,
and `request.auser`, a partial of the request) and the messages' storage (which keeps the
request it was made for). A cycle is freed only by a garbage collection, so every request
left about 60 objects to the collector (measured with `gc.DEBUG_SAVEALL` on a line's
POST): a daphne taking 40 posts a second collected some 44,000 of them every 16 s, a pause
of 45-55 ms that held every request and socket of the process, and its slowest POSTs were
those (bench/ws_latency.py, docs/benchmarks.md). Freed by their reference counts instead,
a request's objects no longer count towards a collection at all.

* `release_request`, the first middleware: once the answer is made (not a streamed one,
  whose body may still read them), it takes the user off the request.
* `RequestMessages`, the messages' storage (`MESSAGE_STORAGE`): Django's own (a cookie,
  then the session), holding its request by a weak reference.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable
from typing import Any

from django.contrib.messages.storage.fallback import FallbackStorage
from django.http import HttpRequest
from django.http.response import HttpResponseBase

# What django.contrib.auth's middleware sets on a request (both documented attributes).
USER_ATTRIBUTES = ("user", "auser")


def release_request(get_response: Callable[[HttpRequest], HttpResponseBase]):
    """Middleware: the request's user goes once the answer is made."""

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        if not response.streaming:
            for name in USER_ATTRIBUTES:
                with contextlib.suppress(AttributeError):  # a request the middleware missed
                    delattr(request, name)
        return response

    return middleware


class RequestMessages(FallbackStorage):
    """The messages of one request (a cookie, then the session, as Django's default does),
    keeping the request by a weak reference: the request holds its storage, and the
    storage no longer holds the request."""

    def __init__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> None:
        super().__init__(weakref.proxy(request), *args, **kwargs)
