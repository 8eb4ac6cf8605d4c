"""Persistence only: villages, seats, messages, ballots, night actions, icons.

The rules live in `villages.engine`; `villages.services.persist` maps these
rows to the engine's state and back.
"""

from __future__ import annotations

import uuid
from functools import lru_cache

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.core.signals import setting_changed
from django.db import models
from django.db.models import Q
from django.dispatch import receiver
from django.templatetags.static import static
from django.utils.translation import gettext_lazy as _

from accounts.models import kept_user_ref
from villages.engine.visibility import public_line


@lru_cache(maxsize=4096)
def _static_url(path: str) -> str:
    # static() costs ~20 µs (storage lookup, urljoin); a state frame names 22 icons for
    # each of 23 viewers at every push, which made it most of the push's time.
    try:
        return static(path)
    except ValueError:
        # Not among the collected files (a path typed in the admin that does not exist):
        # its plain URL, which answers 404, rather than a page that fails to draw.
        return settings.STATIC_URL + path


@receiver(setting_changed)
def _forget_static_urls(*, setting: str, **kwargs: object) -> None:
    if setting in ("STATIC_URL", "STORAGES", "STATICFILES_STORAGE"):
        _static_url.cache_clear()


class IconQuerySet(models.QuerySet["Icon"]):
    def choosable(self) -> IconQuerySet:
        """The icons a player may choose for a seat."""
        return self.filter(is_active=True, reserved=False)


class Icon(models.Model):
    """A picture a seat may wear: the site's own set, or one an admin uploaded."""

    name = models.CharField(_("名前"), max_length=40)
    static_path = models.CharField(_("静的ファイル"), max_length=200, blank=True)
    image = models.FileField(_("画像"), upload_to="icons/", blank=True)
    order = models.PositiveIntegerField(_("並び順"), default=0)
    is_active = models.BooleanField(_("使用可"), default=True)
    # The system's own seats wear these (the dummy boy); players may not choose them.
    reserved = models.BooleanField(_("システム用"), default=False)

    objects = IconQuerySet.as_manager()

    class Meta:
        ordering = ["order", "id"]
        verbose_name = _("アイコン")
        verbose_name_plural = _("アイコン")

    def __str__(self) -> str:
        return self.name

    @property
    def url(self) -> str:
        if self.image:
            return str(self.image.url)
        return _static_url(self.static_path)


class Village(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("募集中")
        PLAYING = "playing", _("ゲーム中")
        ENDED = "ended", _("終了")

    name = models.CharField(_("村の名前"), max_length=60)
    comment = models.CharField(_("村の説明"), max_length=200, blank=True)
    capacity = models.PositiveSmallIntegerField(_("定員"))
    # How many sit now (kept by every save of the village): the lists need no join.
    seated = models.PositiveSmallIntegerField(_("人数"), default=0)
    # The id of its newest line, and a count of the staff's hiding and showing of lines:
    # with `version`, what a log drawn of this village depends on (views.render).
    last_line = models.PositiveBigIntegerField(_("最新の発言"), default=0)
    # How many of its lines spectators see (villages.line_numbers).
    public_lines = models.PositiveIntegerField(_("公開の発言数"), default=0)
    hidden_mark = models.PositiveIntegerField(_("非表示の更新"), default=0)
    options = models.JSONField(_("オプション"), default=dict)
    status = models.CharField(
        _("状態"), max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True
    )
    day = models.PositiveSmallIntegerField(_("日"), default=0)
    phase = models.CharField(_("場面"), max_length=10, default="waiting")
    winner = models.CharField(_("勝者"), max_length=10, blank=True)
    abandoned = models.BooleanField(_("廃村"), default=False)
    practice = models.BooleanField(_("練習村"), default=False, db_index=True)  # has bot seats
    game = models.JSONField(
        _("ゲームの状態"), default=dict, help_text="The engine's clock and counters."
    )
    seed = models.BigIntegerField(_("乱数の種"), default=0)
    version = models.PositiveIntegerField(_("版"), default=0)
    deadline_at = models.DateTimeField(_("次の期限"), null=True, blank=True, db_index=True)
    created_by = kept_user_ref(verbose_name=_("作成者"))
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)
    started_at = models.DateTimeField(_("開始"), null=True, blank=True)
    ended_at = models.DateTimeField(_("終了"), null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            # The past-log list and its search: ended villages, newest ended first.
            models.Index(fields=["status", "-ended_at", "-id"], name="village_ended_order"),
        ]
        verbose_name = _("村")
        verbose_name_plural = _("村")

    def __str__(self) -> str:
        return f"{self.id}番地 {self.name}"


