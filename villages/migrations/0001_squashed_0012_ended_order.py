"""The villages' tables as migrations 0001-0012 left them, and the rows a new site starts
with: the icon set (static/villages/icons, made by `manage.py make_media`), the dummy boy's
icon and the rules page (ルール). A database that applied 0001-0012 has all this already;
those migrations' conversions of older rows are gone with them (docs/deployment.md: Upgrading)."""

import json
from pathlib import Path

import django.core.serializers.json
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

STATIC = Path(__file__).resolve().parents[2] / "static" / "villages"
RULES = Path(__file__).resolve().parents[1] / "infopages" / "rules_ja.md"


def add_icons(apps, schema_editor):
    """The site's icon set, in the index's order, and the dummy boy's reserved icon."""
    Icon = apps.get_model("villages", "Icon")
    index = json.loads((STATIC / "icons" / "index.json").read_text(encoding="utf-8"))
    for order, entry in enumerate(index, start=1):
        Icon.objects.get_or_create(
            static_path=entry["file"], defaults={"name": entry["name"], "order": order}
        )
    Icon.objects.get_or_create(
        static_path="villages/system/dummy-boy.svg",
        defaults={"name": "身代わり君", "reserved": True, "order": 0},
    )


def add_rules(apps, schema_editor):
    apps.get_model("villages", "InfoPage").objects.get_or_create(
        slug="rules",
        defaults={"title": "ルール", "body": RULES.read_text(encoding="utf-8"), "order": 1},
    )


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("villages", "0001_initial"),
        ("villages", "0002_default_icons"),
        ("villages", "0003_infopage"),
        ("villages", "0004_default_info_pages"),
        ("villages", "0005_seat_number_free_after_kick"),
        ("villages", "0006_live_screen"),
        ("villages", "0007_bot_seats"),
        ("villages", "0008_idempotent_answers"),
        ("villages", "0009_rules_page_from_settings"),
        ("villages", "0010_verbose_names"),
        ("villages", "0011_system_line_params"),
        ("villages", "0012_ended_order"),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Icon",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=40, verbose_name="名前")),
                (
                    "static_path",
                    models.CharField(blank=True, max_length=200, verbose_name="静的ファイル"),
                ),
                ("image", models.FileField(blank=True, upload_to="icons/", verbose_name="画像")),
                ("order", models.PositiveIntegerField(default=0, verbose_name="並び順")),
                ("is_active", models.BooleanField(default=True, verbose_name="使用可")),
                ("reserved", models.BooleanField(default=False, verbose_name="システム用")),
            ],
            options={
                "verbose_name": "アイコン",
                "verbose_name_plural": "アイコン",
                "ordering": ["order", "id"],
            },
        ),
        migrations.CreateModel(
            name="InfoPage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("slug", models.SlugField(max_length=60, unique=True, verbose_name="スラッグ")),
                ("title", models.CharField(max_length=100, verbose_name="題名")),
                (
                    "body",
                    models.TextField(
                        blank=True,
                        help_text="見出し (#) と【…】だけの行から目次とアンカーが作られます。",
                        verbose_name="本文 (Markdown)",
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0, verbose_name="並び順")),
                ("published", models.BooleanField(default=True, verbose_name="公開")),
                ("updated_at", models.DateTimeField(auto_now=True, verbose_name="更新")),
            ],
            options={
                "verbose_name": "情報ページ",
                "verbose_name_plural": "情報ページ",
                "ordering": ["order", "id"],
            },
        ),
        migrations.CreateModel(
            name="Village",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=60, verbose_name="村の名前")),
                ("comment", models.CharField(blank=True, max_length=200, verbose_name="村の説明")),
                ("capacity", models.PositiveSmallIntegerField(verbose_name="定員")),
                ("seated", models.PositiveSmallIntegerField(default=0, verbose_name="人数")),
                ("last_line", models.PositiveBigIntegerField(default=0, verbose_name="最新の発言")),
                (
                    "hidden_mark",
                    models.PositiveIntegerField(default=0, verbose_name="非表示の更新"),
                ),
                ("options", models.JSONField(default=dict, verbose_name="オプション")),
                (
                    "status",
                    models.CharField(
                        choices=[("waiting", "募集中"), ("playing", "ゲーム中"), ("ended", "終了")],
                        db_index=True,
                        default="waiting",
                        max_length=10,
                        verbose_name="状態",
                    ),
                ),
                ("day", models.PositiveSmallIntegerField(default=0, verbose_name="日")),
                ("phase", models.CharField(default="waiting", max_length=10, verbose_name="場面")),
                ("winner", models.CharField(blank=True, max_length=10, verbose_name="勝者")),
                ("abandoned", models.BooleanField(default=False, verbose_name="廃村")),
                (
                    "practice",
                    models.BooleanField(db_index=True, default=False, verbose_name="練習村"),
                ),
                (
                    "game",
                    models.JSONField(
                        default=dict,
                        help_text="The engine's clock and counters.",
                        verbose_name="ゲームの状態",
                    ),
                ),
                ("seed", models.BigIntegerField(default=0, verbose_name="乱数の種")),
                ("version", models.PositiveIntegerField(default=0, verbose_name="版")),
                (
                    "deadline_at",
                    models.DateTimeField(
                        blank=True, db_index=True, null=True, verbose_name="次の期限"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                ("started_at", models.DateTimeField(blank=True, null=True, verbose_name="開始")),
                ("ended_at", models.DateTimeField(blank=True, null=True, verbose_name="終了")),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="作成者",
                    ),
                ),
            ],
            options={
                "verbose_name": "村",
                "verbose_name_plural": "村",
                "ordering": ["-id"],
            },
        ),
        migrations.CreateModel(
            name="Seat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seat_no", models.PositiveSmallIntegerField(verbose_name="席番号")),
                ("handle_name", models.CharField(max_length=40, verbose_name="ハンドル名")),
                ("trip", models.CharField(blank=True, max_length=20, verbose_name="トリップ")),
                (
                    "ip",
                    models.GenericIPAddressField(blank=True, null=True, verbose_name="IPアドレス"),
                ),
                ("dummy", models.BooleanField(default=False, verbose_name="身代わり君")),
                ("kicked", models.BooleanField(default=False, verbose_name="キック済み")),
                ("start_voted", models.BooleanField(default=False, verbose_name="開始に投票")),
                ("role", models.CharField(blank=True, max_length=10, verbose_name="役職")),
                ("sub_roles", models.JSONField(blank=True, default=list, verbose_name="兼任")),
                ("alive", models.BooleanField(default=True, verbose_name="生存")),
                ("death_cause", models.CharField(blank=True, max_length=10, verbose_name="死因")),
                (
                    "death_day",
                    models.PositiveSmallIntegerField(blank=True, null=True, verbose_name="死亡日"),
                ),
                (
                    "death_phase",
                    models.CharField(blank=True, max_length=10, verbose_name="死亡した場面"),
                ),
                ("will", models.TextField(blank=True, verbose_name="遺言")),
                ("will_published", models.BooleanField(default=False, verbose_name="遺言を公開")),
                (
                    "objections_left",
                    models.PositiveSmallIntegerField(default=5, verbose_name="残りの異議"),
                ),
                ("bot", models.CharField(blank=True, max_length=20, verbose_name="ボット")),
                (
                    "bot_next_at",
                    models.DateTimeField(
                        blank=True, db_index=True, null=True, verbose_name="ボットの次の番"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                (
                    "icon",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to="villages.icon",
                        verbose_name="アイコン",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="seats",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="ユーザー",
                    ),
                ),
                (
                    "village",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="seats",
                        to="villages.village",
                        verbose_name="村",
                    ),
                ),
            ],
            options={
                "verbose_name": "席",
                "verbose_name_plural": "席",
                "ordering": ["village", "seat_no"],
            },
        ),
        migrations.CreateModel(
            name="NightAction",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.PositiveSmallIntegerField()),
                ("seat_no", models.PositiveSmallIntegerField()),
                ("ability", models.CharField(max_length=10)),
                ("targets", models.JSONField(default=list)),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                (
                    "village",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="night_actions",
                        to="villages.village",
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="Message",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.PositiveSmallIntegerField(default=0, verbose_name="日")),
                ("phase", models.CharField(max_length=10, verbose_name="場面")),
                ("kind", models.CharField(max_length=16, verbose_name="種類")),
                (
                    "seat_no",
                    models.PositiveSmallIntegerField(blank=True, null=True, verbose_name="席番号"),
                ),
                ("text", models.TextField(verbose_name="本文")),
                (
                    "volume",
                    models.CharField(default="normal", max_length=8, verbose_name="声の大きさ"),
                ),
                ("code", models.CharField(blank=True, max_length=32, verbose_name="コード")),
                ("params", models.JSONField(blank=True, default=dict, verbose_name="パラメータ")),
                ("cost", models.PositiveIntegerField(default=0, verbose_name="消費時間")),
                ("hidden", models.BooleanField(default=False, verbose_name="非表示")),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                (
                    "village",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="messages",
                        to="villages.village",
                        verbose_name="村",
                    ),
                ),
            ],
            options={
                "verbose_name": "発言",
                "verbose_name_plural": "発言",
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="Ballot",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.PositiveSmallIntegerField()),
                ("round", models.PositiveSmallIntegerField()),
                ("voter", models.PositiveSmallIntegerField()),
                ("target", models.PositiveSmallIntegerField()),
                ("weight", models.PositiveSmallIntegerField(default=1)),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                (
                    "village",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ballots",
                        to="villages.village",
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="Answer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=100)),
                ("request", models.CharField(max_length=200)),
                ("status", models.PositiveSmallIntegerField()),
                (
                    "body",
                    models.JSONField(
                        encoder=django.core.serializers.json.DjangoJSONEncoder, null=True
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
            options={
                "verbose_name": "再送への応答",
                "verbose_name_plural": "再送への応答",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "key", "request"), name="one_answer_per_key"
                    )
                ],
            },
        ),
        migrations.AddIndex(
            model_name="village",
            index=models.Index(fields=["status", "-ended_at", "-id"], name="village_ended_order"),
        ),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kicked", False)),
                fields=("village", "seat_no"),
                name="seat_no_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="seat",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kicked", False)),
                fields=("village", "user"),
                name="one_seat_per_user",
            ),
        ),
        migrations.AddConstraint(
            model_name="nightaction",
            constraint=models.UniqueConstraint(
                fields=("village", "day", "seat_no", "ability"), name="one_action_per_night"
            ),
        ),
        migrations.AddConstraint(
            model_name="nightaction",
            constraint=models.UniqueConstraint(
                condition=models.Q(("ability", "attack")),
                fields=("village", "day"),
                name="one_attack_per_night",
            ),
        ),
        migrations.AddIndex(
            model_name="message",
            index=models.Index(fields=["village", "id"], name="villages_me_village_ec7291_idx"),
        ),
        migrations.AddIndex(
            model_name="message",
            index=models.Index(
                condition=models.Q(("hidden", True)), fields=["village"], name="hidden_lines"
            ),
        ),
        migrations.AddConstraint(
            model_name="ballot",
            constraint=models.UniqueConstraint(
                fields=("village", "day", "round", "voter"), name="one_ballot_per_round"
            ),
        ),
        migrations.RunPython(add_icons, migrations.RunPython.noop),
        migrations.RunPython(add_rules, migrations.RunPython.noop),
    ]
