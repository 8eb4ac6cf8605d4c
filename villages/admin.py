"""Moderation in the Django admin (SPEC §1, §11): villages, seats, messages, icons.

Game state is never edited here by hand: ending a village and kicking a seat go through
`villages.services.lifecycle`, like every other write, and saving a village writes only its
name and comment, as a new version (`moderation.edit_village`), so a vote committed while
the form was open is kept. Hiding a message goes through `moderation.set_hidden`. Codes
(roles, causes of death, phases, winners, kinds of line) are shown by their names.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.core.validators import FileExtensionValidator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from villages import wording
from villages.engine.errors import RuleError
from villages.services import lifecycle, moderation

from .models import Icon, InfoPage, Message, Seat, Village

# Raster images only: an uploaded SVG served from the site's origin could carry script.
ICON_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp"]
# What each kind of file begins with (its "magic number"), by extension.
_SIGNATURES = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpg": (b"\xff\xd8\xff",),
    "jpeg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
    "webp": (b"RIFF",),  # then four bytes of size, then WEBP
}


def is_the_image_it_says(upload: Any) -> None:
    """Validator: the file's bytes are the image its name says (an SVG or a page renamed
    fake.png was accepted, and showed as a broken image in every seat picker)."""
    ext = upload.name.rsplit(".", 1)[-1].lower()
    if ext not in _SIGNATURES:
        return  # FileExtensionValidator says so
    upload.seek(0)
    head = upload.read(12)
    upload.seek(0)
    fits = head.startswith(_SIGNATURES.get(ext, ()))
    if ext == "webp":
        fits = fits and head[8:12] == b"WEBP"
    if not fits:
        raise ValidationError(
            _("画像の中身が %(ext)s ではありません。PNG, JPEG, GIF, WebP の画像を選んでください。"),
            params={"ext": ext.upper()},
        )


def _report(modeladmin: admin.ModelAdmin, request: HttpRequest, done: int, errors: list[str]):
    if done:
        modeladmin.message_user(request, _("%(n)d 件を処理しました。") % {"n": done})
    for error in errors:
        modeladmin.message_user(request, error, level=messages.ERROR)


def _named(table: dict, field: str, description: Any) -> Any:
    """A list column showing `field`'s code by its name in `table` (sortable by the code)."""

    @admin.display(description=description, ordering=field)
    def column(self: admin.ModelAdmin, obj: Any) -> str:
        return wording.label(table, getattr(obj, field))

    column.__name__ = f"{field}_name"
    return column


def _code_filter(field: str, table: dict, title: Any) -> type[admin.SimpleListFilter]:
    """A list filter over `field`'s codes, offered by their names."""

    class CodeFilter(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
            return [(code, name) for code, name in table.items()]

        def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
            value = self.value()
            return queryset.filter(**{field: value}) if value else queryset

    CodeFilter.title = title
    CodeFilter.__name__ = f"{field.title()}Filter"
    return CodeFilter


def _roles(seat: Seat) -> str:
    return wording.roles_text(seat.role, seat.sub_roles or ())


# ---------------------------------------------------------------------------
# Villages and their seats


# What a seat's row shows, in its village's page and in the list of seats.
SEAT_COLUMNS = (
    "seat_no",
    "handle_name",
    "user",
    "trip",
    "role_names",
    "alive",
    "death_cause_name",
    "kicked",
)


class SeatInline(admin.TabularInline):
    model = Seat
    fields = SEAT_COLUMNS
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("seat_no",)

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description=_("役職"))
    def role_names(self, seat: Seat) -> str:
        return _roles(seat)

    death_cause_name = _named(wording.DEATH, "death_cause", _("死因"))


