"""The same driver against a live server (`manage.py runsite`) over real HTTP.

Every player talks from a loopback address of its own, so the server's default settings
(one seat per address, rate-limited registration) apply unchanged.
"""

from __future__ import annotations

from .client import Api, Driver, HttpTransport, check_history, open_village, village_wins


def test_a_whole_8_player_game_over_real_http(daphne_server: str):
    api = Api(HttpTransport(daphne_server))
    table = open_village(api, players=8, seed=5)
    talker = table.player(2)
    talker.ok("POST", table.path("messages"), {"text": "夜の独り言"}, status=201)
    final = Driver(table, village_wins()).play()
    assert final["winner"] == "village"
    check_history(table, final)
    texts = [m["text"] for m in table.messages()]
    assert "夜の独り言" in texts, "after the end everyone sees everything"


def test_errors_over_real_http_have_the_api_shape(daphne_server: str):
    api = Api(HttpTransport(daphne_server))
    reply = api.spectator.send("POST", "villages", {"name": "村", "capacity": 8})
    assert reply.status == 401 and reply.code == "not_authenticated"
    reply = api.spectator.send("GET", "villages/999999/state")
    assert reply.status == 404 and reply.code == "not_found"
