"""The site's own icon set (static/villages/icons, made by `manage.py make_media`)."""

import json
from pathlib import Path

from django.db import migrations

INDEX = Path(__file__).resolve().parents[2] / "static" / "villages" / "icons" / "index.json"


def add_icons(apps, schema_editor):
    Icon = apps.get_model("villages", "Icon")
    for order, entry in enumerate(json.loads(INDEX.read_text(encoding="utf-8")), start=1):
        Icon.objects.get_or_create(
            static_path=entry["file"], defaults={"name": entry["name"], "order": order}
        )


def remove_icons(apps, schema_editor):
    apps.get_model("villages", "Icon").objects.filter(static_path__startswith="villages/").delete()


class Migration(migrations.Migration):
    dependencies = [("villages", "0001_initial")]

    operations = [migrations.RunPython(add_icons, remove_icons)]
