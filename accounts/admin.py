"""Moderation of accounts in the Django admin (SPEC §1): ban and unban users, profiles.

A ban is `is_active = False`: the password, the session and the API token all stop
working at once (`accounts.services.user_for_token` refuses inactive users).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import Profile

User = get_user_model()


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    readonly_fields = ("api_token",)
    fields = ("api_token", "refresh_seconds", "sound", "list_below", "language")


if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    inlines = [ProfileInline]
    list_display = ("username", "is_active", "is_staff", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_superuser", "date_joined")
    actions = ["ban", "unban"]

    @admin.action(description=_("選択したユーザーを利用停止にする"), permissions=["change"])
    def ban(self, request: HttpRequest, queryset: QuerySet) -> None:
        banned = queryset.exclude(pk=request.user.pk).update(is_active=False)
        self.message_user(request, _("%(n)d 人を利用停止にしました。") % {"n": banned})

    @admin.action(description=_("選択したユーザーの利用停止を解除する"), permissions=["change"])
    def unban(self, request: HttpRequest, queryset: QuerySet) -> None:
        restored = queryset.update(is_active=True)
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
