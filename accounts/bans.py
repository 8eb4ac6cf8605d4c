"""Bans (利用停止, SPEC §11c): typed, with a reason and an end, in force at once.

A ban of a kind refuses what it names, everywhere: `create` making villages, `talk` talk,
wills and heaven talk, `play` sitting, voting, acting and objecting, `login` the password,
the session and the API token (`accounts.backends`, `accounts.services.user_for_token`).
The banned user is told the kind, the reason and the end (API.md's `banned`).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from villages.services.errors import Banned

from .models import Ban


def in_force(user_id: int) -> QuerySet[Ban]:
    return Ban.objects.filter(user_id=user_id).filter(
        Q(until__isnull=True) | Q(until__gt=timezone.now())
    )


def in_force_q(prefix: str = "") -> Q:
    """Bans in force, as a filter on a related name (for one-query checks)."""
    return Q(**{f"{prefix}until__isnull": True}) | Q(**{f"{prefix}until__gt": timezone.now()})


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


def check(user: Any, kind: str) -> None:
    """Raise `Banned` when a ban of `kind` (or a log-in ban) is in force for the user.

    A user read by the site's auth (`accounts.backends.with_bans`) knows its bans already;
    another is looked up."""
    if user is None or not getattr(user, "pk", None):
        return
    known = getattr(user, f"banned_{kind}", None)
    if known is False and getattr(user, "login_banned", None) is False:
        return
    ban = in_force(user.pk).filter(kind__in=(kind, Ban.Kind.LOGIN)).first()
    if ban is not None:
        raise Banned(describe(ban))


def notice_for(user_id: int | None) -> str:
    """What the user is told of the bans in force ("" when none)."""
    if user_id is None:
        return ""
    return " ".join(describe(ban) for ban in in_force(user_id))


def user_may_log_in(user_id: int) -> bool:
    from django.contrib.auth import get_user_model

    active = get_user_model().objects.filter(pk=user_id, is_active=True).exists()
    return active and not in_force(user_id).filter(kind=Ban.Kind.LOGIN).exists()