class Seat(models.Model):
    village = models.ForeignKey(
        Village, on_delete=models.CASCADE, related_name="seats", verbose_name=_("村")
    )
    seat_no = models.PositiveSmallIntegerField(_("席番号"))
    user = kept_user_ref(related_name="seats", verbose_name=_("ユーザー"))
    handle_name = models.CharField(_("ハンドル名"), max_length=40)
    icon = models.ForeignKey(
        Icon, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("アイコン")
    )
    trip = models.CharField(_("トリップ"), max_length=20, blank=True)
    ip = models.GenericIPAddressField(_("IPアドレス"), null=True, blank=True)
    dummy = models.BooleanField(_("身代わり君"), default=False)
    kicked = models.BooleanField(_("キック済み"), default=False)
    kicked_by_staff = models.BooleanField(_("管理者がキック"), default=False)
    start_voted = models.BooleanField(_("開始に投票"), default=False)
    role = models.CharField(_("役職"), max_length=10, blank=True)
    sub_roles = models.JSONField(_("兼任"), default=list, blank=True)
    alive = models.BooleanField(_("生存"), default=True)
    death_cause = models.CharField(_("死因"), max_length=10, blank=True)
    death_day = models.PositiveSmallIntegerField(_("死亡日"), null=True, blank=True)
    death_phase = models.CharField(_("死亡した場面"), max_length=10, blank=True)
    will = models.TextField(_("遺言"), blank=True)
    will_published = models.BooleanField(_("遺言を公開"), default=False)
    objections_left = models.PositiveSmallIntegerField(_("残りの異議"), default=5)
    # A bot's seat: its strategy (villages/bots), and when it next looks at its view
    # (None: when the village next changes), and when it looks at the latest though
    # nothing changes (the later part of a real-time day, when it votes). Swept like the
    # deadlines.
    bot = models.CharField(_("ボット"), max_length=20, blank=True)
    bot_next_at = models.DateTimeField(_("ボットの次の番"), null=True, blank=True, db_index=True)
    bot_alarm_at = models.DateTimeField(
        _("ボットが次に見る時刻"), null=True, blank=True, db_index=True
    )
    # An AIWolf contest agent's seat (villages/aiwolf): the name it gave (its `NAME`
    # answer) and the account whose API token it connected with. The seat's user is one
    # of the site's agent accounts (`aiwolf:01` …), so that one account may run several.
    agent = models.CharField(_("人狼知能エージェント"), max_length=40, blank=True)
    agent_owner = kept_user_ref(related_name="agent_seats", verbose_name=_("エージェントの持ち主"))
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)

    class Meta:
        ordering = ["village", "seat_no"]
        # On PostgreSQL, UPPER(handle_name) also has a trigram index for the past-log search
        # by a part of a handle name: migration 0014 (not here, SQLite could not build it).
        verbose_name = _("席")
        verbose_name_plural = _("席")
        constraints = [
            # A kicked seat's row stays (it bars its user) but frees its number.
            models.UniqueConstraint(
                fields=["village", "seat_no"], condition=Q(kicked=False), name="seat_no_unique"
            ),
            models.UniqueConstraint(
                fields=["village", "user"],
                condition=Q(kicked=False),
                name="one_seat_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.village_id}/{self.seat_no} {self.handle_name}"


class Message(models.Model):
    village = models.ForeignKey(
        Village, on_delete=models.CASCADE, related_name="messages", verbose_name=_("村")
    )
    day = models.PositiveSmallIntegerField(_("日"), default=0)
    phase = models.CharField(_("場面"), max_length=10)
    kind = models.CharField(_("種類"), max_length=16)
    seat_no = models.PositiveSmallIntegerField(_("席番号"), null=True, blank=True)
    text = models.TextField(_("本文"))
    volume = models.CharField(_("声の大きさ"), max_length=8, default="normal")
    code = models.CharField(_("コード"), max_length=32, blank=True)
    params = models.JSONField(_("パラメータ"), default=dict, blank=True)
    cost = models.PositiveIntegerField(_("消費時間"), default=0)
    hidden = models.BooleanField(_("非表示"), default=False)
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)
    # How many lines spectators see up to this one: the number its viewers know it by
    # comes from it (villages.line_numbers).
    public_no = models.PositiveIntegerField(_("公開の通し番号"), default=0)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["village", "id"]),
            models.Index(fields=["village", "public_no"]),
            models.Index(fields=["village"], condition=Q(hidden=True), name="hidden_lines"),
        ]
        verbose_name = _("発言")
        verbose_name_plural = _("発言")

    def __str__(self) -> str:
        return f"{self.village_id} {self.kind}: {self.text[:30]}"

    @property
    def public(self) -> bool:
        """Whether spectators see it (itself or its stand-in) while the game is played."""
        return public_line(self.kind)


