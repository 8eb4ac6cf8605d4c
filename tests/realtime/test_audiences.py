"""Each socket carries what its user may see at that moment, and nothing more (SPEC §8)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db
from django.test import Client

from villages.engine.texts import HOWL_TEXT

from .game import SEER, WOLVES, make_user, started_village, to_day_two, token_of
from .sockets import open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


def roles_in(state: dict) -> dict[int, str | None]:
    return {s["seat_no"]: s["role"] for s in state["seats"]}


async def test_a_socket_without_credentials_is_a_spectator():
    game = await db(started_village)()
    spectator = await open_socket(game.village_id)
    state = spectator.last_state()
    assert state["me"] is None
    assert set(roles_in(state).values()) == {None}
    await spectator.close()


async def test_a_token_or_a_session_makes_the_socket_its_users_seat():
    game = await db(started_village)()
    by_token = await open_socket(game.village_id, token=await db(game.token)(3))
    assert by_token.last_state()["me"]["seat_no"] == 3
    assert by_token.last_state()["me"]["role"] == "seer"

    client = Client()
    await db(client.force_login)(game.user(WOLVES[0]))
    by_session = await open_socket(
        game.village_id, cookie=f"sessionid={client.cookies['sessionid'].value}"
    )
    me = by_session.last_state()["me"]
    assert (me["seat_no"], me["role"], me["partners"]) == (1, "wolf", [2])
    await by_token.close()
    await by_session.close()


async def test_a_user_without_a_seat_watches_as_a_spectator():
    game = await db(started_village)()
    outsider = await db(make_user)()
    socket = await open_socket(game.village_id, token=await db(token_of)(outsider))
    assert socket.last_state()["me"] is None
    assert set(roles_in(socket.last_state()).values()) == {None}
    await socket.close()


async def test_a_bad_token_is_refused_with_4401_and_an_unknown_village_with_4404():
    from .sockets import ORIGIN, tracked

    game = await db(started_village)()
    for path, code, error in (
        (f"/ws/villages/{game.village_id}/?token=nope", 4401, "not_authenticated"),
        (f"/ws/villages/{game.village_id + 999}/", 4404, "not_found"),
    ):
        communicator = tracked(path, [ORIGIN])
        await communicator.connect()
        frame = await communicator.receive_json_from(timeout=5)
        assert frame["type"] == "error" and frame["error"]["code"] == error
        assert (await communicator.receive_output(timeout=5)) == {
            "type": "websocket.close",
            "code": code,
        }


async def test_at_night_a_wolfs_talk_reaches_the_wolves_and_only_a_howl_the_others():
    game = await db(started_village)()
    sockets = {
        no: await open_socket(game.village_id, token=await db(game.token)(no))
        for no in (1, 2, SEER, 4)
    }
    spectator = await open_socket(game.village_id)

    await db(game.talk)(1, "今夜は占い師を狙おう")

    for no in WOLVES:
        (line,) = [f for f in await sockets[no].until_state() if f["type"] == "message"]
        assert line["message"]["kind"] == "wolf"
        assert (line["message"]["seat_no"], line["message"]["text"]) == (1, "今夜は占い師を狙おう")
    for other in (sockets[SEER], sockets[4], spectator):
        (line,) = [f for f in await other.until_state() if f["type"] == "message"]
        assert line["message"]["kind"] == "wolf_howl"
        assert (line["message"]["seat_no"], line["message"]["text"]) == (None, HOWL_TEXT)
        assert "占い師を狙おう" not in other.text()
    for socket in [*sockets.values(), spectator]:
        await socket.close()


async def test_at_night_a_villagers_talk_is_a_monologue_only_its_speaker_receives():
    game = await db(started_village)()
    speaker = await open_socket(game.village_id, token=await db(game.token)(4))
    wolf = await open_socket(game.village_id, token=await db(game.token)(1))
    spectator = await open_socket(game.village_id)

    await db(game.talk)(4, "ひとりごと")

    # A monologue changes no state: its speaker gets the line, nobody else gets anything.
    assert [f["message"]["kind"] for f in await speaker.quiet()] == ["monologue"]
    for other in (wolf, spectator):
        assert await other.quiet() == []
        assert "ひとりごと" not in other.text()
    for socket in (speaker, wolf, spectator):
        await socket.close()


async def test_heaven_talk_reaches_the_dead_only():
    game = await db(started_village)()
    await db(to_day_two)(game, victim=4)  # seat 4 is dead on day 2
    dead = await open_socket(game.village_id, token=await db(game.token)(4))
    living = {
        no: await open_socket(game.village_id, token=await db(game.token)(no))
        for no in (1, SEER, 5)
    }
    spectator = await open_socket(game.village_id)

    await db(game.talk)(4, "霊界から失礼", "heaven")

    (line,) = await dead.quiet()  # heaven talk changes no state: the line alone
    assert (line["message"]["kind"], line["message"]["text"]) == ("heaven", "霊界から失礼")
    for other in [*living.values(), spectator]:
        assert await other.quiet() == []
        assert "霊界から失礼" not in other.text()
    for socket in [dead, *living.values(), spectator]:
        await socket.close()


async def test_a_spectators_socket_never_carries_a_role_before_the_end():
    game = await db(started_village)()
    spectator = await open_socket(game.village_id)

    async def step(command, *args):
        await db(command)(*args)
        return await spectator.until_state()

    async def hidden_step(command, *args):
        await db(command)(*args)
        assert await spectator.quiet(0.3) == [], "a hidden action reached a spectator"

    # Night 1: the wolves bite 4 (the spectator hears nothing), the seer divines 5.
    await step(game.talk, 1, "噛み先は4で")
    await hidden_step(game.act, 1, "attack", 4)
    await step(game.act, SEER, "divine", 5)
    # Day 2: wolf 1 is executed.
    for voter in (1, 2, 3, 5, 6, 7, 8):
        await step(game.vote, voter, 3 if voter == 1 else 1)
    # Night 2: wolf 2 bites 5; day 3: wolf 2 is executed, the village wins.
    await hidden_step(game.act, 2, "attack", 5)
    await step(game.act, SEER, "divine", 2)
    before_end = list(spectator.frames)
    for voter in (3, 6, 7, 8):
        await step(game.vote, voter, 2)
    last = await step(game.vote, 2, 3)

    for frame in before_end:
        if frame["type"] == "state":
            assert set(roles_in(frame["state"]).values()) == {None}, frame
            assert frame["state"]["me"] is None
        assert frame["type"] not in ("log",)
    assert "噛み先は4で" not in str(before_end)
    assert [f["type"] for f in last if f["type"] in ("game_over", "log")] == ["log", "game_over"]
    # A client that knows only API.md's frames still gets the ending's lines as messages.
    (log,) = [f for f in last if f["type"] == "log"]
    ending = [f["message"] for f in last if f["type"] == "message"]
    assert ending and ending == [m for m in log["messages"] if m["id"] >= ending[0]["id"]]
    assert any(m["code"] == "win_village" for m in ending), ending
    assert roles_in(spectator.last_state())[1] == "wolf"
    assert spectator.last_state()["winner"] == "village"
    assert "噛み先は4で" in spectator.text()  # after the end, everyone sees everything
    await spectator.close()


async def test_a_dying_villagers_socket_widens_to_heaven_from_that_moment():
    game = await db(started_village)()
    villager = await open_socket(game.village_id, token=await db(game.token)(4))

    await db(game.talk)(1, "4を噛む")
    howl = [f["message"] for f in await villager.until_state() if f["type"] == "message"]
    assert [(m["kind"], m["text"]) for m in howl] == [("wolf_howl", HOWL_TEXT)]
    assert set(roles_in(villager.last_state()).values()) == {None, "villager"}

    await db(game.act)(1, "attack", 4)
    assert await villager.quiet(0.3) == [], "the wolves' choice reached its victim"
    alive_frames = list(villager.frames)
    await db(game.act)(SEER, "divine", 5)  # dawn: seat 4 is found dead
    dawn = await villager.until_state()

    assert "4を噛む" not in str(alive_frames)
    (log,) = [f for f in dawn if f["type"] == "log"]
    assert ("wolf", "4を噛む") in [(m["kind"], m["text"]) for m in log["messages"]]
    # The dawn's own lines come as `message` frames too, before the whole log.
    morning = [f["message"]["code"] for f in dawn if f["type"] == "message"]
    assert "found_dead" in morning, dawn
    assert [f["type"] for f in dawn].index("message") < [f["type"] for f in dawn].index("log")
    state = dawn[-1]["state"]
    assert state["me"]["alive"] is False
    assert roles_in(state) == {1: "wolf", 2: "wolf", 3: "seer"} | {
        n: "villager" for n in range(4, 9)
    }
    assert "dawn" in [f["type"] for f in dawn]

    # From now on it hears heaven and the wolves in full.
    await db(game.talk)(4, "死んでしまった", "heaven")
    assert [f["message"]["kind"] for f in await villager.quiet()] == ["heaven"]
    for voter in (1, 2, 3, 5, 6, 7, 8):
        await db(game.vote)(voter, 3 if voter != 3 else 5)
    await villager.quiet()
    await db(game.talk)(2, "次は誰にする")
    (line,) = [f["message"] for f in await villager.until_state() if f["type"] == "message"]
    assert (line["kind"], line["seat_no"], line["text"]) == ("wolf", 2, "次は誰にする")
    await villager.close()
