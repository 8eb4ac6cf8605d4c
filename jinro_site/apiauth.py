"""Who is calling the API: `Authorization: Token <key>`, or the browser session with CSRF."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext_noop

from accounts.services import user_for_token
from villages.engine.errors import Forbidden
from villages.services.errors import NotAuthenticated


def _token(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() in ("token", "bearer") and key.strip():
        return key.strip()
    return None


_UNKNOWN: Any = object()


def optional_user(request: HttpRequest) -> AbstractBaseUser | None:
    """The caller, or None for a spectator; a bad token is an error, not a spectator."""
    key = _token(request)
    if key is not None:
        # Looked up once per request (jinro_site.api checks the caller before the body,
        # then the endpoint asks again): kept in a request attribute of our own, set as
        # Django's middleware set theirs (HttpRequest, "Attributes set by middleware").
        user = getattr(request, "jinro_token_user", _UNKNOWN)
        if user is _UNKNOWN:
            user = request.jinro_token_user = user_for_token(key)
        if user is None:
            raise NotAuthenticated(gettext_noop("トークンが正しくありません。"))
        return user
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    return None


def require_user(request: HttpRequest) -> AbstractBaseUser:
    """The caller of a POST or DELETE; a session caller must also pass the CSRF check."""
    user = optional_user(request)
    if user is None:
        raise NotAuthenticated()
    if _token(request) is None:
        refused = CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {})
        if refused is not None:
            raise Forbidden(
                gettext_noop("CSRFトークンが正しくありません。ページを読み込み直してください。")
            )
    return user


def client_ip(request: HttpRequest) -> str | None:
    """The address a request came from (daphne's --proxy-headers put a proxy's client
    there): what one seat per address and the rate limits count."""
    return request.META.get("REMOTE_ADDR") or None
