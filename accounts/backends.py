"""Django's model backend, refusing users banned from logging in (SPEC §11c).

Both the password check and every request's session user go through it, so a log-in ban
ends the user's open sessions at once. The session's user is read with its profile, which
holds its bans (`accounts.bans`): no other query."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from .bans import banned_from


class BanAwareBackend(ModelBackend):
    def user_can_authenticate(self, user: Any) -> bool:
        return super().user_can_authenticate(user) and not banned_from(user, "login")

    def get_user(self, user_id: Any) -> Any:
        User = get_user_model()
        user = User._default_manager.select_related("profile").filter(pk=user_id).first()
        return user if user is not None and self.user_can_authenticate(user) else None
