"""Utterances: their width, their time cost and their limits (SPEC §6)."""

from __future__ import annotations

import unicodedata

from .errors import BadRequest, TextEmpty, TextTooLong, _
from .rules import Rules


def width(text: str) -> int:
    """Width in half-width characters: a full-width (or ambiguous East Asian) one counts 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WFA" else 1 for ch in text)


def speech_units(text: str, rules: Rules) -> int:
    """floor(width / 100), at least 1, at most SPEECH_UNITS_CAP."""
    return max(1, min(rules.speech_units_cap, width(text) // 100))


# Characters that no line may hold: control characters (its own line breaks, tabs and
# carriage returns aside), which draw nothing on a page or garble it.
CONTROLS = frozenset(
    chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0))
)
# ...and that no name may hold: besides those, the bidirectional controls. A name is set
# inside the site's sentences (「…さんが村の集会場にやってきました。」), and an override in it would
# turn the rest of the sentence backwards.
NAME_CONTROLS = CONTROLS | frozenset("\t\n\r\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
NAME_CONTROLS |= frozenset("\u2066\u2067\u2068\u2069")


def has_controls(text: str, *, name: bool = False) -> bool:
    """The text holds a character a line (or, with `name`, a name) may not hold."""
    refused = NAME_CONTROLS if name else CONTROLS
    return not refused.isdisjoint(text)


def check_text(text: str, rules: Rules) -> str:
    """The text as it will be kept, or a typed error. Line breaks are kept as LF: a
    browser's form sends CRLF, which counted twice against the limits and stayed in the
    text that clients read."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if has_controls(text):
        raise BadRequest(_("発言に使えない文字（制御文字）が含まれています。"))
    if len(text) > rules.speech_max_chars:
        raise TextTooLong(_("発言は{limit}文字までです。"), limit=rules.speech_max_chars)
    if text.count("\n") + 1 > rules.speech_max_lines:
        raise TextTooLong(_("発言は{limit}行までです。"), limit=rules.speech_max_lines)
    if not text.strip():
        raise TextEmpty()
    return text.rstrip()
