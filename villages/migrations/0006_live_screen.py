"""What the live screen and moderation keep on their rows (issue 9, issue 10).

* Village: `seated`, `last_line` and `hidden_mark`, kept by every save, so that lists and
  logs need no join or aggregate (filled in here for the villages there are);
* Message: a partial index of the hidden lines;
* Icon: `reserved`, the system's own icons, with the dummy boy's.
"""

from django.db import migrations, models
from django.db.models import Count, Max, Q


def fill_in(apps, schema_editor):
    Village = apps.get_model("villages", "Village")
    found = Village.objects.annotate(
        n=Count("seats", filter=Q(seats__kicked=False)), last=Max("messages__id")
    )
    for village in found.only("pk"):
        Village.objects.filter(pk=village.pk).update(seated=village.n, last_line=village.last or 0)
    Icon = apps.get_model("villages", "Icon")
    Icon.objects.get_or_create(
        static_path="villages/system/dummy-boy.svg",
        defaults={"name": "身代わり君", "reserved": True, "order": 0},
    )


class Migration(migrations.Migration):
    dependencies = [("villages", "0005_seat_number_free_after_kick")]

    operations = [
        migrations.AddIndex(
            model_name="message",
            index=models.Index(
                condition=models.Q(("hidden", True)), fields=["village"], name="hidden_lines"
            ),
        ),
        migrations.AddField(
            model_name="village",
            name="seated",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="人数"),
        ),
        migrations.AddField(
            model_name="village", name="hidden_mark", field=models.PositiveIntegerField(default=0)
        ),
        migrations.AddField(
            model_name="village", name="last_line", field=models.PositiveBigIntegerField(default=0)
        ),
        migrations.AddField(
            model_name="icon",
            name="reserved",
            field=models.BooleanField(default=False, verbose_name="システム用"),
        ),
        migrations.RunPython(fill_in, migrations.RunPython.noop),
    ]
