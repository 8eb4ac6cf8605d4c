"""Every visible line reaches a socket once, in order: across reconnects, lost pushes,
pushes that overtake each other, and pushes racing the database read of a resume."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db

from jinro_site import livebus
from villages.consumers import api as api_socket
from villages.consumers.base import VillageSocket

from .game import Game, number, started_village, to_day_two
from .sockets import Socket, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]

LISTENER = 5  # a living villager on day 2; seat 4 is dead


async def day_two() -> Game:
    game = await db(started_village)()
    await db(to_day_two)(game, victim=4)
    return game


async def say(game: Game, seat: int, text: str, channel: str = "talk") -> int:
    message = await db(game.talk)(seat, text, channel)
    return number(message) if message.public else 0  # heaven talk: numbered per viewer


def texts(socket: Socket) -> list[str]:
    return [m["text"] for m in socket.messages()]


def assert_in_order_once(socket: Socket) -> None:
    ids = [m["id"] for m in socket.messages()]
    assert ids == sorted(set(ids)), f"duplicated or out of order: {ids}"


async def test_a_reconnecting_client_gets_what_it_missed_in_order_before_new_lines():
    game = await day_two()
    first = await open_socket(game.village_id, token=await db(game.token)(LISTENER))
    seen = await say(game, 6, "一")
    await first.until_state()
    await first.close()

    await say(game, 7, "二")
    await say(game, 4, "霊界の話", "heaven")  # not for the living: never sent to them
    await say(game, 8, "三")
    again = await open_socket(game.village_id, token=await db(game.token)(LISTENER), release=False)
    await again.send({"type": "resume", "after": seen})
    await again.until_state()
    await say(game, 6, "四")
    await again.until_state()

    assert texts(again) == ["二", "三", "四"]
    assert_in_order_once(again)
    await again.close()


async def test_after_on_the_url_resumes_at_connection_time():
    game = await day_two()
    seen = await say(game, 6, "一")
    await say(game, 7, "二")
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER), after=seen)
    await socket.quiet()
    await say(game, 8, "三")
    await socket.until_state()
    assert texts(socket) == ["二", "三"]
    await socket.close()


async def test_pushes_wait_for_the_resume_so_nothing_new_overtakes_the_missed_lines():
    game = await day_two()
    seen = await say(game, 6, "一")
    await say(game, 7, "二")
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER), release=False)
    await say(game, 8, "三")  # pushed before the client said where it stands
    await socket.send({"type": "resume", "after": seen})
    await socket.quiet()
    assert texts(socket) == ["二", "三"]
    assert_in_order_once(socket)
    await socket.close()


async def test_a_silent_client_gets_its_pushes_after_the_short_hold():
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER), release=False)
    await say(game, 6, "一")
    await socket.until_state(timeout=VillageSocket.HOLD_SECONDS + 5)
    assert texts(socket) == ["一"]
    await socket.close()


@pytest.mark.parametrize("when", ["before", "after"])
async def test_a_line_committed_while_a_resume_reads_the_database_arrives_once(monkeypatch, when):
    game = await day_two()
    seen = await say(game, 6, "一")
    read = api_socket.read_snapshot
    racing = []

    def read_racing_a_post(*args, **kwargs):
        if not racing:  # the first read is the connection's own
            racing.append("connect")
            return read(*args, **kwargs)
        if len(racing) == 1:
            racing.append("resume")
            if when == "before":
                game.talk(7, "競争")
                return read(*args, **kwargs)
            snapshot = read(*args, **kwargs)
            game.talk(7, "競争")
            return snapshot
        return read(*args, **kwargs)

    monkeypatch.setattr(api_socket, "read_snapshot", read_racing_a_post)
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER), release=False)
    await socket.send({"type": "resume", "after": seen - 1})
    await socket.quiet(0.5)
    assert texts(socket) == ["一", "競争"]
    assert_in_order_once(socket)
    await socket.close()


async def test_a_lost_event_is_read_from_the_database_before_the_next_line(monkeypatch):
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER))
    publish = livebus.publish
    dropped = []

    def lossy(group, event):
        if not dropped:
            dropped.append(event)
            return None  # as if Redis had been down
        return publish(group, event)

    monkeypatch.setattr(livebus, "publish", lossy)
    await say(game, 6, "失われた")
    await say(game, 7, "次")
    await socket.quiet()
    assert texts(socket) == ["失われた", "次"]
    assert_in_order_once(socket)
    await socket.close()


async def test_events_that_overtake_each_other_still_bring_each_line_once_and_in_order(
    monkeypatch,
):
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER))
    publish = livebus.publish
    captured: list[tuple] = []
    monkeypatch.setattr(livebus, "publish", lambda *sent: captured.append(sent))
    await say(game, 6, "先")
    await say(game, 7, "後")
    for group, event in reversed(captured):  # another node's event arrived first
        publish(group, event)
    for group, event in captured:  # and both once more (a duplicate of each)
        publish(group, event)
    await socket.quiet()
    assert texts(socket) == ["先", "後"]
    assert_in_order_once(socket)
    await socket.close()


async def test_a_lost_event_of_a_quiet_village_reaches_the_socket_at_the_heartbeat(
    monkeypatch, settings
):
    settings.JINRO_LIVE_HEARTBEAT_MS = 100
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER))
    monkeypatch.setattr(livebus, "publish", lambda *sent: None)  # every event lost
    await say(game, 6, "停止中の発言")
    await socket.until_state(timeout=5)  # within two heartbeats, without another event
    assert texts(socket) == ["停止中の発言"]
    await socket.close()


async def test_a_malformed_client_frame_gets_an_error_and_the_socket_goes_on():
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(LISTENER))
    await socket.communicator.send_to(text_data="not json")
    assert (await socket.receive())["error"]["code"] == "bad_request"
    await socket.send({"type": "resume", "after": "x"})
    assert (await socket.receive())["error"]["code"] == "bad_request"
    await say(game, 6, "まだ届く")
    await socket.until_state()
    assert texts(socket) == ["まだ届く"]
    await socket.close()
