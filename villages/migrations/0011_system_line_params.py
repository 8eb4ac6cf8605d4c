"""System lines' params become names, numbers and codes (the site words the line): a grace
given as Japanese words ("3分", "1分30秒") becomes its seconds, a cast as Japanese names
("村人5 占い師1") its role codes ("villager=5 seer=1"). The kept Japanese text is unchanged."""

import re

from django.db import migrations

DURATION = re.compile(r"^(?:(\d+)分)?(?:(\d+)秒)?$")
ROLE_BY_NAME = {
    "村人": "villager",
    "占い師": "seer",
    "霊能者": "medium",
    "狩人": "guard",
    "共有者": "common",
    "埋毒者": "poison",
    "人狼": "wolf",
    "狂人": "madman",
    "狂信者": "fanatic",
    "妖狐": "fox",
    "キューピッド": "cupid",
}
ITEM = re.compile(r"^(\D+)(\d+)$")


def seconds(value: str) -> str:
    found = DURATION.match(value)
    if value.isdigit() or not value or found is None:
        return value
    return str(int(found[1] or 0) * 60 + int(found[2] or 0))


def codes(value: str) -> str:
    items = []
    for item in value.split():
        found = ITEM.match(item)
        role = ROLE_BY_NAME.get(found[1]) if found else None
        items.append(f"{role}={found[2]}" if role else item)
    return " ".join(items)


def to_codes(apps, schema_editor):
    Message = apps.get_model("villages", "Message")
    lines = Message.objects.filter(code__in=("time_up_day", "time_up_night", "outage", "game_start"))
    for line in lines.iterator():
        params = dict(line.params or {})
        if "grace" in params:
            params["grace"] = seconds(str(params["grace"]))
        if "cast" in params and "=" not in str(params["cast"]):
            params["cast"] = codes(str(params["cast"]))
        if params != line.params:
            line.params = params
            line.save(update_fields=["params"])


class Migration(migrations.Migration):
    dependencies = [("villages", "0010_verbose_names")]

    operations = [migrations.RunPython(to_codes, migrations.RunPython.noop)]
