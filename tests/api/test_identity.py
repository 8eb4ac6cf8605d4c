"""Identity and abuse: trips, one seat per address, the cap on active villages, text limits,
seats before the start (leave, kick), tokens."""

from __future__ import annotations

import pytest
from django.apps import apps

from .client import Api, Caller, open_village


def every_stored_string() -> str:
    """Every value of every row of every model, as one string to search."""
    parts = []
    for model in apps.get_models():
        for row in model.objects.all().values_list():
            parts.append(repr(row))
    return "\n".join(parts)


def seat_body(api: Api, name: str, **extra: object) -> dict:
    return {"handle_name": name, "icon": api.icons()[0]["id"], **extra}


# ---------------------------------------------------------------------------
# Trips


def test_a_trip_shows_a_diamond_and_a_hash_and_the_secret_is_never_stored(api: Api):
    secret = "ひみつ-SecretTrip-7731"
    table = open_village(api, players=7, capacity=8, start=False)
    me, again = api.register(), api.register()
    table.sit(me, "トリップさん", trip=secret)
    seats = {s["seat_no"]: s for s in table.state()["seats"]}
    trip = seats[me.seat_no]["trip"]
    assert trip.startswith("◆") and len(trip) > 5 and secret not in trip
    assert secret not in every_stored_string(), "the trip's secret reached the database"
    assert secret not in str(table.messages()) + str(table.state(me))

    other = open_village(api, players=6, capacity=8, start=False, seed=2)
    other.sit(again, "同じ秘密", trip=secret)
    other.sit(api.register(), "違う秘密", trip=secret + "x")
    trips = {s["handle_name"]: s["trip"] for s in other.state()["seats"]}
    assert trips["同じ秘密"] == trip, "the same secret always gives the same trip"
    assert trips["違う秘密"] != trip
    no_trip = [s["trip"] for s in other.state()["seats"] if s["handle_name"] != "同じ秘密"]
    assert "" in no_trip


# ---------------------------------------------------------------------------
# One seat per address


def test_one_seat_per_address_when_on(api: Api, settings):
    settings.JINRO_ONE_SEAT_PER_IP = True
    table = open_village(api, players=2, capacity=8, start=False)
    first = table.seated()[0]
    twin = api.register()
    twin.ip = first.ip  # a second account behind the same address
    reply = twin.send("POST", table.path("seats"), seat_body(api, "双子"))
    assert (reply.status, reply.code) == (409, "already_seated")
    # It is per village: the same address may sit in another one.
    other = open_village(api, players=1, capacity=8, start=False, seed=3)
    other.sit(twin, "双子")
    # And after the first one leaves, the address is free in the first village.
    first.ok("DELETE", table.path("seats/me"), status=204)
    table.sit(Caller(api, twin.username, twin.token, first.ip), "双子")


def test_one_seat_per_address_off_lets_a_shared_address_sit_twice(api: Api, settings):
    settings.JINRO_ONE_SEAT_PER_IP = False
    table = open_village(api, players=2, capacity=8, start=False)
    twin = api.register()
    twin.ip = table.seated()[0].ip
    table.sit(twin, "双子")
    assert table.state()["village"]["seated"] == 3


# ---------------------------------------------------------------------------
# Active villages


def test_at_most_max_active_villages_waiting_or_playing(api: Api, settings):
    settings.JINRO_MAX_ACTIVE_VILLAGES = 2
    host = api.register()
    body = {"name": "村", "capacity": 8}
    first = host.ok("POST", "villages", body, status=201)
    host.ok("POST", "villages", body, status=201)
    reply = host.send("POST", "villages", body)
    assert reply.status == 409 and reply.code == "too_many_villages"
    assert len(api.spectator.get("villages")["villages"]) == 2
    # An ended village no longer counts.
    staff = api.staff()
    from villages.services import lifecycle

    lifecycle.end_village(village_id=first["id"])
    assert api.spectator.get(f"villages/{first['id']}")["status"] == "ended"
    host.ok("POST", "villages", body, status=201)
    del staff


# ---------------------------------------------------------------------------
# Text limits (SPEC §6): 2000 characters, 50 lines, for talk, wills and heaven alike


