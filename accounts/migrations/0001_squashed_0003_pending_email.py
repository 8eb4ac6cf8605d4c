"""The accounts' tables as migrations 0001-0003 left them (docs/deployment.md: Upgrading)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import accounts.models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("accounts", "0001_initial"),
        ("accounts", "0002_ban"),
        ("accounts", "0003_pending_email"),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Profile",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "api_token",
                    models.CharField(
                        default=accounts.models.new_token,
                        max_length=64,
                        unique=True,
                        verbose_name="APIトークン",
                    ),
                ),
                (
                    "refresh_seconds",
                    models.PositiveSmallIntegerField(
                        choices=[
                            (0, "0"),
                            (15, "15"),
                            (30, "30"),
                            (45, "45"),
                            (60, "60"),
                            (90, "90"),
                            (120, "120"),
                        ],
                        default=0,
                        verbose_name="自動更新",
                    ),
                ),
                ("sound", models.BooleanField(default=True, verbose_name="音でお知らせ")),
                ("list_below", models.BooleanField(default=False, verbose_name="リストを下に表示")),
                ("language", models.CharField(blank=True, max_length=8, verbose_name="言語")),
                (
                    "pending_email",
                    models.EmailField(
                        blank=True, max_length=254, verbose_name="確認待ちのメールアドレス"
                    ),
                ),
                ("bans", models.JSONField(blank=True, default=dict, editable=False)),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="profile",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "プロフィール",
                "verbose_name_plural": "プロフィール",
            },
        ),
        migrations.CreateModel(
            name="Ban",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("create", "村の作成"),
                            ("talk", "発言"),
                            ("play", "村への参加と投票・行動"),
                            ("login", "ログイン"),
                        ],
                        max_length=10,
                        verbose_name="種類",
                    ),
                ),
                ("reason", models.CharField(max_length=200, verbose_name="理由")),
                (
                    "until",
                    models.DateTimeField(
                        blank=True, help_text="空欄は無期限", null=True, verbose_name="期限"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="作成")),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="bans",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "利用停止",
                "verbose_name_plural": "利用停止",
                "ordering": ["-created_at"],
                "indexes": [
                    models.Index(fields=["user", "kind"], name="accounts_ba_user_id_094791_idx")
                ],
            },
        ),
    ]
