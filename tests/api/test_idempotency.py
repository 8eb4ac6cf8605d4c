"""A command sent again with the same Idempotency-Key is not run again (issue 14): the
retry gets the first answer, whether that answer reached the client or was lost."""

from __future__ import annotations

import json
import socket
import time

import pytest
from django.test import Client

from villages.line_numbers import SPAN
from villages.models import Ballot, Message

from ..realtime.game import started_village, to_day_two

pytestmark = pytest.mark.django_db(transaction=True)


def api(client: Client, path: str, body: dict, key: str | None = None, token: str = ""):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"}
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return client.post(path, json.dumps(body), content_type="application/json", **headers)


@pytest.fixture
def day_two(settings):
    settings.JINRO_RATE_LIMIT_ENABLED = False
    game = started_village()
    to_day_two(game, victim=4)
    return game


def lines(game) -> list[str]:
    return list(
        Message.objects.filter(village_id=game.village_id, kind="talk").values_list(
            "text", flat=True
        )
    )


def test_a_line_sent_twice_with_one_key_is_posted_once_and_answered_alike(day_two):
    client, token = Client(), day_two.token(5)
    path = f"/api/v1/villages/{day_two.village_id}/messages"
    first = api(client, path, {"text": "一度だけ"}, "key-1", token)
    again = api(client, path, {"text": "一度だけ"}, "key-1", token)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert lines(day_two).count("一度だけ") == 1
    other = api(client, path, {"text": "一度だけ"}, "key-2", token)  # a new key: a new line
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert api(client, path, {"text": "一度だけ"}, None, token).status_code == 201
    assert lines(day_two).count("一度だけ") == 3


def test_a_vote_retried_gets_its_first_answer_not_already_voted(day_two):
    client, token = Client(), day_two.token(5)
    path = f"/api/v1/villages/{day_two.village_id}/vote"
    first = api(client, path, {"target": 6}, "vote-1", token)
    again = api(client, path, {"target": 6}, "vote-1", token)
    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert Ballot.objects.filter(village_id=day_two.village_id, voter=5).count() == 1
    fresh = api(client, path, {"target": 6}, "vote-2", token)
    assert fresh.status_code == 409 and fresh.json()["error"]["code"] == "already_voted"


def test_a_refusal_is_answered_alike_on_a_retry_and_a_key_is_for_one_endpoint(day_two):
    client, token = Client(), day_two.token(4)  # seat 4 is dead
    path = f"/api/v1/villages/{day_two.village_id}/messages"
    first = api(client, path, {"text": "生きてる？"}, "dead-1", token)
    again = api(client, path, {"text": "生きてる？"}, "dead-1", token)
    assert first.status_code == again.status_code == 403
    assert again.json() == first.json() and first.json()["error"]["code"] == "dead"
    living, token = Client(), day_two.token(5)
    base = f"/api/v1/villages/{day_two.village_id}"
    assert api(living, f"{base}/objection", {}, "o-1", token).status_code == 200
    vote = api(living, f"{base}/vote", {"target": 6}, "o-1", token)  # the key, elsewhere
    assert vote.status_code == 200 and "tally_done" in vote.json()
    bad = api(client, path, {"text": "x"}, "鍵", token)
    assert bad.status_code == 400 and "Idempotency-Key" in bad.json()["error"]["message"]


def test_a_retry_after_an_answer_lost_on_the_way_posts_nothing_new(day_two, daphne_server):
    """Over real HTTP: the client sends the post and hangs up before the answer, as a phone
    that lost its network does; the line commits anyway; the retry gets it back."""
    token = day_two.token(6)
    path = f"/api/v1/villages/{day_two.village_id}/messages"
    body = json.dumps({"text": "届いたかな"}).encode()
    host, port = daphne_server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(
            (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Authorization: Token {token}\r\nIdempotency-Key: lost-1\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body
        )
    deadline = time.monotonic() + 10
    while "届いたかな" not in lines(day_two):
        assert time.monotonic() < deadline, "the post never committed"
        time.sleep(0.05)
    import urllib.request

    request = urllib.request.Request(
        daphne_server + path,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Token {token}",
            "Idempotency-Key": "lost-1",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201
        answer = json.loads(response.read())
    assert answer["text"] == "届いたかな"
    assert lines(day_two).count("届いたかな") == 1
    committed = Message.objects.get(village_id=day_two.village_id, text="届いたかな")
    assert answer["id"] == committed.public_no * SPAN  # the number everyone knows it by


def test_the_talk_form_sent_twice_posts_once(day_two):
    client = Client()
    client.force_login(day_two.user(5))
    page = client.get(f"/villages/{day_two.village_id}/up/").content.decode()
    key = page.split('name="idempotency_key" value="', 1)[1].split('"', 1)[0]
    assert len(key) == 32
    form = {"text": "二度押し", "mode": "normal", "idempotency_key": key}
    for _ in range(2):
        response = client.post(f"/villages/{day_two.village_id}/up/", form)
        assert response.status_code == 302
    assert lines(day_two).count("二度押し") == 1
    fresh = client.get(f"/villages/{day_two.village_id}/up/").content.decode()
    assert key not in fresh  # the next line gets a key of its own
