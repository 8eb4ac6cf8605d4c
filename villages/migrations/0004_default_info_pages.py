"""The default information page: the rules (ルール), written for this site."""

from pathlib import Path

from django.db import migrations

RULES = Path(__file__).resolve().parents[1] / "infopages" / "rules_ja.md"


def add_rules(apps, schema_editor):
    InfoPage = apps.get_model("villages", "InfoPage")
    InfoPage.objects.get_or_create(
        slug="rules",
        defaults={"title": "ルール", "body": RULES.read_text(encoding="utf-8"), "order": 1},
    )


def remove_rules(apps, schema_editor):
    apps.get_model("villages", "InfoPage").objects.filter(slug="rules").delete()


class Migration(migrations.Migration):
    dependencies = [("villages", "0003_infopage")]

    operations = [migrations.RunPython(add_rules, remove_rules)]