@pytest.mark.parametrize("channel", ["talk", "will"])
def test_text_limits_are_2000_characters_and_50_lines(api: Api, channel: str):
    table = open_village(api, players=8, start=False)
    me = table.player(1)
    ok_status = 200 if channel == "will" else 201

    def post(text: str) -> int:
        return me.send("POST", table.path("messages"), {"text": text, "channel": channel}).status

    assert post("あ" * 2000) == ok_status
    assert post("\n".join(["行"] * 50)) == ok_status
    assert post("あ" * 2001) == 400
    assert post("\n".join(["行"] * 51)) == 400


def test_a_will_is_kept_replaced_and_cleared_by_a_single_space(api: Api):
    table = open_village(api, players=8, start=False)
    me = table.player(3)

    def will(text: str) -> str:
        body = me.ok("POST", table.path("messages"), {"text": text, "channel": "will"})
        assert body["will"] == table.state(me)["me"]["will"]
        return body["will"]

    assert will("最初の遺言") == "最初の遺言"
    assert will("書き直した遺言") == "書き直した遺言"
    assert will(" ") == ""


def test_virtual_time_is_consumed_by_speech_and_shown(api: Api):
    table = open_village(api, players=8, cast=["wolf", "wolf", "seer"] + ["villager"] * 5)
    left = table.state()["clock"]["virtual_seconds_left"]
    assert left == 6 * 3600
    table.player(4).ok("POST", table.path("messages"), {"text": "独り言"}, status=201)
    assert table.state()["clock"]["virtual_seconds_left"] == left, "a monologue costs nothing"
    table.player(1).ok("POST", table.path("messages"), {"text": "あ" * 150}, status=201)
    assert table.state()["clock"]["virtual_seconds_left"] == left - 3 * 900, "300 wide: 3 units"
    table.player(1).ok("POST", table.path("messages"), {"text": "a" * 2000}, status=201)
    assert table.state()["clock"]["virtual_seconds_left"] == left - 7 * 900, "at most 4 units"


# ---------------------------------------------------------------------------
# Before the start: leaving, kicking


def test_three_kick_votes_remove_a_seat_who_may_not_come_back(api: Api):
    table = open_village(api, players=6, capacity=8, start=False)
    victim = table.player(6)
    for voter in (1, 2):
        answer = table.player(voter).ok("POST", table.path("kick-votes"), {"seat_no": 6})
        assert answer == {"kicked": False}
    assert table.player(3).ok("POST", table.path("kick-votes"), {"seat_no": 6}) == {"kicked": True}
    assert 6 not in [s["seat_no"] for s in table.state()["seats"]]
    reply = victim.send("POST", table.path("seats"), seat_body(api, "再挑戦"))
    assert (reply.status, reply.code) == (403, "forbidden")
    assert table.state(victim)["me"] is None, "a kicked user is a spectator"


def test_after_the_last_seat_is_kicked_a_newcomer_can_sit(api: Api):
    """The kicked row stays (it bars the user); its number must not block the next seat."""
    table = open_village(api, players=6, capacity=8, start=False)
    staff = api.staff()
    assert staff.ok("POST", table.path("kick-votes"), {"seat_no": 6}) == {"kicked": True}
    newcomer = api.register()
    seat_no = table.sit(newcomer, "新入り")
    seats = [s["seat_no"] for s in table.state()["seats"]]
    assert seat_no in seats and len(seats) == 6


def test_a_kick_clears_every_start_vote(api: Api):
    table = open_village(api, players=8, start=False)
    for player in table.seated()[:7]:
        assert player.ok("POST", table.path("start-vote")) == {"started": False}
    api.staff().ok("POST", table.path("kick-votes"), {"seat_no": 8})
    assert not any(table.state(p)["me"]["action_done"] for p in table.seated() if p.seat_no != 8), (
        "start votes are cleared by a kick"
    )


