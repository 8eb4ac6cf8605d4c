"""This site's own numbers in its information pages.

A page may name a rule setting as `{{name}}`, the name being a field of the engine's
`Rules` (`{{sudden_death_grace}}`, `{{kick_votes}}`, …): it reads as the value this site
runs with, in words (3分, 7分30秒, 16人, 5回; durations as the screens say them). The
default rules page is written that way, so it follows the `JINRO_*` settings. A name that
is not a setting stays as written, for the editor to see.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields

from villages.engine.rules import Rules
from villages.wording import characters, lines, minutes, people, times

_TOKEN = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


def _plain(n: int) -> str:
    return str(n)


# How each setting reads; a setting missing here is a duration in seconds.
_WORDS: dict[str, Callable[[int], str]] = {
    "kick_votes": people,
    "cupid_min_players": people,
    "poison_min_players": people,
    "decider_min_players": people,
    "authority_min_players": people,
    "cupid_self_below": people,
    "speech_units_cap": _plain,
    "speech_max_chars": characters,
    "speech_max_lines": lines,
    "max_revotes": times,
    "objections_per_player": times,
}


def words(rules: Rules) -> dict[str, str]:
    """Every rule setting, as a page reads it."""
    return {f.name: _WORDS.get(f.name, minutes)(getattr(rules, f.name)) for f in fields(Rules)}


def fill(text: str, rules: Rules) -> str:
    said = words(rules)
    return _TOKEN.sub(lambda m: said.get(m[1], m[0]), text)
