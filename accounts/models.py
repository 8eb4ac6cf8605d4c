"""A player's profile: API token and screen preferences. History is derived from seats."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

REFRESH_CHOICES = (0, 15, 30, 45, 60, 90, 120)


def new_token() -> str:
    return secrets.token_hex(20)


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    api_token = models.CharField(_("APIトークン"), max_length=64, unique=True, default=new_token)
    refresh_seconds = models.PositiveSmallIntegerField(
        _("自動更新"), default=0, choices=[(n, str(n)) for n in REFRESH_CHOICES]
    )
    sound = models.BooleanField(_("音でお知らせ"), default=True)
    list_below = models.BooleanField(_("リストを下に表示"), default=False)
    language = models.CharField(_("言語"), max_length=8, blank=True)

    class Meta:
        verbose_name = _("プロフィール")
        verbose_name_plural = _("プロフィール")

    def __str__(self) -> str:
        return f"{self.user}"

    def renew_token(self) -> str:
        self.api_token = new_token()
        self.save(update_fields=["api_token"])
        return self.api_token
