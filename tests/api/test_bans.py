"""Typed, expiring bans (利用停止, SPEC §11c): each kind refuses what it names, in the API
(`banned`, 403, the message giving the kind, the reason and the end) and on the pages; a
ban ends at its time (a clock the test controls); lifting keeps the history."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Ban
from tests.api.client import Api, DjangoTransport, open_village

PASSWORD = "Kagome-kagome-1234"  # what Api.register gives every account


@pytest.fixture
def api(db) -> Api:
    from django.core.cache import cache

    cache.clear()
    return Api(DjangoTransport())


def ban(username: str, kind: str, *, reason: str = "暴言", until=None) -> Ban:
    user = get_user_model().objects.get(username=username)
    return Ban.objects.create(user=user, kind=kind, reason=reason, until=until)


def refused(reply, reason: str = "暴言") -> str:
    assert reply.status == 403, reply.body
    assert reply.code == "banned"
    message = reply.body["error"]["message"]
    assert reason in message
    return message


def new_village(caller):
    body = {"name": "停止の村", "comment": "", "capacity": 8, "options": {}}
    return caller.send("POST", "villages", body)


def test_a_create_ban_refuses_making_villages_and_nothing_else(api: Api):
    me = api.register()
    ban(me.username, Ban.Kind.CREATE, until=timezone.now() + timedelta(days=3))
    message = refused(new_village(me))
    assert "村の作成" in message and "まで" in message, "kind and end are said"
    table = open_village(api, players=7, capacity=8, start=False)
    assert table.sit(me) == 8, "a create ban does not stop sitting"


def test_a_talk_ban_refuses_talk_but_not_votes(api: Api):
    table = open_village(api, players=8, start=False)
    talker = table.player(3)
    ban(talker.username, Ban.Kind.TALK, reason="荒らし")
    message = refused(
        talker.send("POST", table.path("messages"), {"text": "こんにちは", "channel": "talk"}),
        "荒らし",
    )
    assert "発言" in message and "無期限" in message
    assert talker.send("POST", table.path("start-vote")).status == 200


def test_a_talk_ban_stops_an_objection_too(api: Api):
    """異議あり is a line to everyone, with a sound (issue 32, item 2); the screen's button
    is disabled and says why."""
    table = open_village(api, players=8, start=False)
    talker = table.player(3)
    ban(talker.username, Ban.Kind.TALK, reason="荒らし")
    refused(talker.send("POST", table.path("objection")), "荒らし")
    page = Client()
    page.force_login(get_user_model().objects.get(username=talker.username))
    upper = page.get(f"/villages/{table.id}/up/", HTTP_HOST="127.0.0.1").content.decode()
    button = upper[upper.index('id="objection-button"') :]
    button = button[: button.index(">")]
    assert " disabled" in button and "異議ありは使えません" in button


def test_a_play_ban_refuses_sitting_and_voting(api: Api):
    table = open_village(api, players=7, capacity=8, start=False)
    newcomer = api.register()
    ban(newcomer.username, Ban.Kind.PLAY)
    refused(
        newcomer.send(
            "POST", table.path("seats"), {"handle_name": "新入り", "icon": api.icons()[0]["id"]}
        )
    )
    seated = table.player(2)
    ban(seated.username, Ban.Kind.PLAY)
    refused(seated.send("POST", table.path("start-vote")))
    assert new_village(newcomer).status == 201, "a play ban does not stop making villages"


def test_a_login_ban_is_told_on_the_login_page_and_in_the_api_but_only_to_its_owner(api: Api):
    me = api.register()
    ban(me.username, Ban.Kind.LOGIN, reason="なりすまし")
    refused(me.send("GET", "me"), "なりすまし")  # its token

    def token_for(password: str):
        answer = Client().post(
            "/api/v1/auth/token",
            {"username": me.username, "password": password},
            content_type="application/json",
        )
        return answer.status_code, answer.json()["error"]

    status, error = token_for(PASSWORD)
    assert (status, error["code"]) == (403, "banned") and "なりすまし" in error["message"]
    status, error = token_for("x" * 16)
    assert (status, error["code"]) == (401, "not_authenticated"), "a wrong password learns nothing"
    page = Client().post(reverse("accounts:login"), {"username": me.username, "password": PASSWORD})
    text = page.content.decode()
    assert page.status_code == 200 and "なりすまし" in text and "ログイン" in text
    assert "_auth_user_id" not in page.client.session
    page = Client().post(reverse("accounts:login"), {"username": me.username, "password": "x" * 9})
    assert "なりすまし" not in page.content.decode()


def test_a_ban_ends_at_its_time(api: Api, monkeypatch):
    me = api.register()
    start = timezone.now()
    ban(me.username, Ban.Kind.CREATE, until=start + timedelta(hours=1))
    clock = SimpleNamespace(now=lambda: start + timedelta(minutes=59), localtime=timezone.localtime)
    monkeypatch.setattr("accounts.bans.timezone", clock)
    refused(new_village(me))
    clock.now = lambda: start + timedelta(hours=1, seconds=1)
    assert new_village(me).status == 201, "the ban is over"


def test_lifting_a_ban_in_the_admin_ends_it_and_keeps_it_in_the_history(api: Api, admin_client):
    me = api.register()
    issued = ban(me.username, Ban.Kind.CREATE)
    refused(new_village(me))
    answer = admin_client.post(
        reverse("admin:accounts_ban_changelist"),
        {"action": "lift", "_selected_action": [issued.pk]},
        follow=True,
    )
    assert "1 件の利用停止を解除しました" in answer.content.decode()
    assert new_village(me).status == 201
    issued.refresh_from_db()
    assert issued.until is not None and issued.until <= timezone.now()
    user = get_user_model().objects.get(username=me.username)
    history = admin_client.get(reverse("admin:auth_user_change", args=[user.pk])).content.decode()
    assert "暴言" in history, "the user's page lists the lifted ban"
