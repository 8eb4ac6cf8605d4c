"""The timing of a hidden action is hidden too (SPEC §8): a night action or a will sends
nothing — not a frame, not an empty envelope — to a socket whose view it does not change,
and its change to the actor's own socket (and to those who may know of it: the pack)."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async as db

from .game import Game, make_user, started_village, token_of
from .sockets import Screen, Socket, hub_settled, open_screen, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

# Eleven players: wolves 1-2, seer 3, guard 4, medium 5, madman 6, villagers 7-11.
CAST_11 = {1: "wolf", 2: "wolf", 3: "seer", 4: "guard", 5: "medium", 6: "madman"}
CAST_11 |= {n: "villager" for n in range(7, 12)}
SILENCE = 0.5  # after the hub settled: what would come has come by then


async def both(game: Game, seat: int | None) -> tuple[Socket, Screen]:
    """A JSON socket and a game screen socket of one viewer (None: a spectator)."""
    token = None
    if seat is not None:
        token = await db(game.token)(seat)
    else:
        token = await db(token_of)(await db(make_user)())
    json_socket = await open_socket(game.village_id, token=token)
    screen = await open_screen(game.village_id, token=token)
    return json_socket, screen


async def to_night_two(game: Game) -> None:
    await db(game.act)(1, "attack", 7)  # night 1: 7 is bitten
    await db(game.act)(3, "divine", 8)
    for voter in (1, 2, 3, 4, 5, 6, 8, 10, 11):  # day 2: 9 is executed
        await db(game.vote)(voter, 9)
    await db(game.vote)(9, 1)


async def assert_silent(game: Game, observers: dict[str, tuple[Socket, Screen]], what: str) -> None:
    await hub_settled(game.village_id)

    async def hears(name: str, socket: Socket) -> None:
        got = await socket.quiet(SILENCE)
        kinds = [f["type"] for f in got]
        assert got == [], f"{name} got {len(got)} frame(s) after {what}: {kinds}"

    await asyncio.gather(
        *(hears(f"{name} (json)", s) for name, (s, _) in observers.items()),
        *(hears(f"{name} (screen)", sc.socket) for name, (_, sc) in observers.items()),
    )


async def test_night_actions_and_wills_reach_only_their_actors():
    game = await db(started_village)(CAST_11)
    await to_night_two(game)
    observers = {
        "living villager": await both(game, 10),
        "spectator": await both(game, None),
        "dead villager": await both(game, 7),
    }
    seer, guard, writer = await both(game, 3), await both(game, 4), await both(game, 11)
    wolf, pack = await both(game, 1), await both(game, 2)

    # Night 2: the guard, the seer and a will; the wolves have not chosen (the night goes on).
    await db(game.act)(4, "guard", 3)
    await db(game.act)(3, "divine", 1)
    await db(game.talk)(11, "村人でした。", "will")
    await assert_silent(game, observers, "a guard, a divination and a will")

    (guarded,) = [f for f in await guard[0].quiet(0.2) if f["type"] == "state"]
    assert guarded["state"]["me"]["action_done"] is True
    await guard[1].read()
    assert "今夜はp3さんを護衛します" in guard[1].parts["u-actions"]
    (divined,) = [f for f in await seer[0].quiet(0.2) if f["type"] == "state"]
    assert divined["state"]["me"]["night_action"]["targets"] == [1]
    await seer[1].read()
    assert "今夜はp1さんを占います" in seer[1].parts["u-actions"]
    (willed,) = [f for f in await writer[0].quiet(0.2) if f["type"] == "state"]
    assert willed["state"]["me"]["will"] == "村人でした。"
    assert await writer[1].socket.quiet(0.2) == []  # a will shows on no part of the screen
    for name, (json_socket, screen) in {"wolf": wolf, "pack": pack}.items():
        assert await json_socket.quiet(0.2) == [], f"{name} heard another role's action"
        assert await screen.socket.quiet(0.2) == [], f"{name}'s screen heard it"

    # The wolves' choice ends the night: the dawn is for everyone.
    await db(game.act)(1, "attack", 10)
    for name, (json_socket, _screen) in observers.items():
        frames = await json_socket.until("dawn")
        assert frames, name

    # Day 3 → night 3; now the wolves choose first, and only the pack hears it.
    await asyncio.sleep(0.3)
    for voter in (1, 2, 3, 4, 5, 6, 8):
        await db(game.vote)(voter, 8 if voter != 8 else 1)
    await db(game.vote)(11, 8)
    for json_socket, screen in [*observers.values(), seer, guard, writer, wolf, pack]:
        await json_socket.quiet(0.3)
        await screen.read(0.1)
    await db(game.act)(2, "attack", 11)
    await assert_silent(game, observers | {"seer": seer, "guard": guard}, "the wolves' choice")
    for name, (json_socket, screen) in {"wolf 1": wolf, "wolf 2": pack}.items():
        (chosen,) = [f for f in await json_socket.quiet(0.2) if f["type"] == "state"]
        assert chosen["state"]["me"]["night_action"]["targets"] == [11], name
        await screen.read()
        assert "今夜はp11さんを襲撃します" in screen.parts["u-actions"], name
    for json_socket, screen in [*observers.values(), seer, guard, writer, wolf, pack]:
        await json_socket.close()
        await screen.close()