@admin.register(Village)
class VillageAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "status",
        "day",
        "phase_name",
        "winner_name",
        "abandoned",
        "seated",
        "capacity",
        "created_at",
        "ended_at",
    )
    list_display_links = ("id", "name")
    list_filter = (
        "status",
        _code_filter("phase", wording.PHASE, _("場面")),
        _code_filter("winner", wording.WINNER, _("勝者")),
        "abandoned",
        "created_at",
    )
    search_fields = ("=id", "name", "comment")
    date_hierarchy = "created_at"
    fields = (
        "name",
        "comment",
        "capacity",
        "options",
        "status",
        "day",
        "phase_name",
        "winner_name",
        "abandoned",
        "created_by",
        "created_at",
        "started_at",
        "ended_at",
        "deadline_at",
        "version",
    )
    readonly_fields = tuple(f for f in fields if f not in ("name", "comment"))
    inlines = [SeatInline]
    actions = ["end_now", "delete_selected"]

    phase_name = _named(wording.PHASE, "phase", _("場面"))
    winner_name = _named(wording.WINNER, "winner", _("勝者"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # villages are made by players, through the services

    def save_model(self, request: HttpRequest, obj: Village, form: Any, change: bool) -> None:
        # Only the words the staff may edit, as a new version: saving the whole row would
        # put back a game state read when the form was opened.
        moderation.edit_village(village_id=obj.pk, name=obj.name, comment=obj.comment)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        pass  # the seats are read-only here

    def construct_change_message(
        self, request: HttpRequest, form: Any, formsets: Any, add: bool = False
    ) -> list:
        return super().construct_change_message(request, form, [], add)  # seats unsaved

    @admin.action(description=_("選択した村を今すぐ終了する（廃村）"), permissions=["change"])
    def end_now(self, request: HttpRequest, queryset: QuerySet[Village]) -> HttpResponse | None:
        """Asks first (a page listing the villages); on "yes", each is closed through the
        engine, which posts 管理者により廃村 in it."""
        if request.POST.get("confirmed") != "yes":
            return TemplateResponse(
                request,
                "admin/villages/village/end_now_confirmation.html",
                {
                    **self.admin_site.each_context(request),
                    "title": _("村を今すぐ終了しますか？"),
                    "opts": self.model._meta,
                    "villages": list(queryset.order_by("pk")),
                    "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                    "action": "end_now",
                },
            )
        done, errors = 0, []
        for village in queryset:
            try:
                lifecycle.end_village(village_id=village.pk)
                done += 1
            except RuleError as exc:
                errors.append(f"{village}: {exc.message}")
        _report(self, request, done, errors)
        return None


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("village", *SEAT_COLUMNS)
    list_filter = ("kicked", "alive", _code_filter("role", wording.ROLE, _("役職")), "dummy")
    list_select_related = ("village", "user")
    search_fields = ("handle_name", "user__username", "=village__id", "village__name")
    readonly_fields = [f.name for f in Seat._meta.fields if f.name != "id"]
    actions = ["kick"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("役職"), ordering="role")
    def role_names(self, seat: Seat) -> str:
        return _roles(seat)

    death_cause_name = _named(wording.DEATH, "death_cause", _("死因"))

    @admin.action(description=_("選択した席をキックする（開始前のみ）"), permissions=["change"])
    def kick(self, request: HttpRequest, queryset: QuerySet[Seat]) -> None:
        """A staff kick removes the seat at once (SPEC §2.4), through the engine."""
        done, errors = 0, []
        for seat in queryset.filter(kicked=False).select_related("village"):
            try:
                if lifecycle.kick_vote(
                    village_id=seat.village_id, user=request.user, target=seat.seat_no
                ):
                    done += 1
                else:
                    errors.append(f"{seat}: " + str(_("キック票として数えられました。")))
            except RuleError as exc:
                errors.append(f"{seat}: {exc.message}")
        _report(self, request, done, errors)


# ---------------------------------------------------------------------------
# Messages


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "village",
        "day",
        "phase_name",
        "kind_name",
        "seat_no",
        "excerpt",
        "hidden",
    )
    list_filter = (
        "hidden",
        _code_filter("kind", wording.MESSAGE_KIND, _("種類")),
        _code_filter("phase", wording.PHASE, _("場面")),
        ("village", admin.RelatedOnlyFieldListFilter),
    )
    list_select_related = ("village",)
    search_fields = ("text", "=village__id")
    readonly_fields = [f.name for f in Message._meta.fields if f.name not in ("id", "hidden")]
    actions = ["hide", "unhide"]

    phase_name = _named(wording.PHASE, "phase", _("場面"))
    kind_name = _named(wording.MESSAGE_KIND, "kind", _("種類"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("本文"))
    def excerpt(self, message: Message) -> str:
        text = message.text.replace("\n", " ")
        return text if len(text) <= 60 else text[:59] + "…"

    @admin.action(description=_("選択した発言を非表示にする"), permissions=["change"])
    def hide(self, request: HttpRequest, queryset: QuerySet[Message]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        _report(self, request, moderation.set_hidden(ids, hidden=True), [])

    @admin.action(description=_("選択した発言を再表示する"), permissions=["change"])
    def unhide(self, request: HttpRequest, queryset: QuerySet[Message]) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        _report(self, request, moderation.set_hidden(ids, hidden=False), [])

    def save_model(self, request: HttpRequest, obj: Message, form: Any, change: bool) -> None:
        # The change form edits `hidden` only: through the service, so screens follow.
        moderation.set_hidden([obj.pk], hidden=obj.hidden)


# ---------------------------------------------------------------------------
# Icons


class IconForm(forms.ModelForm):
    image = forms.FileField(
        label=_("画像"),
        required=False,
        validators=[FileExtensionValidator(ICON_EXTENSIONS), is_the_image_it_says],
        help_text=_("PNG, JPEG, GIF, WebP。"),
    )

    class Meta:
        model = Icon
        fields = ("name", "image", "static_path", "order", "is_active")

    def clean(self) -> dict:
        data = super().clean()
        if not data.get("image") and not data.get("static_path"):
            raise forms.ValidationError(
                _("画像をアップロードするか、静的ファイルを指定してください。")
            )
        return data


@admin.register(Icon)
class IconAdmin(admin.ModelAdmin):
    form = IconForm
    list_display = ("preview", "name", "order", "is_active", "source")
    list_display_links = ("preview", "name")
    list_editable = ("order", "is_active")
    list_filter = ("is_active",)
    search_fields = ("name",)

    @admin.display(description=_("画像"))
    def preview(self, icon: Icon) -> str:
        return format_html('<img src="{}" alt="" width="32" height="32">', icon.url)

    @admin.display(description=_("出所"))
    def source(self, icon: Icon) -> str:
        return str(_("アップロード")) if icon.image else icon.static_path


# ---------------------------------------------------------------------------
# Information pages (情報一覧)


@admin.register(InfoPage)
class InfoPageAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "order", "published", "updated_at")
    list_editable = ("order", "published")
    list_filter = ("published",)
    search_fields = ("title", "slug", "body")
