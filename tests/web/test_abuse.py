"""Under abuse (issue 14): what a client may learn and do, tried through the doors it
uses. Each test here failed before its fix."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import Client

from villages.services import play

from .conftest import started_village, waiting_village

pytestmark = pytest.mark.django_db


# --- an unexpected error shows nothing of the inside ------------------------------------------


@pytest.mark.parametrize("debug", [False, True])
def test_an_api_operation_that_breaks_answers_server_error_in_the_error_shape(
    monkeypatch, settings, caplog, debug
):
    settings.DEBUG = debug
    game = started_village()

    def broken(**kwargs):
        raise RuntimeError("secret internals /work/main/villages")

    monkeypatch.setattr(play, "post_message", broken)
    client = game.client(4)
    with caplog.at_level(logging.ERROR):
        response = client.post(
            f"/api/v1/villages/{game.id}/messages",
            json.dumps({"text": "こんにちは"}),
            content_type="application/json",
        )
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"]["code"] == "server_error"
    assert body["error"]["message"]
    assert (
        "secret" not in response.content.decode() and "Traceback" not in response.content.decode()
    )
    assert "secret internals" in caplog.text  # the log keeps what went wrong


def test_a_page_that_breaks_shows_the_sites_own_500_page(monkeypatch, settings):
    from villages.views import pages

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(pages.selectors, "villages", broken)
    client = Client(raise_request_exception=False)
    response = client.get("/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "サーバーでエラーが起きました" in html
    assert "secret" not in html and "Traceback" not in html
    assert 'href="/"' in html


# --- a trip is always the site's own ----------------------------------------------------------


@pytest.mark.parametrize("fake", ["名無し◆AbCdEfGhIj", "名無し◇xyz", "名無し♦", "名無し💠"])
def test_a_handle_name_that_looks_like_a_trip_is_refused_on_the_page_and_in_the_api(fake):
    from django.contrib.auth import get_user_model

    from villages.models import Icon, Seat

    game = waiting_village(n=3)
    user = get_user_model().objects.create_user("faker", password="pw-Secret-123")
    client = Client()
    client.force_login(user)
    page = client.post(f"/villages/{game.id}/seat/", {"handle_name": fake, "icon": "2"})
    assert page.status_code == 400
    html = page.content.decode()
    assert "トリップに見える記号は名前に使えません" in html
    assert f'value="{fake}"' in html  # the form keeps what was typed
    icon = Icon.objects.choosable().first().pk
    api = client.post(
        f"/api/v1/villages/{game.id}/seats",
        json.dumps({"handle_name": fake, "icon": icon}),
        content_type="application/json",
    )
    assert api.status_code == 400 and api.json()["error"]["code"] == "bad_request"
    assert not Seat.objects.filter(village_id=game.id, user=user).exists()
    # with a real trip, the site draws the mark itself
    assert (
        client.post(
            f"/villages/{game.id}/seat/", {"handle_name": "名無し", "icon": "2", "trip": "secret"}
        ).status_code
        == 302
    )
    lower = Client().get(f"/villages/{game.id}/down/").content.decode()
    assert lower.count("◆") == 1 and "名無し" in lower


def test_a_page_refused_for_load_is_the_sites_own_503_page_and_says_when_to_come_back():
    from jinro_site.views import overloaded

    page = overloaded("/villages/1/up/")
    assert page.status_code == 503 and page["Retry-After"] == "1"
    html = page.content.decode()
    assert "混み合っています" in html and 'href="/"' in html
    assert int(page["Content-Length"]) == len(page.content)
    api = overloaded("/api/v1/villages/1/messages")
    assert json.loads(api.content)["error"]["code"] == "overloaded"
