"""Accounts: registration, API tokens and the rate limits that guard them."""

from __future__ import annotations

import functools

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_noop

from villages.engine.errors import BadRequest, NameTaken
from villages.services.errors import Banned, NotAuthenticated
from villages.services.ratelimit import (
    LOGIN_LIMIT,
    REGISTER_LIMIT,
    rate_limit,
    use_allowance,
    within_limit,
)

from .bans import banned_from, login_refusal
from .models import Profile
from .names import holder_of


def profile_of(user: AbstractBaseUser) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


# Refused past REGISTER_LIMIT: how many, and when to try again (README says the limit).
TOO_MANY_ACCOUNTS = gettext_noop(
    "この接続元からのユーザー登録は{hours}時間に{count}件までです。"
    "{minutes}分ほど後にもう一度お試しください。"
)


def register(*, username: str, password: str, ip: str | None) -> tuple[AbstractBaseUser, str]:
    """A new account and its API token. Only an account made uses up the address's
    allowance (REGISTER_LIMIT): a refused attempt (a bad password, a name taken) does not."""
    address = ip or "-"
    within_limit("register", address, REGISTER_LIMIT, refusal=TOO_MANY_ACCOUNTS)
    username = (username or "").strip()
    User = get_user_model()
    if not username or len(username) > 150:
        raise BadRequest(gettext_noop("ユーザー名は1〜150文字で入力してください。"))
    try:
        User.username_validator(username)  # type: ignore[attr-defined]
    except ValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from exc
    refuse_taken(username)
    try:
        validate_password(password, User(username=username))
    except ValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from exc
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            profile = profile_of(user)
    except IntegrityError as exc:  # taken meanwhile (the unique index on the folded name)
        raise NameTaken(NAME_TAKEN) from exc
    use_allowance("register", address, REGISTER_LIMIT)
    return user, profile.api_token


NAME_TAKEN = gettext_noop("そのユーザー名はすでに使われています。")
NAME_TAKEN_AS = gettext_noop(
    "「{name}」というユーザー名がすでにあります。"
    "大文字と小文字、全角と半角の違いだけの名前は同じ名前とみなします。"
)


def refuse_taken(username: str) -> None:
    """NameTaken when the name, or one that differs from it only in letter case or width,
    is someone's already."""
    held = holder_of(username)
    if held is None:
        return
    raise NameTaken(NAME_TAKEN) if held == username else NameTaken(NAME_TAKEN_AS, name=held)


def token_for(*, username: str, password: str, ip: str | None) -> str:
    rate_limit("login", ip or "-", LOGIN_LIMIT)
    user = authenticate(username=username, password=password)
    if user is None or not user.is_active:
        refuse_banned_login(username, password)
        raise NotAuthenticated(gettext_noop("ユーザー名かパスワードが違います。"))
    return profile_of(user).api_token


def refuse_banned_login(username: str, password: str) -> None:
    """Raise `Banned` (kind, reason, end) when these are the right credentials of an active
    user with a log-in ban; return when they are not (the caller says "wrong")."""
    User = get_user_model()
    user = User._default_manager.filter(**{User.USERNAME_FIELD: username}).first()
    right = user is not None and user.is_active and user.check_password(password)
    if right and (notice := login_refusal(user)):
        raise Banned(notice)


def user_for_token(key: str) -> AbstractBaseUser | None:
    """The token's user; None when it is nobody's or its user is inactive; `Banned` (403,
    with the ban's kind, reason and end) when its user is banned from logging in. One
    query (the user, and its profile's summary of bans as `profile_bans`), when no ban is
    in force: every API request asks it, so it is written as SQL (Manager.raw), which
    costs a sixth of the ORM's building the same join."""
    if not key:
        return None
    user = next(iter(get_user_model()._default_manager.raw(_by_token(), [key])), None)
    if user is None or not user.is_active:
        return None
    if banned_from(user, "login"):
        raise Banned(login_refusal(user) or None)
    return user


@functools.cache
def _by_token() -> str:
    users, profiles = get_user_model()._meta.db_table, Profile._meta.db_table
    return (
        f'SELECT u.*, p.bans AS profile_bans FROM "{users}" u '
        f'JOIN "{profiles}" p ON p.user_id = u.id WHERE p.api_token = %s'
    )
