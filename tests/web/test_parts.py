"""The one renderer takes only the visibility view of what it draws, never a model row."""

from __future__ import annotations

import inspect
import typing

import pytest
from django.utils import translation

from villages.models import Message, Village
from villages.screenview import line_input
from villages.views import parts


def _public_functions():
    for name, value in vars(parts).items():
        if inspect.isfunction(value) and value.__module__ == parts.__name__:
            yield name, value


def test_no_renderer_is_typed_to_take_a_model_row():
    rows = {"Message", "Village", "Seat", "Loaded", "Ballot", "NightAction"}
    for name, func in _public_functions():
        hints = typing.get_type_hints(func, vars(parts))
        for arg, hint in hints.items():
            assert not rows & set(str(hint).replace(".", " ").replace("[", " ").split()), (
                f"villages.views.parts.{name}({arg}: {hint}) takes a model row"
            )


def test_a_renderer_handed_a_raw_message_fails():
    raw = Message(id=1, day=2, phase="night", kind="wolf", seat_no=1, text="秘密", volume="strong")
    with pytest.raises(TypeError):
        parts.line_html(raw)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parts.render_part("d-head", Village(id=1, name="村"), parts.Local())


def test_a_howl_is_drawn_from_its_view_and_tells_nothing_of_the_whisper_it_stands_for():
    from villages.engine.texts import HOWL_TEXT

    seen = {
        "id": 7,
        "day": 1,
        "phase": "night",
        "kind": "wolf_howl",
        "seat_no": None,
        "text": HOWL_TEXT,
        "volume": "normal",  # selectors.message_dict: a stand-in is never loud or soft
        "created_at": None,
        "code": "",
        "params": {},
    }
    with translation.override("ja"):
        html = parts.line_html(line_input(seen, {}, ended=False))
    assert "v-normal" in html and "v-weak" not in html and "v-strong" not in html
    assert HOWL_TEXT in html and "狼の遠吠え" in html


def test_the_sudden_death_deadline_says_until_once_without_script():
    """「突然死まで 16:58:09まで」: the time after the words was drawn with its own 「まで」."""
    time_up = {
        "phase": "day",
        "seated": 8,
        "capacity": 8,
        "time_up": True,
        "virtual_left": None,
        "deadline": None,
        "sudden_deadline": "2026-12-03T07:58:09+00:00",
        "realtime": None,
    }
    with translation.override("ja"):
        html = parts.render_part("d-time", time_up, parts.Local())
    assert "時間切れ" in html and "突然死まで" in html
    assert html.count("まで") == 1, html


def test_a_revote_after_a_sudden_death_is_cued_with_its_reason_and_its_round_is_tallied():
    """A day's sudden death clears every ballot: the screen says so as loudly as a tie's
    revote, and the tallies show the round it voided, with no ballot (issue 32, item 1)."""
    from django.template.loader import render_to_string

    from villages.views.parts import cue_text

    tie = cue_text({"type": "revote", "day": 2, "round": 2, "reason": "tie"})
    sudden = cue_text({"type": "revote", "day": 2, "round": 2, "reason": "sudden_death"})
    assert tie == {"kind": "revote", "text": "再投票になりました"}
    assert sudden["kind"] == "revote" and "突然死" in sudden["text"]
    void = {"day": 2, "round": 1, "rows": [], "executed": None, "result": "void"}
    tied = {"day": 2, "round": 2, "rows": [], "executed": None, "result": "tie"}
    assert "突然死が出たため無効" in render_to_string("villages/tally.html", {"round": void})
    assert "同数のため再投票" in render_to_string("villages/tally.html", {"round": tied})