def test_leaving_frees_the_seat_and_the_name(api: Api):
    table = open_village(api, players=8, start=False)
    leaver = table.player(8)
    name = next(s["handle_name"] for s in table.state()["seats"] if s["seat_no"] == 8)
    leaver.ok("DELETE", table.path("seats/me"), status=204)
    table.sit(api.register(), name)
    assert table.state()["village"]["seated"] == 8


# ---------------------------------------------------------------------------
# Tokens and accounts


def test_me_and_a_renewed_token(api: Api):
    me = api.register()
    assert me.get("me") == {"username": me.username, "is_staff": False}
    assert api.spectator.get("me") == {"username": None, "is_staff": False}, "GETs work for all"
    assert api.staff().get("me")["is_staff"]
    same = me.ok("POST", "auth/token", {"username": me.username, "password": "Kagome-kagome-1234"})
    assert same == {"token": me.token}
    from accounts.models import Profile

    Profile.objects.get(user__username=me.username).renew_token()
    assert me.send("GET", "me").status == 401, "the old token stops working"


def test_a_banned_users_token_stops_working(api: Api):
    from django.contrib.auth import get_user_model

    me = api.register()
    get_user_model().objects.filter(username=me.username).update(is_active=False)
    assert me.send("GET", "me").code == "not_authenticated"
    reply = me.send(
        "POST", "auth/token", {"username": me.username, "password": "Kagome-kagome-1234"}
    )
    assert reply.code == "not_authenticated"


def test_the_openapi_document_and_the_docs_page_are_served(api: Api):
    from django.test import Client

    client = Client()
    schema = client.get("/api/v1/openapi.json").json()
    for path in ("/api/v1/villages/{village_id}/state", "/api/v1/villages/{village_id}/vote"):
        assert path in schema["paths"]
    assert client.get("/api/v1/docs").status_code == 200


# ---------------------------------------------------------------------------
# Listing, objections


def test_villages_are_listed_newest_first_and_filtered_by_status(api: Api):
    waiting = open_village(api, players=3, capacity=8, start=False)
    playing = open_village(api, players=8, seed=9)
    listed = api.spectator.get("villages")["villages"]
    assert [v["id"] for v in listed] == [playing.id, waiting.id]
    assert [v["id"] for v in api.spectator.get("villages?status=waiting")["villages"]] == [
        waiting.id
    ]
    assert api.spectator.get("villages?status=ended")["villages"] == []
    village = api.spectator.get(f"villages/{playing.id}")
    assert (village["status"], village["phase"], village["day"], village["seated"]) == (
        "playing",
        "night",
        1,
        8,
    )
    assert api.spectator.send("GET", "villages?status=nonsense").code == "bad_request"


def test_older_villages_are_reached_page_by_page(api: Api):
    made = [open_village(api, players=1, capacity=8, start=False).id for _ in range(3)]
    first = api.spectator.get("villages?limit=2")["villages"]
    assert [v["id"] for v in first] == made[:0:-1]
    rest = api.spectator.get(f"villages?limit=2&before={first[-1]['id']}")["villages"]
    assert [v["id"] for v in rest] == made[:1]
    assert api.spectator.send("GET", "villages?limit=0").code == "bad_request"


def test_an_objection_is_a_line_for_everyone_and_counts_down(api: Api):
    table = open_village(api, players=8, start=False)
    me = table.player(2)
    assert me.ok("POST", table.path("objection")) == {"objections_left": 4}
    assert me.ok("POST", table.path("objection")) == {"objections_left": 3}
    lines = [m for m in table.messages() if m["kind"] == "objection"]
    assert len(lines) == 2 and lines[0]["seat_no"] == 2 and "異議あり" in lines[0]["text"]
    assert table.state(me)["me"]["objections_left"] == 3


def test_rate_limits_let_requests_through_when_the_cache_is_unreachable(
    settings, cache_unreachable
):
    """A rate limit guards the site; with its cache (Redis) down it must not refuse
    everyone with a 500 — the request goes through uncounted."""
    from villages.services import ratelimit

    settings.JINRO_RATE_LIMIT_ENABLED = True
    for _ in range(ratelimit.POST_LIMIT[0] + 5):
        ratelimit.rate_limit("post", "someone", ratelimit.POST_LIMIT)
