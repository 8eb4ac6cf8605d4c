"""The default rules page names the site's settings (`{{sudden_death_grace}}`, …) instead of
the numbers it was first written with: a page nobody edited gets the new text."""

import hashlib
from pathlib import Path

from django.db import migrations

RULES = Path(__file__).resolve().parents[1] / "infopages" / "rules_ja.md"
# sha256 of the rules page as 0004 wrote it before the page named the settings.
FIRST_TEXT = "28a4972522e66f11923c25ef473ace7e27a7b76cf17d340c8a049b4d4f6bd2c8"


def name_the_settings(apps, schema_editor):
    InfoPage = apps.get_model("villages", "InfoPage")
    for page in InfoPage.objects.filter(slug="rules"):
        if hashlib.sha256(page.body.encode("utf-8")).hexdigest() == FIRST_TEXT:
            page.body = RULES.read_text(encoding="utf-8")
            page.save(update_fields=["body"])


class Migration(migrations.Migration):
    dependencies = [("villages", "0008_idempotent_answers")]

    operations = [migrations.RunPython(name_the_settings, migrations.RunPython.noop)]
