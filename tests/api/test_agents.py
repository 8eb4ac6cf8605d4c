"""AIWolf agents in the API (issue 31): the host opens or closes a village to agents
(`POST villages/{id}/agents`), removes an agent's seat (`DELETE villages/{id}/agents/{seat_no}`),
and every seat of the State and of the finished village's log says whether an agent plays it."""

from __future__ import annotations

import jsonschema
from django.contrib.auth import get_user_model
from django.test import Client

from villages.engine import game as engine
from villages.models import Seat
from villages.services import agents, lifecycle

from ..web.conftest import CAST8, play_to_end, waiting_village
from .client import Api, Caller, Table, open_village
from .test_log_export import schema_of_log

FORBIDDEN = "エージェントの受け入れを変えられるのは村を作った人とスタッフだけです。"


def waiting(api: Api, **options) -> Table:
    return open_village(api, players=3, capacity=9, options=options, start=False)


def owner_of(caller: Caller):
    return get_user_model().objects.get(username=caller.username)


def test_a_village_created_with_agents_says_so_in_its_options(api: Api):
    table = waiting(api, agents=True)
    assert table.host.get(table.path())["options"]["agents"] is True
    plain = waiting(api)
    assert plain.host.get(plain.path())["options"]["agents"] is False


def test_the_host_opens_and_closes_a_village_to_agents(api: Api):
    table = waiting(api)
    assert table.host.ok("POST", table.path("agents"), {"open": True}) == {"agents": True}
    assert table.host.get(table.path())["options"]["agents"] is True
    texts = [m["text"] for m in table.messages()]
    assert "この村は人狼知能エージェントを受け入れるようになりました。" in texts
    assert table.host.ok("POST", table.path("agents"), {"open": False}) == {"agents": False}
    assert table.host.get(table.path())["options"]["agents"] is False


def test_only_the_host_or_staff_opens_a_village_and_only_before_the_start(api: Api, staff):
    table = waiting(api)
    player = table.player(2)
    answer = player.send("POST", table.path("agents"), {"open": True})
    assert answer.status == 403 and answer.code == "forbidden"
    assert answer.body["error"]["message"] == FORBIDDEN
    answer = api.spectator.send("POST", table.path("agents"), {"open": True})
    assert answer.status == 401 and answer.code == "not_authenticated"
    assert table.host.send("POST", table.path("agents"), {}).code == "bad_request"
    assert table.host.send("POST", table.path("agents"), {"open": "yes"}).code == "bad_request"
    assert table.host.get(table.path())["options"]["agents"] is False
    assert staff.ok("POST", table.path("agents"), {"open": True}) == {"agents": True}

    started = open_village(api, players=8)
    answer = started.host.send("POST", started.path("agents"), {"open": True})
    assert answer.status == 409 and answer.code == "wrong_phase"


def test_every_seat_of_the_state_says_whether_an_agent_plays_it(api: Api):
    table = waiting(api, agents=True)
    seat_no = agents.take_seat(
        village_id=table.id, owner=owner_of(table.player(2)), name="kanolab1"
    )
    for who in (api.spectator, table.host, table.player(2)):
        seats = {s["seat_no"]: s for s in table.state(who)["seats"]}
        assert seats[seat_no]["agent"] is True and seats[seat_no]["bot"] is False
        assert seats[seat_no]["handle_name"] == "kanolab1" + engine.AGENT_MARK
        assert all(s["agent"] is False for no, s in seats.items() if no != seat_no)


def test_the_host_removes_an_agents_seat_and_nothing_else(api: Api, staff):
    table = waiting(api, agents=True)
    owner = owner_of(table.player(2))
    first = agents.take_seat(village_id=table.id, owner=owner, name="kanolab1")
    second = agents.take_seat(village_id=table.id, owner=owner, name="kanolab2")

    answer = table.player(2).send("DELETE", table.path(f"agents/{first}"))
    assert answer.status == 403 and answer.body["error"]["message"] == FORBIDDEN
    answer = table.host.send("DELETE", table.path("agents/2"))  # a person's seat
    assert answer.status == 400 and answer.code == "bad_request"
    assert "人狼知能エージェントの席ではありません" in answer.body["error"]["message"]
    assert api.spectator.send("DELETE", table.path(f"agents/{first}")).status == 401

    assert table.host.send("DELETE", table.path(f"agents/{first}")).status == 204
    assert staff.send("DELETE", table.path(f"agents/{second}")).status == 204
    seats = {s["seat_no"] for s in table.state()["seats"]}
    assert first not in seats and second not in seats and 2 in seats
    assert table.host.send("DELETE", table.path(f"agents/{first}")).code == "bad_request"


def test_the_finished_villages_log_says_which_seat_an_agent_played(db):
    game = waiting_village(n=7, capacity=8, agents=True)
    seat_no = agents.take_seat(village_id=game.id, owner=game.user(2), name="kanolab1")
    assert seat_no == 8  # a villager in CAST8, bitten the first night
    lifecycle.fix_cast(village_id=game.id, user=game.staff, roles=CAST8, sub_roles={})
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    game.users.append(Seat.objects.get(village_id=game.id, seat_no=seat_no).user)
    play_to_end(game)
    data = Client().get(f"/api/v1/villages/{game.id}/log").json()
    jsonschema.validate(data, schema_of_log())
    seats = {s["seat_no"]: s for s in data["seats"]}
    assert seats[8]["agent"] is True and seats[8]["handle_name"] == "kanolab1(AI)"
    assert all(s["agent"] is False for no, s in seats.items() if no != 8)


def test_the_openapi_document_lists_the_agents_endpoints():
    paths = Client().get("/api/v1/openapi.json").json()["paths"]
    assert "post" in paths["/api/v1/villages/{village_id}/agents"]
    assert "delete" in paths["/api/v1/villages/{village_id}/agents/{seat_no}"]
