"""Bans (利用停止, SPEC §11c): typed, with a reason and an end, in force at once.

A ban of a kind refuses what it names, everywhere: `create` making villages, `talk` talk,
wills and heaven talk, `play` sitting, voting, acting and objecting, `login` the password,
the session and the API token (`accounts.backends`, `accounts.services.user_for_token`).
The banned user is told the kind, the reason and the end (API.md's `banned`).

The rows are `Ban`s; each user's profile keeps a summary (kind → end) that the request's
user brings along, so that a check costs no query when the user has no ban in force.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from villages.services.errors import Banned

from .models import Ban, Profile


def in_force(user_id: int) -> QuerySet[Ban]:
    return Ban.objects.filter(user_id=user_id).filter(
        Q(until__isnull=True) | Q(until__gt=timezone.now())
    )


def describe(ban: Ban) -> str:
    until = (
        _("%(date)sまで") % {"date": date_format(timezone.localtime(ban.until), "Y-m-d H:i")}
        if ban.until
        else _("無期限")
    )
    return _("このアカウントは「%(kind)s」を停止されています（理由: %(reason)s、%(until)s）。") % {
        "kind": ban.get_kind_display(),
        "reason": ban.reason,
        "until": until,
    }


def _summary(user: Any) -> dict[str, str | None]:
    """The user's summary of bans in force (kind -> end), from its profile: read with the
    user where the user was (a token's user brings it as `profile_bans`; the session's
    user comes with `select_related("profile")`), else one query."""
    along = getattr(user, "profile_bans", None)
    if along is not None:
        return json.loads(along) if isinstance(along, str) else dict(along)
    try:
        profile = user.profile
    except Profile.DoesNotExist:
        return {}
    return profile.bans or {}


def banned_from(user: Any, kind: str) -> bool:
    """A ban of `kind` is in force for the user (by its profile's summary)."""
    if user is None or not getattr(user, "pk", None):
        return False
    summary = _summary(user)
    if kind not in summary:
        return False
    until = summary[kind]
    return until is None or datetime.fromisoformat(until) > timezone.now()


def has_bans(user: Any) -> bool:
    """The user's profile lists a ban (in force, or ended and not yet tidied away)."""
    return bool(_summary(user))


def check(user: Any, kind: str) -> None:
    """Raise `Banned` when a ban of `kind` (or a log-in ban) is in force for the user."""
    if not (banned_from(user, kind) or banned_from(user, Ban.Kind.LOGIN)):
        return
    ban = in_force(user.pk).filter(kind__in=(kind, Ban.Kind.LOGIN)).first()
    if ban is not None:
        raise Banned(describe(ban))


def notice_for(user_id: int | None) -> str:
    """What the user is told of the bans in force ("" when none)."""
    return standing_of(user_id)[0]


def standing_of(user_id: int | None) -> tuple[str, frozenset[str]]:
    """The notice of the bans in force ("" when none) and their kinds, in one read."""
    if user_id is None:
        return "", frozenset()
    bans = list(in_force(user_id))
    return " ".join(describe(ban) for ban in bans), frozenset(ban.kind for ban in bans)


def login_refusal(user: Any) -> str:
    """What a user whose credentials are right, but who may not log in, is told: the log-in
    ban in force ("" when there is none). Asked only after the password or the token was
    found right, so that nobody learns of another's ban."""
    ban = in_force(user.pk).filter(kind=Ban.Kind.LOGIN).first()
    return describe(ban) if ban is not None else ""


def user_may_log_in(user_id: int) -> bool:
    from django.contrib.auth import get_user_model

    active = get_user_model().objects.filter(pk=user_id, is_active=True).exists()
    return active and not in_force(user_id).filter(kind=Ban.Kind.LOGIN).exists()


def refresh(user_id: int) -> None:
    """Rewrite the user's summary from its Ban rows (the latest end of each kind)."""
    ends: dict[str, list[datetime | None]] = {}
    for ban in in_force(user_id):
        ends.setdefault(ban.kind, []).append(ban.until)
    summary = {
        kind: None if None in until else max(u for u in until if u is not None).isoformat()
        for kind, until in ends.items()
    }
    profile, _created = Profile.objects.get_or_create(user_id=user_id)
    if profile.bans != summary:
        profile.bans = summary
        profile.save(update_fields=["bans"])


@receiver(post_save, sender=Ban)
@receiver(post_delete, sender=Ban)
def _ban_changed(sender: type, instance: Ban, **kwargs: Any) -> None:
    refresh(instance.user_id)
