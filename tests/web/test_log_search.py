"""Searching the past-log list (issue 12): by village name, player (username or handle
name), role, winner, number of players, option and end date, with pagination."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from villages.models import Village
from villages.services import lifecycle

from .conftest import play_to_end, started_village


def listed(query: str = "") -> list[int]:
    answer = Client().get(f"/villages/ended/{query}")
    assert answer.status_code == 200, answer.content.decode()[:500]
    return [int(n) for n in re.findall(r"href=\"/villages/(\d+)/log/\"", answer.content.decode())]


@pytest.fixture
def two_ended(db):
    """A village the villagers won (8 seats, handle names 村人N号, player1..8), and an
    abandoned 6-seat one (fox1..6) with cupid on, renamed 狐の村, ended a week earlier."""
    won = started_village()
    play_to_end(won)
    other = village_of("fox", 6, cupid=True)
    lifecycle.end_village(village_id=other.id)
    Village.objects.filter(pk=other.id).update(
        name="狐の村", ended_at=timezone.now() - timedelta(days=7)
    )
    return won.id, other.id


def test_each_criterion_alone(two_ended):
    won, abandoned = two_ended
    assert listed() == [won, abandoned], "newest ended first"
    assert listed("?q=狐") == [abandoned]
    assert listed("?player=player3") == [won]  # a username
    assert listed("?player=FOX3") == [abandoned]  # any case
    assert listed("?player=村人5") == [won, abandoned]  # part of a handle name
    assert listed("?player=村人7") == [won]
    assert listed("?role=seer") == [won]  # the abandoned one never dealt roles
    assert listed("?winner=village") == [won]
    assert listed("?winner=abandoned") == [abandoned]
    assert listed("?players=6") == [abandoned]
    assert listed("?option=cupid") == [abandoned]
    today = timezone.localdate()
    assert listed(f"?since={today}") == [won]
    assert listed(f"?until={today - timedelta(days=1)}") == [abandoned]


def test_criteria_together_and_nothing_found(two_ended):
    won, _abandoned = two_ended
    assert listed("?player=player1&role=wolf&winner=village") == [won]
    page = Client().get("/villages/ended/?player=nobody-at-all").content.decode()
    assert "条件に合う村はありません" in page


def test_bad_criteria_are_said_and_the_list_stays(two_ended):
    answer = Client().get("/villages/ended/?players=99&since=2026-13-01")
    assert answer.status_code == 400
    page = answer.content.decode()
    assert 'class="error"' in page and "village" in page.lower()
    reversed_range = Client().get("/villages/ended/?since=2026-12-02&until=2026-12-01")
    assert "範囲が逆" in reversed_range.content.decode()


def test_pages_keep_the_search(db, monkeypatch):
    from villages.views import pages

    monkeypatch.setattr(pages, "PER_PAGE", 2)
    ids = []
    for n in range(5):
        game = village_of(f"h{n}-", 1)
        lifecycle.end_village(village_id=game.id)
        ids.append(game.id)
    first = Client().get("/villages/ended/?winner=abandoned").content.decode()
    assert 'href="?winner=abandoned&amp;page=2"' in first
    assert listed("?winner=abandoned&page=2") == sorted(ids, reverse=True)[2:4]
    assert listed("?winner=abandoned&page=3") == sorted(ids, reverse=True)[4:]


def test_a_page_number_past_any_list_is_an_empty_page(two_ended):
    # 2**63 - 1 made the SQL offset overflow: a 500 ("datatype mismatch" on SQLite).
    for page in ("9223372036854775807", "99999999999999999999", "1000001"):
        assert listed(f"?page={page}") == []
    assert listed("?page=-5") == listed() != []


def village_of(prefix: str, n: int, **options):
    """A waiting village of `n` seated users named prefix1..n (handle names 村人N号)."""
    from villages.models import Icon

    from .conftest import Game, make_users

    users = make_users(n, prefix=prefix)
    village = lifecycle.create_village(
        user=users[0], name=f"{prefix}の村", comment="", capacity=8, options=options
    )
    icons = list(Icon.objects.choosable())
    for i, user in enumerate(users):
        lifecycle.sit(
            village_id=village.pk, user=user, handle_name=f"村人{i + 1}号", icon_id=icons[i].pk
        )
    return Game(village=village, users=users, staff=users[0])
