"""The engine gives codes and params; the site words them (issue 13): system lines and
refusals in each page's language, with no parsing of Japanese back into codes."""

from __future__ import annotations

from string import Formatter

from django.test import Client
from django.utils import translation

from villages import wording
from villages.engine.errors import TextTooLong, _
from villages.engine.texts import SYSTEM_LINES
from villages.models import Message

from .conftest import started_village


def test_a_system_line_keeps_its_japanese_text_and_words_itself_in_english(db):
    game = started_village()
    start = Message.objects.get(village_id=game.id, code="game_start")
    assert "=" in start.params["cast"], "the engine gives role codes, not names"
    assert "村人" in start.text and "人狼2" in start.text
    with translation.override("en"):
        english = wording.system_text(start.code, start.params, start.text)
    assert "Werewolf 2" in english and "村人" not in english
    with translation.override("ja"):
        assert wording.system_text(start.code, start.params, start.text) == start.text


def test_a_grace_is_seconds_worded_by_the_page():
    with translation.override("en"):
        english = wording.system_text("time_up_day", {"grace": "180"}, "")
    with translation.override("ja"):
        japanese = wording.system_text("time_up_day", {"grace": "90"}, "時間切れです。")
    assert "3 min" in english and japanese == "時間切れです。"
    assert "1分30秒以内に投票しない人" in wording.japanese("time_up_day", {"grace": "90"})


def test_every_code_the_engine_posts_is_worded_with_exactly_its_params():
    """The engine says which params each code carries (`SYSTEM_LINES`); the wording names
    those and no other, for every code and none more; and it is the site's own wording,
    not the seed's."""
    assert wording.SYSTEM_TEXTS.keys() == SYSTEM_LINES.keys()
    for code, text in wording.SYSTEM_TEXTS.items():
        named = {f for _lit, f, _spec, _conv in Formatter().parse(text) if f}
        assert named == set(SYSTEM_LINES[code]), code
    seed_phrases = ("突然死となり", "無条件で死亡", "恋人の後を追って自殺")
    assert not any(p in text for p in seed_phrases for text in wording.SYSTEM_TEXTS.values())


def test_a_refusal_with_a_number_is_translated_then_filled_in():
    error = TextTooLong(_("発言は{limit}文字までです。"), limit=2000)
    assert error.message == "発言は2000文字までです。", "API.md's message stays Japanese"
    with translation.override("en"):
        assert wording.error_text(error) == "A line is at most 2000 characters."
    with translation.override("ja"):
        assert wording.error_text(error) == "発言は2000文字までです。"


def test_an_english_page_shows_an_english_refusal(db):
    game = started_village()
    client = Client(headers={"accept-language": "en"})
    client.force_login(game.user(2))
    client.cookies["django_language"] = "en"
    page = client.post(f"/villages/{game.id}/up/", {"text": "x" * 2001, "channel": "talk"})
    text = page.content.decode()
    assert "A line is at most 2000 characters." in text, text[:3000]


def test_a_village_number_is_worded_in_the_pages_language(db):
    """「2番地」 read "2No." in English: the number is placed by the translation."""
    game = started_village()
    client = Client()
    client.force_login(game.user(2))
    client.cookies["django_language"] = "en"
    for path in (f"/villages/{game.id}/", f"/villages/{game.id}/down/", f"/villages/{game.id}/up/"):
        text = client.get(path).content.decode()
        assert f"No. {game.id}" in text and f"{game.id}No." not in text, path
    client.cookies["django_language"] = "ja"
    assert f"{game.id}番地" in client.get(f"/villages/{game.id}/down/").content.decode()


def test_the_revote_line_counts_revotes_in_the_references_words():
    """Issue 33: 「再投票になりました( 1 回目)」 for the first revote, as 人狼式 words it;
    the last before the draw warns of it."""
    with translation.override("ja"):
        assert wording.japanese("revote", {"revotes": 1}) == "再投票になりました( 1 回目)"
        assert wording.japanese("revote_last", {"revotes": 3}) == (
            "再投票になりました( 3 回目)。次も同数なら引き分けになります。"
        )
    with translation.override("en"):
        assert wording.system_text("revote", {"revotes": "2"}, "") == "Vote again (revote 2)."
        last = wording.system_text("revote_last", {"revotes": "3"}, "")
        assert "revote 3" in last and "draw" in last


def test_a_revote_line_stored_with_its_old_round_keeps_its_own_words():
    """A line posted before issue 33 carries the round ("round": 2 for the first revote):
    a page in another language shows its stored Japanese sentence rather than misnumber
    it."""
    stored = "票が割れたため、再投票です（2回目）。"
    with translation.override("en"):
        assert wording.system_text("revote", {"round": "2"}, stored) == stored
