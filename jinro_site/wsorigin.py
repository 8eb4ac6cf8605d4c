"""Which WebSocket handshakes must come from one of our own pages."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.security.websocket import AllowedHostsOriginValidator


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
