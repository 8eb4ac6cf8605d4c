"""A socket follows its user: sitting, leaving or being kicked changes what it hears."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db

from villages.consumers.hub import Hub
from villages.consumers.session import Push
from villages.groups import village_events
from villages.services import lifecycle, play

from .game import icon_id, make_user, token_of, waiting_village
from .sockets import open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


def sit(village_id: int, user) -> int:
    return lifecycle.sit(
        village_id=village_id, user=user, handle_name=user.username, icon_id=icon_id()
    )


async def test_a_watching_user_who_sits_hears_as_that_seat_from_then_on():
    game = await db(waiting_village)(7, capacity=8)
    newcomer = await db(make_user)()
    socket = await open_socket(game.village_id, token=await db(token_of)(newcomer))
    assert socket.last_state()["me"] is None

    seat = await db(sit)(game.village_id, newcomer)
    await socket.quiet()
    assert socket.last_state()["me"]["seat_no"] == seat == 8

    await db(play.post_message)(
        village_id=game.village_id, user=newcomer, text="will", channel="will"
    )
    await socket.until_state()
    assert socket.last_state()["me"]["will"] == "will"  # its seat's own push
    await socket.close()


async def test_a_seated_user_who_leaves_becomes_a_spectator():
    game = await db(waiting_village)(4, capacity=8)
    socket = await open_socket(game.village_id, token=await db(game.token)(2))
    assert socket.last_state()["me"]["seat_no"] == 2

    await db(lifecycle.leave)(village_id=game.village_id, user=game.user(2))
    await socket.quiet()
    assert socket.last_state()["me"] is None

    await db(game.talk)(1, "まだ聞こえる")  # talk before the start moves no clock: a line only
    await socket.until("message")
    assert socket.messages()[-1]["text"] == "まだ聞こえる"
    await socket.close()


async def test_a_kicked_user_becomes_a_spectator():
    game = await db(waiting_village)(4, capacity=8)
    socket = await open_socket(game.village_id, token=await db(game.token)(3))
    await db(lifecycle.kick_vote)(village_id=game.village_id, user=game.staff, target=3)
    await socket.quiet()
    assert socket.last_state()["me"] is None
    await socket.close()


async def test_after_leaving_nothing_of_a_seat_reaches_the_old_holder():
    game = await db(waiting_village)(4, capacity=8)
    leaver = game.user(4)
    socket = await open_socket(game.village_id, token=await db(token_of)(leaver))
    await db(lifecycle.leave)(village_id=game.village_id, user=leaver)
    successor = await db(make_user)()
    await db(sit)(game.village_id, successor)
    await db(play.post_message)(
        village_id=game.village_id, user=successor, text="後任の秘密の遺言", channel="will"
    )
    await socket.quiet(0.5)
    assert all(f["state"]["me"] is None for f in socket.frames[1:] if f["type"] == "state"), (
        "the leaver's socket showed a seat after leaving"
    )
    assert "後任の秘密の遺言" not in socket.text()
    await socket.close()


async def test_frames_computed_for_another_user_of_the_seat_are_never_relayed():
    """Were a seat number ever given to someone else, a socket still subscribed to it as
    the old holder drops the new holder's frames (they name the user they were for)."""
    game = await db(waiting_village)(4, capacity=8)
    socket = await open_socket(game.village_id, token=await db(game.token)(2))
    stranger = await db(make_user)()
    secret = {"type": "state", "state": {"me": {"seat_no": 2, "will": "他人の遺言"}}}
    envelope = village_events([secret], viewer=2, user=stranger.pk, version=10**6)
    for listener in Hub.here().listeners_of(game.village_id):  # as the hub hands it over
        listener.deliver(Push(envelope, viewer=2, user=stranger.pk))
    await socket.quiet(0.5)
    assert "他人の遺言" not in socket.text()
    assert socket.last_state()["me"]["seat_no"] == 2  # it re-read its own view instead
    await socket.close()
