"""Defects found by trying the site as a player, an attacker and an operator (issue 10):
each test here failed before its fix."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.test import Client

from villages.models import Icon, InfoPage
from villages.services import core, lifecycle, play
from villages.services.errors import StorageConflict

from .conftest import waiting_village

# The customer's supplementary rules (shared/seeds/004_559a40ffc04bc5cc.txt), as pasted.
SEED_004 = Path(__file__).resolve().parents[1] / "data" / "info_page_004.txt"


# --- information pages ----------------------------------------------------------------------


def test_an_information_page_loses_scripts_and_event_handlers_but_keeps_its_structure(db):
    InfoPage.objects.create(
        slug="hostile",
        title="注意",
        body="# 見出し\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "[リンク](javascript:alert(3)) [本物](https://example.com)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n- 一\n- 二\n",
    )
    html = Client().get("/info/hostile/").content.decode()
    body = html[html.index('class="info-body"') :]
    for bad in ("<script>alert(1)", "onerror", "javascript:"):
        assert bad not in body, bad
    for kept in ('<h2 id="見出し"', "<table>", "<li>一</li>", 'href="https://example.com"'):
        assert kept in body, kept


def test_the_customers_page_with_its_own_contents_list_has_one_toc_entry_per_section(db):
    text = SEED_004.read_text(encoding="utf-8")
    InfoPage.objects.create(slug="hosoku", title="補足ルール", body=text)
    from villages.infopages.render import render

    rendered = render(text)
    assert len(rendered.toc) == 29, [t.title for t in rendered.toc]  # not 58
    assert len({t.anchor for t in rendered.toc}) == 29
    html = Client().get("/info/hosoku/").content.decode()
    body = html[html.index('class="info-body"') :]
    # The contents list links each title to its section; every link lands on a heading.
    import re

    links = re.findall(r'<a href="#([^"]+)"', body)
    anchors = set(re.findall(r'<h\d id="([^"]+)"', body))
    assert len(links) == 29 and set(links) <= anchors


# --- redirects ---------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["//evil.example/", "/\\evil.example", "https://evil.example/"])
def test_a_forms_next_never_leaves_the_site(waiting, target):
    client = waiting.client(1)
    response = client.post(f"/villages/{waiting.id}/prefs/", {"refresh": "15", "next": target})
    assert response.status_code == 302
    assert response["Location"] == f"/villages/{waiting.id}/", response["Location"]


# --- what players see -------------------------------------------------------------------------


def test_a_kicked_user_is_told_so_instead_of_the_seat_form(waiting):
    from villages.services.config import rules

    lifecycle.kick_vote(village_id=waiting.id, user=waiting.staff, target=3)
    html = waiting.client(3).get(f"/villages/{waiting.id}/seat/").content.decode()
    assert "管理者によってこの村から退出させられました" in html  # and by whom
    assert 'class="seat-form"' not in html
    up = waiting.client(3).get(f"/villages/{waiting.id}/up/").content.decode()
    assert "管理者によってこの村から退出させられました" in up
    # Kicked by the other players' votes: the screen says so instead.
    for voter in range(4, 4 + rules().kick_votes):
        lifecycle.kick_vote(village_id=waiting.id, user=waiting.user(voter), target=2)
    up = waiting.client(2).get(f"/villages/{waiting.id}/up/").content.decode()
    assert "キック投票によってこの村から退出させられました" in up


def test_the_upper_pane_says_whom_the_player_voted_for(day_two):
    play.vote(village_id=day_two.id, user=day_two.user(5), target=2)
    html = day_two.client(5).get(f"/villages/{day_two.id}/up/").content.decode()
    assert "村人2号さんに投票済み" in html


def test_the_dummy_boys_icon_is_not_for_players(db):
    game = waiting_village(n=2, capacity=8, dummy_boy=True)
    dummy_icon = game.village.seats.get(dummy=True).icon
    assert dummy_icon is not None and dummy_icon.reserved
    client = Client()
    client.force_login(get_user_model().objects.create_user("newbie2", password="pw-Secret-123"))
    html = client.get(f"/villages/{game.id}/seat/").content.decode()
    assert f'value="{dummy_icon.pk}"' not in html
    assert dummy_icon not in Icon.objects.choosable()
    response = client.post(
        f"/villages/{game.id}/seat/", {"handle_name": "なりすまし", "icon": str(dummy_icon.pk)}
    )
    assert response.status_code == 400


# --- the write path ------------------------------------------------------------------------


def test_a_broken_constraint_is_logged_and_refused_not_retried_as_busy(waiting, caplog):
    calls = []

    def command(loaded, rng, now):
        calls.append(1)
        raise IntegrityError("UNIQUE constraint failed: villages_seat.seat_no")

    with (
        caplog.at_level(logging.ERROR, logger="villages.services.core"),
        pytest.raises(StorageConflict),
    ):
        core.run(waiting.id, command)
    assert len(calls) == 1, "a constraint error is not a race: it must not be retried"
    assert "broke a database constraint" in caplog.text and "UNIQUE" in caplog.text


def test_a_nul_character_is_refused_at_every_door_and_nothing_is_kept(day_two):
    """PostgreSQL keeps no NUL in a text column: a NUL that reached the database was a 500
    there (and a line SQLite kept). Refused before anything reads it, with the site's
    words; `\\u0000` written out as text is only text."""
    from villages.models import Message

    client = day_two.client(4)
    lines = Message.objects.count()
    for text in ("こん\x00ばんは", "\x00"):
        response = client.post(f"/villages/{day_two.id}/up/", {"text": text})
        assert response.status_code == 400
        assert "使えない文字" in response.content.decode()
    # In the talk box the answer is the pane itself, with the text kept (less the NUL).
    page = client.post(f"/villages/{day_two.id}/up/", {"text": "こん\x00ばんは"}).content.decode()
    assert 'id="talk-form"' in page and ">こんばんは</textarea>" in page
    page = client.get("/villages/ended/?name=%00")
    assert page.status_code == 400 and "使えない文字" in page.content.decode()
    assert Message.objects.count() == lines
    answer = client.post(f"/villages/{day_two.id}/up/", {"text": r"\u0000 と書いただけ"})
    assert answer.status_code == 302
    assert Message.objects.filter(text=r"\u0000 と書いただけ").exists()
    from accounts.services import profile_of

    api = Client(HTTP_AUTHORIZATION=f"Token {profile_of(day_two.user(5)).api_token}")
    said = api.post(
        f"/api/v1/villages/{day_two.id}/messages",
        '{"text": "\\\\u0000 も文字のうち"}',
        content_type="application/json",
    )
    assert said.status_code == 201, said.content
    assert said.json()["text"] == "\\u0000 も文字のうち"


def test_control_characters_are_refused_in_lines_and_bidi_controls_in_names(day_two):
    """A bell or an escape in a line drew nothing, and a right-to-left override in a handle
    name turned the site's sentences around it backwards (「。たしまきてっやに村がんさ…」)."""
    from accounts.services import profile_of
    from villages.models import Message, Village

    lines = Message.objects.count()
    client = day_two.client(4)
    for text in ("ベル\x07", "エスケープ\x1b[31m", "\x9b"):
        page = client.post(f"/villages/{day_two.id}/up/", {"text": text})
        assert page.status_code == 400 and "制御文字" in page.content.decode(), text
    api = Client(HTTP_AUTHORIZATION=f"Token {profile_of(day_two.user(5)).api_token}")
    said = api.post(
        f"/api/v1/villages/{day_two.id}/messages",
        {"text": "ベル\x07"},
        content_type="application/json",
    )
    assert said.status_code == 400, said.content
    assert Message.objects.count() == lines
    # Tabs and line breaks are a line's own.
    said = api.post(
        f"/api/v1/villages/{day_two.id}/messages",
        {"text": "一行目\tタブ\r\n二行目"},
        content_type="application/json",
    )
    assert said.status_code == 201, said.content

    newcomer = get_user_model().objects.create_user("rtl-user", password="pw-rtl-12345")
    token = profile_of(newcomer).api_token
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    waiting = lifecycle.create_village(user=newcomer, name="入口の村", capacity=8)
    for name in ("\u202eRTL名前", "名前\u2067", "名\u200f前"):
        sat = api.post(
            f"/api/v1/villages/{waiting.id}/seats",
            {"handle_name": name},
            content_type="application/json",
        )
        assert sat.status_code == 400, (name, sat.content)
        with pytest.raises(Exception, match="制御文字"):
            lifecycle.sit(
                village_id=waiting.id,
                user=newcomer,
                handle_name=name,
                icon_id=Icon.objects.choosable().first().pk,
            )
    made = api.post(
        "/api/v1/villages",
        {"name": "\u202e村の名前", "capacity": 8},
        content_type="application/json",
    )
    assert made.status_code == 400, made.content
    with pytest.raises(Exception, match="制御文字"):
        lifecycle.create_village(user=newcomer, name="\u202e村", capacity=8)
    assert not Village.objects.filter(name__contains="\u202e").exists()


def test_runsite_gathers_the_static_files_when_they_were_never_gathered(settings, tmp_path):
    """Without `collectstatic` every page answered 500 (the manifest of hashed names was
    missing), the error page too: runsite gathers them first."""
    from django.contrib.staticfiles.storage import staticfiles_storage

    from villages.management.commands.runsite import Command

    settings.DEBUG = False
    settings.STATIC_ROOT = str(tmp_path / "static")
    manifest = tmp_path / "static" / staticfiles_storage.manifest_name
    assert not manifest.exists()
    Command().gather_static_files()
    assert manifest.exists()
    assert (tmp_path / "static" / "villages" / "js").is_dir()
