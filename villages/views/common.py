"""What every screen needs: who is looking, their screen preferences, and errors in Japanese."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import REFRESH_CHOICES, Profile
from villages.engine.errors import RuleError
from villages.services.errors import http_status
from villages.wording import error_text

COOKIE_REFRESH = "jinro_refresh"
COOKIE_SOUND = "jinro_sound"
COOKIE_LIST = "jinro_list_below"
COOKIE_AGE = 365 * 24 * 3600


@dataclass(frozen=True)
class Prefs:
    """自動更新 / 音でお知らせ / ↑リスト↓リスト: a user's profile, or an anonymous cookie."""

    refresh: int = 0
    sound: bool = True
    list_below: bool = False


def user_id(request: HttpRequest) -> int | None:
    user = request.user
    return user.pk if user.is_authenticated else None


def profile(request: HttpRequest) -> Profile | None:
    if not request.user.is_authenticated:
        return None
    found, _ = Profile.objects.get_or_create(user=request.user)
    return found


def prefs(request: HttpRequest) -> Prefs:
    if request.user.is_authenticated:
        # The session's user comes with its profile (accounts.backends): no query then.
        try:
            p = request.user.profile
        except Profile.DoesNotExist:
            return Prefs()
        return Prefs(p.refresh_seconds, p.sound, p.list_below)
    try:
        refresh = int(request.COOKIES.get(COOKIE_REFRESH, "0"))
    except ValueError:
        refresh = 0
    return Prefs(
        refresh if refresh in REFRESH_CHOICES else 0,
        request.COOKIES.get(COOKIE_SOUND, "1") == "1",
        request.COOKIES.get(COOKIE_LIST, "0") == "1",
    )


def save_prefs(request: HttpRequest, response: HttpResponse, new: Prefs) -> None:
    p = profile(request)
    if p is not None:
        p.refresh_seconds, p.sound, p.list_below = new.refresh, new.sound, new.list_below
        p.save(update_fields=["refresh_seconds", "sound", "list_below"])
        return
    for name, value in (
        (COOKIE_REFRESH, str(new.refresh)),
        (COOKIE_SOUND, "1" if new.sound else "0"),
        (COOKIE_LIST, "1" if new.list_below else "0"),
    ):
        response.set_cookie(name, value, max_age=COOKIE_AGE, samesite="Lax")


def error_page(
    request: HttpRequest, error: RuleError, template: str = "villages/error.html", **context
) -> HttpResponse:
    """A rule or service error shown to people, with the status the API would give."""
    context.setdefault("error", error_text(error))
    return render(request, template, context, status=http_status(error))
