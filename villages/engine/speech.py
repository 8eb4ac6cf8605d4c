"""Utterances: their width, their time cost and their limits (SPEC §6)."""

from __future__ import annotations

import unicodedata

from .errors import TextEmpty, TextTooLong, _
from .rules import Rules


def width(text: str) -> int:
    """Width in half-width characters: a full-width (or ambiguous East Asian) one counts 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WFA" else 1 for ch in text)


def speech_units(text: str, rules: Rules) -> int:
    """floor(width / 100), at least 1, at most SPEECH_UNITS_CAP."""
    return max(1, min(rules.speech_units_cap, width(text) // 100))


def check_text(text: str, rules: Rules) -> str:
    """The text as it will be kept, or a typed error."""
    if len(text) > rules.speech_max_chars:
        raise TextTooLong(_("発言は{limit}文字までです。"), limit=rules.speech_max_chars)
    if text.count("\n") + 1 > rules.speech_max_lines:
        raise TextTooLong(_("発言は{limit}行までです。"), limit=rules.speech_max_lines)
    if not text.strip():
        raise TextEmpty()
    return text.rstrip()
