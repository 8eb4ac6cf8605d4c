"""Moderation of accounts in the Django admin (SPEC §1, §11c): bans, profiles.

Typed bans (`Ban`: create, talk, play, login; a reason and an end) are added on the user's
page or under 利用停止; a log-in ban, like the whole-account one (`is_active = False`, the
"ban" action), stops the password, the session and the API token at once. Open screens of
the user learn of any of them at once (`villages.services.push.publish_user`).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from villages.services.push import after_commit, publish_user

from .models import Ban, Profile
from .names import holder_of

User = get_user_model()


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    readonly_fields = ("api_token", "pending_email")
    fields = ("api_token", "pending_email", "refresh_seconds", "sound", "list_below", "language")


def _tell_screens(user_ids: list[int]) -> None:
    for user_id in set(user_ids):
        after_commit(publish_user, user_id)


class BanInline(admin.TabularInline):
    model = Ban
    fk_name = "user"
    fields = ("kind", "reason", "until", "created_at", "created_by")
    readonly_fields = ("created_at", "created_by")
    extra = 0


@admin.register(Ban)
class BanAdmin(admin.ModelAdmin):
    list_display = ("user", "kind", "reason", "until", "in_force", "created_at", "created_by")
    list_filter = ("kind", "until", "created_at")
    list_select_related = ("user", "created_by")
    search_fields = ("user__username", "reason")
    raw_id_fields = ("user",)
    readonly_fields = ("created_at", "created_by")
    actions = ["lift"]

    @admin.display(boolean=True, description=_("有効"))
    def in_force(self, ban: Ban) -> bool:
        return ban.until is None or ban.until > timezone.now()

    @admin.action(description=_("選択した利用停止を今すぐ解除する（履歴は残ります）"))
    def lift(self, request: HttpRequest, queryset: QuerySet[Ban]) -> None:
        """Ends the bans now rather than deleting them: the user's page keeps its history."""
        now = timezone.now()
        lifted = list(queryset.filter(Q(until__isnull=True) | Q(until__gt=now)))
        for ban in lifted:
            ban.until = now
            ban.save(update_fields=["until"])  # the user's summary follows (accounts.bans)
        _tell_screens([ban.user_id for ban in lifted])
        self.message_user(request, _("%(n)d 件の利用停止を解除しました。") % {"n": len(lifted)})

    def save_model(self, request: HttpRequest, obj: Ban, form: Any, change: bool) -> None:
        if obj.created_by_id is None:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        _tell_screens([obj.user_id])

    def delete_model(self, request: HttpRequest, obj: Ban) -> None:
        super().delete_model(request, obj)
        _tell_screens([obj.user_id])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Ban]) -> None:
        users = list(queryset.values_list("user_id", flat=True))
        super().delete_queryset(request, queryset)
        _tell_screens(users)


if admin.site.is_registered(User):
    admin.site.unregister(User)


class RenameForm(UserChangeForm):
    """A user renamed in the admin may not take a name that differs from another user's
    only in letter case (`accounts.names`; Django's own form for a new user refuses it)."""

    def clean_username(self) -> str:
        name = self.cleaned_data["username"]
        held = holder_of(name, besides=self.instance.pk)
        if held is not None:
            raise ValidationError(
                _("「%(name)s」というユーザー名がすでにあります。"), params={"name": held}
            )
        return name


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = RenameForm
    inlines = [ProfileInline, BanInline]
    list_display = ("username", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_superuser", "date_joined")
    actions = ["ban", "unban"]

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if formset.model is Ban:
            for ban in formset.save(commit=False):
                if ban.created_by_id is None:
                    ban.created_by = request.user
                ban.save()
            for gone in formset.deleted_objects:
                gone.delete()
            _tell_screens([form.instance.pk])
            return
        super().save_formset(request, form, formset, change)

    @admin.action(description=_("選択したユーザーを利用停止にする"), permissions=["change"])
    def ban(self, request: HttpRequest, queryset: QuerySet) -> None:
        targets = queryset.exclude(pk=request.user.pk)
        users = list(targets.values_list("pk", flat=True))
        banned = targets.update(is_active=False)
        _tell_screens(users)
        self.message_user(request, _("%(n)d 人を利用停止にしました。") % {"n": banned})

    @admin.action(description=_("選択したユーザーの利用停止を解除する"), permissions=["change"])
    def unban(self, request: HttpRequest, queryset: QuerySet) -> None:
        users = list(queryset.values_list("pk", flat=True))
        restored = queryset.update(is_active=True)
        _tell_screens(users)
        self.message_user(request, _("%(n)d 人の利用停止を解除しました。") % {"n": restored})


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "refresh_seconds", "sound", "list_below", "language")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "api_token")
    actions = ["renew_tokens"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a profile comes with its user

    @admin.action(description=_("APIトークンを再発行する"), permissions=["change"])
    def renew_tokens(self, request: HttpRequest, queryset: QuerySet[Profile]) -> None:
        for profile in queryset:
            profile.renew_token()
        self.message_user(
            request, _("%(n)d 件のトークンを再発行しました。") % {"n": queryset.count()}
        )
