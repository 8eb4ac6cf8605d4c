"""Who opens a WebSocket, and which handshakes must come from one of our own pages."""

from __future__ import annotations

from importlib import import_module
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest
from django.http.cookie import parse_cookie


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
        return await self.checked(scope, receive, send)


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
