"""A player's profile: API token and screen preferences. History is derived from seats."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

REFRESH_CHOICES = (0, 15, 30, 45, 60, 90, 120)


def kept_user_ref(**options: object) -> models.ForeignKey:  # type: ignore[type-arg]
    """A reference to a user that outlives the account: deleting the user leaves NULL
    (who created a village or a ban, who sat in a seat), never deletes the row."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, **options
    )


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
    # An address given but not yet confirmed by its link (accounts.mail); the user's
    # `email` holds only a confirmed one, the one password-reset mail goes to.
    pending_email = models.EmailField(_("確認待ちのメールアドレス"), blank=True)
    # The user's bans, by kind → end (ISO) or None: kept by accounts.bans from Ban rows,
    # so that reading the user (with its profile) tells them without another query.
    bans = models.JSONField(default=dict, blank=True, editable=False)

    class Meta:
        verbose_name = _("プロフィール")
        verbose_name_plural = _("プロフィール")

    def __str__(self) -> str:
        return f"{self.user}"

    def renew_token(self) -> str:
        self.api_token = new_token()
        self.save(update_fields=["api_token"])
        return self.api_token


class Ban(models.Model):
    """利用停止 (SPEC §11c): what a user may no longer do, why, and until when."""

    class Kind(models.TextChoices):
        CREATE = "create", _("村の作成")
        TALK = "talk", _("発言")
        PLAY = "play", _("村への参加と投票・行動")
        LOGIN = "login", _("ログイン")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="bans",
        verbose_name=_("ユーザー"),
        help_text=_("ユーザーの番号。虫眼鏡からユーザー名で探せます。"),
    )
    kind = models.CharField(_("種類"), max_length=10, choices=Kind.choices)
    reason = models.CharField(_("理由"), max_length=200)
    until = models.DateTimeField(_("期限"), null=True, blank=True, help_text=_("空欄は無期限"))
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)
    created_by = kept_user_ref(related_name="+", verbose_name=_("作成者"))

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "kind"])]
        verbose_name = _("利用停止")
        verbose_name_plural = _("利用停止")

    def __str__(self) -> str:
        return f"{self.user} {self.get_kind_display()}"
