"""Every line records how many lines spectators see up to it, and every village how many
such lines it has: the numbers viewers know lines by come from
them (villages.line_numbers). Existing lines are counted in the order they were posted."""

from django.db import migrations, models

KEPT_FROM_SPECTATORS = ("heaven", "monologue")  # engine.visibility.public_line


def count_lines(apps, schema_editor):
    Village = apps.get_model("villages", "Village")
    Message = apps.get_model("villages", "Message")
    for village_id in Village.objects.values_list("pk", flat=True).iterator():
        counted, changed = 0, []
        for line in Message.objects.filter(village_id=village_id).order_by("id").iterator():
            counted += line.kind not in KEPT_FROM_SPECTATORS
            line.public_no = counted
            changed.append(line)
        Message.objects.bulk_update(changed, ["public_no"], batch_size=500)
        Village.objects.filter(pk=village_id).update(public_lines=counted)


class Migration(migrations.Migration):
    dependencies = [("villages", "0012_ended_order")]

    operations = [
        migrations.AddField(
            model_name="message",
            name="public_no",
            field=models.PositiveIntegerField(default=0, verbose_name="公開の通し番号"),
        ),
        migrations.AddField(
            model_name="village",
            name="public_lines",
            field=models.PositiveIntegerField(default=0, verbose_name="公開の発言数"),
        ),
        migrations.AddIndex(
            model_name="message",
            index=models.Index(fields=["village", "public_no"], name="villages_me_village_44fa37_idx"),
        ),
        migrations.RunPython(count_lines, migrations.RunPython.noop, elidable=True),
    ]
