"""The accounts part of the public API (shared/API.md)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Status

from jinro_site.apiauth import client_ip, optional_user
from jinro_site.apischema import ANY, READ, Body, answers, limits, refused_in_words

from . import selectors, services

router = Router(tags=["accounts"])

Json = dict[str, Any]


# What a pattern can say of the password validators (settings.py): not only digits, as
# NumericPasswordValidator (which also refuses other scripts' digits: said in words), and
# no NUL (apischema.NO_NUL).
PASSWORD = r"^(?![0-9]+$)[^\x00]*$"


class CredentialsIn(Body):
    username: str = Field(
        ...,
        description="letters, digits and @.+-_; unique regardless of letter case and width",
        **limits(min_length=1, max_length=150, pattern=r"^[\w.@+-]+$"),
    )
    password: str = Field(
        ...,
        description="8 characters or more, not only digits, not a common password, not like "
        "the username (Django's password validators)",
        **limits(min_length=8, max_length=128, pattern=PASSWORD),
    )


@router.post(
    "/auth/register",
    response=answers({201: Json}, 400, 409, 429, *ANY),
    summary="Register and get a token",
    openapi_extra=refused_in_words(
        "bad_request: also a password the validators refuse, which the pattern cannot say "
        "(a common password, or one too like the username)"
    ),
)
def register(request: HttpRequest, payload: CredentialsIn) -> Status[Json]:
    user, token = services.register(
        username=payload.username, password=payload.password, ip=client_ip(request)
    )
    return Status(201, {"username": user.get_username(), "token": token})


@router.post(
    "/auth/token",
    response=answers({200: Json}, 400, 429, *ANY),
    summary="Get the token of an account",
)
def token(request: HttpRequest, payload: CredentialsIn) -> Json:
    key = services.token_for(
        username=payload.username, password=payload.password, ip=client_ip(request)
    )
    return {"token": key}


@router.get("/me", response=answers({200: Json}, *ANY), summary="Who the caller is")
def me(request: HttpRequest) -> Json:
    """Like every GET, it works without authentication: a spectator is nobody."""
    user = optional_user(request)
    if user is None:
        return {"username": None, "is_staff": False}
    return {"username": user.get_username(), "is_staff": bool(getattr(user, "is_staff", False))}


@router.get(
    "/users/{username}/history",
    response=answers({200: Json}, 400, *READ),
    summary="Finished games and statistics",
)
def history(
    request: HttpRequest,
    username: str,
    practice: bool = Query(False, description="count practice games (with bots) in the stats"),
) -> Json:
    return selectors.history(username, include_practice=practice)
