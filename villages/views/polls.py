"""Polls that cost nothing when nothing changed (issue 40): the classic screen's panes and
the top page answer a repeat request with `304 Not Modified` while what its viewer sees
is unchanged, through Django's `condition` decorator (`conditional`).

A page is drawn once per *sight*: everything it depends on for its viewer (the village's
version, the viewer's seat and standing — bans, a kick, host or staff —, the screen's
preferences, the language, the path with its query, the host), or for the top page the
version of its lists (`villages.listing`) and who is logged in. The drawing is kept in
this process (`KEPT`), so that everyone with the same sight is served it as drawn. What is
the request's own is left out of the drawing as *slots*, filled in for each answer
(`fill`): its CSRF token, the viewer's API token, a fresh form key, the page's own ETag.

The ETag is a keyed digest of the page as drawn and of the request's own values that
fill it — not of the version. A change the viewer may not see (a bite at night) draws the
same page again, so its ETag stays and tells nothing of the change; anything the viewer
sees change (a line, a death, the end) draws another page, so another ETag and a 200.
Two viewers who see a page differently have different drawings: neither is ever served
the other's, nor a 304 for the other's ETag.

Answers carry `Cache-Control: private, no-cache`: a browser keeps the page and asks again
each time with `If-None-Match` (a reload, the no-script refresh, the panes' poll in
static/villages/js/jinro.js); no shared cache keeps it.
"""

from __future__ import annotations

import hashlib
import re
import threading
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.crypto import salted_hmac
from django.utils.html import escape
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from villages.lru import LRU

# What the request fills in (plain words, so that they pass unchanged through escaping
# and JSON): each drawing holds them where the answer has its own values.
CSRF = "jinro-slot-csrf-5e1d"
API_TOKEN = "jinro-slot-token-5e1d"
FORM_KEY = "jinro-slot-form-5e1d"
ETAG = "jinro-slot-etag-5e1d"
SLOTS = re.compile(rb"jinro-slot-(csrf|token|form|etag)-5e1d")  # found in one pass

# Pages drawn for the sights seen lately, at most this many bytes together (a lower pane
# of a 1,000-line day is some 360,000).
KEPT_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Kept:
    """A page as drawn, encoded once and cut at its slots (`pieces`: text, a slot's name,
    text, …, text; filled in by one join), with its digest ("" unless kept for a sight)
    and which slots it holds."""

    pieces: tuple[bytes, ...]
    size: int
    digest: str
    forms: bool  # a form: the CSRF token's slot
    token: bool  # the viewer's API token's slot
    form_key: bool
    etag: bool

    @classmethod
    def of(cls, body: str, digest: bool = False) -> Kept:
        data = body.encode()
        pieces = tuple(SLOTS.split(data))
        slots = set(pieces[1::2])
        return cls(
            pieces,
            len(data),
            # A fingerprint, not a secret (the ETag is a keyed digest of it): SHA-1, which
            # this kind of machine computes in hardware, the fastest over 360 KB.
            hashlib.sha1(data, usedforsecurity=False).hexdigest() if digest else "",
            b"csrf" in slots,
            b"token" in slots,
            b"form" in slots,
            b"etag" in slots,
        )


KEPT: LRU[tuple, Kept] = LRU(KEPT_BYTES, weigh=lambda page: page.size)


def kept(sight: tuple, draw: Callable[[], str]) -> Kept:
    """The page drawn for `sight`: from `KEPT`, or drawn now and kept."""
    found = KEPT.get(sight)
    if found is None:
        found = Kept.of(draw(), digest=True)
        KEPT.put(sight, found)
    return found


def rendered(request: HttpRequest, template: str, context: dict[str, Any]) -> str:
    """A template drawn for the request with the CSRF slot in place of its token."""
    return render_to_string(template, {**context, "csrf_token": CSRF}, request)


def fill(request: HttpRequest, page: Kept, api_token: str = "", etag: str = "") -> bytes:
    """A drawing with the request's own values in its slots (the body is read once, not
    once a slot: a lower pane is some 360 KB)."""
    if len(page.pieces) == 1:
        return page.pieces[0]
    values: dict[bytes, bytes] = {}
    if page.forms:
        values[b"csrf"] = get_token(request).encode()
    if page.token:
        values[b"token"] = escape(api_token).encode()
    if page.form_key:  # one per page answered: actions.submit
        values[b"form"] = uuid.uuid4().hex.encode()
    if page.etag:
        values[b"etag"] = etag.encode()
    pieces = list(page.pieces)
    pieces[1::2] = [values[name] for name in pieces[1::2]]
    return b"".join(pieces)


def answer(request: HttpRequest, body: str, status: int = 200) -> HttpResponse:
    """A drawing filled in for the request (a page that is not answered conditionally)."""
    return HttpResponse(fill(request, Kept.of(body), api_token(request)), status=status)


def api_token(request: HttpRequest) -> str:
    """The viewer's API token (the session's user comes with its profile), or ""."""
    if not request.user.is_authenticated:
        return ""
    profile = getattr(request.user, "profile", None)
    return profile.api_token if profile is not None else ""


@dataclass(frozen=True)
class Page:
    """A conditional page for one request: its drawing and its ETag (quoted)."""

    kept: Kept
    etag: str
    api_token: str

    def answer(self, request: HttpRequest) -> HttpResponse:
        return HttpResponse(fill(request, self.kept, self.api_token, self.etag.strip('"')))


def page(request: HttpRequest, found: Kept, *more: object) -> Page:
    """The drawing `found` as the request's page: its ETag digests the drawing, and what
    fills its slots for this request (the CSRF cookie, the API token) or otherwise makes
    the same drawing another page for it (`more`)."""
    token = api_token(request) if found.token else ""
    cookie = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "") if found.forms else ""
    value = "|".join([found.digest, cookie, token, *map(str, more)])
    etag = salted_hmac("jinro.polls.etag", value).hexdigest()[:32]
    return Page(found, f'"{etag}"', token)


def shows_messages(request: HttpRequest) -> bool:
    """Messages wait to be shown once (a page that shows them is drawn afresh)."""
    return len(get_messages(request)) > 0


# ---------------------------------------------------------------------------
# The views' decorator

Prepare = Callable[..., Page | None]

_PREPARED: weakref.WeakKeyDictionary[HttpRequest, Page | None] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def prepared(request: HttpRequest, prepare: Prepare, *args: Any, **kwargs: Any) -> Page | None:
    """The request's conditional page, prepared once for the ETag and the view (None for a
    request that is not a read, or a page that is answered otherwise: an error)."""
    if request.method not in ("GET", "HEAD"):
        return None
    with _LOCK:
        if request in _PREPARED:
            return _PREPARED[request]
    found = prepare(request, *args, **kwargs)
    with _LOCK:
        _PREPARED[request] = found
    return found


def conditional(prepare: Prepare) -> Callable[[Callable[..., HttpResponse]], Any]:
    """The view answers a read 304 when the request's `If-None-Match` names the page
    `prepare` gives (Django's `condition`); every answer is `private, no-cache`."""

    def etag_of(request: HttpRequest, *args: Any, **kwargs: Any) -> str | None:
        found = prepared(request, prepare, *args, **kwargs)
        return found.etag if found is not None else None

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        return cache_control(private=True, no_cache=True)(condition(etag_func=etag_of)(view))

    return decorate
