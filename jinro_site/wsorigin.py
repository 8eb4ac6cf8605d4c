"""Who opens a WebSocket, which handshakes must come from one of our own pages, and which
addresses have a socket at all."""

from __future__ import annotations

from importlib import import_module
from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.urls import Resolver404, resolve


class SessionOriginValidator:
    """The Origin check where the session cookie would say who is connecting.

    The check stops another site's page from opening a socket with its visitor's cookie
    (cross-site WebSocket hijacking). It does not concern a socket with `?token=`: that
    socket is the token's user and nobody else (a bad token is refused, the cookie never
    consulted), and a page elsewhere cannot know the token. Nor a client that sends no
    Origin at all: browsers always send it, so that is a bot or a native app (API.md).
    """

    def __init__(self, application: Any) -> None:
        self.application = application
        self.checked = AllowedHostsOriginValidator(application)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if _has_token(scope) or not _has_origin(scope):
            return await self.application(scope, receive, send)
        if not same_origin(scope):
            return await refuse(receive, send)
        return await self.checked(scope, receive, send)  # and a host of ALLOWED_HOSTS


def same_origin(scope: dict[str, Any]) -> bool:
    """The handshake's Origin is this site as the browser reached it — scheme, host and
    port, as Django's CSRF check compares them — or one of CSRF_TRUSTED_ORIGINS."""
    origin = _header(scope, b"origin").strip().lower()
    if origin in {o.lower() for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    host = _header(scope, b"host").lower()
    if not host:
        return True  # not a browser (browsers always send Host): only ALLOWED_HOSTS applies
    secure = scope.get("scheme") in ("wss", "https") or _forwarded_https(scope)
    scheme = "https" if secure else "http"
    return _normal(origin) == _normal(f"{scheme}://{host}")


def _normal(origin: str) -> tuple[str, str]:
    """(scheme, host[:port]) without the scheme's default port."""
    parts = urlsplit(origin)
    netloc = parts.netloc
    default = {"http": ":80", "https": ":443"}.get(parts.scheme, "")
    if default and netloc.endswith(default):
        netloc = netloc[: -len(default)]
    return parts.scheme, netloc


def _forwarded_https(scope: dict[str, Any]) -> bool:
    """The front server says the visitor came over HTTPS (SECURE_PROXY_SSL_HEADER)."""
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if not proxy:
        return False
    name, value = proxy
    header = name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1")
    return _header(scope, header) == value


def _header(scope: dict[str, Any], name: bytes) -> str:
    found = next((v for k, v in scope.get("headers", []) if k == name), b"")
    return found.decode("latin-1")


async def refuse(receive: Any, send: Any) -> None:
    """Close the handshake before accepting it (daphne answers it 403)."""
    if (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 4403})


class KnownPaths:
    """A handshake to an address that has no socket (`/ws/nowhere/`) is refused, where the
    router would fail with an error (an HTTP 500 from daphne)."""

    def __init__(self, application: Any, urlconf: str) -> None:
        self.application = application
        self.urlconf = urlconf

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        try:
            resolve(scope["path"], urlconf=self.urlconf)
        except Resolver404:
            return await refuse(receive, send)
        return await self.application(scope, receive, send)


def _has_token(scope: dict[str, Any]) -> bool:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return any(value.strip() for value in query.get("token", []))


def _has_origin(scope: dict[str, Any]) -> bool:
    return any(name == b"origin" for name, _value in scope.get("headers", []))


class SessionUser:
    """`scope["user"]` (and `scope["session"]`) from the session cookie, read once as the
    socket opens, by Django's own `get_user` on the session (in a thread). (Channels'
    AuthMiddlewareStack does the same but also wraps `send`, to save a session and set its
    cookie on an HTTP response: on a socket that never happens, yet the wrapper ran for
    every pushed frame.)"""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        header = next((v for k, v in scope.get("headers", []) if k == b"cookie"), b"")
        cookies = parse_cookie(header.decode("latin-1"))
        store = import_module(settings.SESSION_ENGINE).SessionStore
        request = HttpRequest()
        request.session = store(cookies.get(settings.SESSION_COOKIE_NAME))
        user = await database_sync_to_async(get_user)(request)
        scope = dict(scope, cookies=cookies, session=request.session, user=user)
        return await self.application(scope, receive, send)