class Ballot(models.Model):
    """One execution ballot of one round of one day."""

    village = models.ForeignKey(Village, on_delete=models.CASCADE, related_name="ballots")
    day = models.PositiveSmallIntegerField()
    round = models.PositiveSmallIntegerField()
    voter = models.PositiveSmallIntegerField()
    target = models.PositiveSmallIntegerField()
    weight = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["village", "day", "round", "voter"], name="one_ballot_per_round"
            )
        ]

    def __str__(self) -> str:
        return f"{self.village_id} day{self.day}#{self.round}: {self.voter}→{self.target}"


class NightAction(models.Model):
    village = models.ForeignKey(Village, on_delete=models.CASCADE, related_name="night_actions")
    day = models.PositiveSmallIntegerField()
    seat_no = models.PositiveSmallIntegerField()
    ability = models.CharField(max_length=10)
    targets = models.JSONField(default=list)
    created_at = models.DateTimeField(_("作成"), auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["village", "day", "seat_no", "ability"], name="one_action_per_night"
            ),
            models.UniqueConstraint(
                fields=["village", "day"],
                condition=Q(ability="attack"),
                name="one_attack_per_night",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.village_id} night{self.day}: {self.seat_no} {self.ability} {self.targets}"


class InfoPage(models.Model):
    """An information page (情報一覧): rules, supplementary rules, manners, FAQ, in Markdown."""

    slug = models.SlugField(_("スラッグ"), max_length=60, unique=True)
    title = models.CharField(_("題名"), max_length=100)
    body = models.TextField(
        _("本文 (Markdown)"),
        blank=True,
        help_text=_("見出し (#) と【…】だけの行から目次とアンカーが作られます。"),
    )
    order = models.PositiveIntegerField(_("並び順"), default=0)
    published = models.BooleanField(_("公開"), default=True)
    updated_at = models.DateTimeField(_("更新"), auto_now=True)

    class Meta:
        ordering = ["order", "id"]
        verbose_name = _("情報ページ")
        verbose_name_plural = _("情報ページ")

    def __str__(self) -> str:
        return self.title


class Answer(models.Model):
    """The first answer to a command sent with an `Idempotency-Key` (API.md): a retry with
    the same key gets it again and runs nothing (services/idempotency.py). Saved in the
    command's own transaction, so a committed command always has its answer here."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=100)
    request = models.CharField(max_length=200)  # "POST /api/v1/villages/3/messages"
    status = models.PositiveSmallIntegerField()
    body = models.JSONField(null=True, encoder=DjangoJSONEncoder)  # as the API encodes it
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key", "request"], name="one_answer_per_key"),
        ]
        verbose_name = _("再送への応答")
        verbose_name_plural = _("再送への応答")

    def __str__(self) -> str:
        return f"{self.request} ({self.key})"


def _new_token() -> str:
    return uuid.uuid4().hex


class Listing(models.Model):
    """One row: the version of what the top page lists (villages.listing). `number` moves in
    the transaction of every change the list shows; `token` is new whenever the row is
    made anew (a restored or emptied database), so that a version is never met twice."""

    token = models.CharField(max_length=32, default=_new_token)
    number = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("村一覧の版")
        verbose_name_plural = _("村一覧の版")

    def __str__(self) -> str:
        return f"{self.token}:{self.number}"
