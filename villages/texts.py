"""System lines in words: the engine posts a code and params (`villages.engine.texts`), and
the site makes the sentence here, in the active language.

The Japanese sentence is kept with the line (`Message.text`, what API.md's `text` gives and
the Japanese pages show); a page in another language words it again from its code and
params. Params are names, numbers and codes: `grace` is seconds, `cast` is role codes with
their counts (`villager=5 seer=1 wolf=2`).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import override

from villages.engine.texts import SYSTEM_TEXTS
from villages.views.labels import ROLE, is_japanese, minutes


def _cast(value: str) -> str:
    items = []
    for item in value.split():
        code, _sep, count = item.partition("=")
        name = str(ROLE.get(code, code))
        items.append(f"{name}{count}" if is_japanese() else f"{name} {count}")
    return " ".join(items) if is_japanese() else ", ".join(items)


def _param(name: str, value: str) -> str:
    if name == "grace" and value.isdigit():
        return minutes(int(value))
    if name == "cast":
        return _cast(value)
    return value


def sentence(code: str, params: dict[str, str]) -> str:
    """The line of `code` with `params`, in the active language."""
    return _(SYSTEM_TEXTS[code]).format(**{k: _param(k, str(v)) for k, v in params.items()})


def japanese(code: str, params: dict[str, str]) -> str:
    """The sentence the site keeps with the line."""
    with override("ja"):
        return sentence(code, params)
