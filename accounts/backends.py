"""Django's model backend, refusing users banned from logging in (SPEC §11c).

Both the password check and every request's session user go through it, so a log-in ban
ends the user's open sessions at once (the session's user is read with its bans in the
same query)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db.models import Exists, OuterRef, QuerySet

from .models import Ban


def _banned(kind: str) -> Exists:
    from .bans import in_force_q

    return Exists(Ban.objects.filter(in_force_q(), user=OuterRef("pk"), kind=kind))


def login_banned() -> Exists:
    """An annotation: the user (the query's row) is banned from logging in now."""
    return _banned(Ban.Kind.LOGIN)


def with_bans(users: QuerySet) -> QuerySet:
    """Users read with the kinds of ban in force on them (`banned_<kind>`), in one query."""
    return users.annotate(
        login_banned=login_banned(),
        **{f"banned_{kind}": _banned(kind) for kind in Ban.Kind.values},
    )


class BanAwareBackend(ModelBackend):
    def user_can_authenticate(self, user: Any) -> bool:
        if not super().user_can_authenticate(user):
            return False
        banned = getattr(user, "login_banned", None)
        if banned is None:
            banned = Ban.objects.filter(user=user).filter(_in_force(), kind="login").exists()
        return not banned

    def get_user(self, user_id: Any) -> Any:
        User = get_user_model()
        user = with_bans(User._default_manager.filter(pk=user_id)).first()
        return user if user is not None and self.user_can_authenticate(user) else None


def _in_force() -> Any:
    from .bans import in_force_q

    return in_force_q()
