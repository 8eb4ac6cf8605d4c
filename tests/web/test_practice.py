"""Practice villages on the pages: the host fills seats with bots, the marks, the top page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from villages.engine import game as engine
from villages.models import Seat, Village

from .conftest import waiting_village

pytestmark = pytest.mark.django_db


def test_the_host_fills_the_empty_seats_from_the_upper_pane():
    game = waiting_village(n=3, capacity=9)
    host = game.client(1)
    up = host.get(f"/villages/{game.id}/up/").content.decode()
    assert "ボットで空席を埋める" in up
    assert (
        "ボットで空席を埋める"
        not in game.client(2).get(f"/villages/{game.id}/up/").content.decode()
    )
    answer = host.post(f"/villages/{game.id}/bots/", {"fill": "1"})
    assert answer.status_code == 302
    bots = Seat.objects.filter(village_id=game.id, kicked=False).exclude(bot="")
    assert bots.count() == 6 and all(s.handle_name.endswith(engine.BOT_MARK) for s in bots)
    down = game.client(None).get(f"/villages/{game.id}/down/").content.decode()
    assert engine.BOT_MARK in down  # the players list names them as bots
    # The village is full: the host is offered no more bots (there is no seat for one).
    up = host.get(f"/villages/{game.id}/up/").content.decode()
    assert "ボットで空席を埋める" not in up and 'id="add-bots"' not in up
    # ...and a spectator no way to sit down, but why.
    up = game.client(None).get(f"/villages/{game.id}/up/").content.decode()
    assert "この村は満員です。" in up and "この村に参加する" not in up


def test_a_bad_bot_count_is_told_in_japanese_and_nothing_changes():
    game = waiting_village(n=3, capacity=9)
    answer = game.client(1).post(f"/villages/{game.id}/bots/", {"count": "たくさん"})
    assert "ボットの人数を数字で入力してください" in answer.content.decode()
    answer = game.client(1).post(f"/villages/{game.id}/bots/", {"count": "7"})
    assert "空席は6席です" in answer.content.decode()
    assert not Seat.objects.filter(village_id=game.id).exclude(bot="").exists()
    answer = game.client(2).post(f"/villages/{game.id}/bots/", {"count": "1"})
    assert "村を作った人とスタッフだけ" in answer.content.decode()


def create_with_bots(name: str, bots: str):
    """The create form sent by a new user, with `bots` bot seats."""
    client = Client()
    client.force_login(get_user_model().objects.create_user("maker", password="pw-Secret-123"))
    return client.post(
        "/villages/new/", {"name": name, "comment": "", "capacity": "8", "bots": bots}
    )


def test_a_village_created_with_bots_is_a_practice_village_on_the_top_page():
    answer = create_with_bots("練習しよう", "7")
    assert answer.status_code == 302, answer.content.decode()[:500]
    village = Village.objects.get(name="練習しよう")
    assert village.practice and village.seated == 7
    normal = waiting_village(n=2, capacity=8).village
    top = Client().get("/").content.decode()
    assert "villages/options/practice." in top and "練習しよう" in top
    only = Client().get("/?practice=only").content.decode()
    assert "練習しよう" in only and normal.name not in only
    none = Client().get("/?practice=none").content.decode()
    assert "練習しよう" not in none and normal.name in none


def test_too_many_bots_at_creation_is_refused_with_the_form_kept():
    answer = create_with_bots("多すぎ", "9")
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "ボットの席は空席の数までです" in html and 'value="多すぎ"' in html


def test_practice_games_are_in_the_history_but_out_of_the_stats_unless_asked(settings):
    from villages.services import bots, lifecycle

    from ..services.test_bots import play_out

    settings.JINRO_BOT_DELAY = 0
    game = waiting_village(n=1, capacity=8)
    bots.add_bots(village_id=game.id, user=game.user(1))
    lifecycle.vote_start(village_id=game.id, user=game.user(1))
    # The person lets the random strategy play for them (as a test's stand-in for clicks).
    Seat.objects.filter(village_id=game.id, user=game.user(1)).update(bot="random")
    play_out(game.id)
    name = game.user(1).username
    page = Client().get(f"/accounts/users/{name}/").content.decode()
    assert "テスト村" in page and "（練習村）" in page
    assert "練習村を除くと、成績に数える対戦はまだありません。" in page
    assert "1戦" in Client().get(f"/accounts/users/{name}/?practice=1").content.decode()
    api = Client().get(f"/api/v1/users/{name}/history").json()
    assert api["stats"]["games"] == 0 and api["games"][0]["practice"] is True
    assert Client().get(f"/api/v1/users/{name}/history?practice=true").json()["stats"]["games"] == 1
