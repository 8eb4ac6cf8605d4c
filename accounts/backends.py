"""Django's model backend, refusing users banned from logging in (SPEC §11c).

Both the password check and every request's session user go through it, so a log-in ban
ends the user's open sessions at once. The session's user is read with its profile, which
holds its bans (`accounts.bans`) and the screen's preferences: nothing else asks for them."""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from .bans import banned_from
from .models import Profile


class BanAwareBackend(ModelBackend):
    def user_can_authenticate(self, user: Any) -> bool:
        return super().user_can_authenticate(user) and not banned_from(user, "login")

    def get_user(self, user_id: Any) -> Any:
        """The session's user and its profile. Every request of a logged-in user asks, so
        both are read as SQL (Manager.raw): the two cost half of what the ORM's
        `select_related("profile")` costs to build and read. The profile is set on the
        user by assignment to the reverse one-to-one (as Django's one-to-one example does),
        so that nothing reads it again. A user without one (logging in makes it; an account
        the staff made may lack it) is read by the ORM's join, which says it has none."""
        users, profiles = _sql()
        User = get_user_model()
        user = next(iter(User._default_manager.raw(users, [user_id])), None)
        if user is None:
            return None
        profile = next(iter(Profile.objects.raw(profiles, [user.pk])), None)
        if profile is not None:
            user.profile = profile
        else:
            user = User._default_manager.select_related("profile").filter(pk=user.pk).first()
            if user is None:
                return None
        return user if self.user_can_authenticate(user) else None


@functools.cache
def _sql() -> tuple[str, str]:
    users, profiles = get_user_model()._meta.db_table, Profile._meta.db_table
    return (
        f'SELECT * FROM "{users}" WHERE id = %s',
        f'SELECT * FROM "{profiles}" WHERE user_id = %s',
    )
