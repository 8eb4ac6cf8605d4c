"""The bots' own lines, in Japanese and English (the site's language picks one).

A line is a key and its parameters; `{result}` is "wolf" or "human" and is worded here.
`claims` reads the seer claims and results of a log back from the same templates, in
either language, whoever wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LINES: dict[str, tuple[str, str]] = {
    "greet": ("おはようございます。今日もよろしくお願いします。", "Good morning, everyone."),
    "greet_quiet": ("おはよう。……誰が人狼なんだろう。", "Morning. I wonder who the wolves are."),
    "seer_claim": (
        "占いCOします。{name}さんは{result}でした。",
        "I am the seer. {name} is {result}.",
    ),
    "seer_result": (
        "占い結果です。{name}さんは{result}でした。",
        "My reading: {name} is {result}.",
    ),
    "medium_result": (
        "霊能COします。{name}さんは{result}でした。",
        "I am the medium. {name} was {result}.",
    ),
    "vote_black": (
        "{name}さんに投票します。占いで人狼と出ていますから。",
        "I vote for {name}: the seer found a wolf.",
    ),
    "vote_doubt": (
        "{name}さんに投票します。発言がどうも怪しく見えます。",
        "I vote for {name}; something feels off.",
    ),
    "vote_hunch": (
        "{name}さんに投票します。手がかりが少ないので勘です。",
        "I vote for {name}. Few clues, so it's a hunch.",
    ),
    "mourn": ("{name}さん……安らかに。", "Rest in peace, {name}."),
    "suspect_claim": (
        "{name}さんの占い結果は信じられません。",
        "I don't believe {name}'s reading.",
    ),
}

RESULTS: dict[str, tuple[str, str]] = {"wolf": ("人狼", "a werewolf"), "human": ("人間", "human")}

# The bots' names, in Japanese and English: a bot sits as the Japanese one (with the
# engine's bot mark), and a page in English calls it by the English one.
NAMES: tuple[tuple[str, str], ...] = (
    ("アキラ", "Akira"), ("ユウキ", "Yuki"), ("ハルカ", "Haruka"), ("ソウタ", "Sota"),
    ("ミサキ", "Misaki"), ("レン", "Ren"), ("ナツキ", "Natsuki"), ("カイト", "Kaito"),
    ("サクラ", "Sakura"), ("リク", "Riku"), ("ヒナタ", "Hinata"), ("コウ", "Ko"),
    ("マユ", "Mayu"), ("ダイチ", "Daichi"), ("アオイ", "Aoi"), ("シン", "Shin"),
    ("ミオ", "Mio"), ("タクミ", "Takumi"), ("ユイ", "Yui"), ("ケン", "Ken"),
    ("ノゾミ", "Nozomi"), ("イツキ", "Itsuki"),
)  # fmt: skip
# A bot's line is kept with its key as the line's code (this prefix and the key), so that
# a page words it again in its own language.
CODE_PREFIX = "bot_"


def code_of(key: str) -> str:
    return f"{CODE_PREFIX}{key}"


def key_of(code: str) -> str | None:
    """The line's key of a bot line's code, or None for any other code."""
    key = code.removeprefix(CODE_PREFIX)
    return key if code.startswith(CODE_PREFIX) and key in LINES else None


def _index(language: str) -> int:
    return 1 if language.lower().startswith("en") else 0


def word(key: str, params: dict[str, str], language: str) -> str:
    """The text of a line in `language` ("ja" unless it is English)."""
    i = _index(language)
    values = dict(params)
    if "result" in values:
        values["result"] = RESULTS[values["result"]][i]
    return LINES[key][i].format(**values)


def _pattern(template: str) -> re.Pattern[str]:
    results = "|".join(re.escape(w) for pair in RESULTS.values() for w in pair)
    text = re.escape(template)
    text = text.replace(re.escape("{name}"), "(?P<name>.+?)")
    text = text.replace(re.escape("{result}"), f"(?P<result>{results})")
    return re.compile(text)


_SEER = [_pattern(t) for key in ("seer_claim", "seer_result") for t in LINES[key]]
_RESULT_OF = {w: code for code, pair in RESULTS.items() for w in pair}


def seer_readings(texts: Iterable[str]) -> list[tuple[str, str]]:
    """(name, "wolf" | "human") for every seer reading said in `texts`, in order."""
    found = []
    for text in texts:
        for pattern in _SEER:
            m = pattern.search(text)
            if m:
                found.append((m["name"], _RESULT_OF[m["result"]]))
                break
    return found
