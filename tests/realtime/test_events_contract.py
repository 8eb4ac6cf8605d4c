"""The events contract, per audience: a view fetched once (state + messages, as the API
serves them) with every pushed frame applied equals the view fetched afresh — through a
whole game, for every seat (living, dying, dead), a spectator and a user who sits late.

Applying a frame: `message` appends the line (never one already there), `log` replaces
the lines, `state` replaces the state, cues change nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from villages import selectors
from villages.services import clock, lifecycle, play

from .game import CAST_8, Game, icon_id, make_user, token_of, waiting_village
from .sockets import Socket, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


@dataclass
class ClientView:
    name: str
    user_id: int | None
    socket: Socket
    state: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    applied: int = 0

    def apply_new_frames(self) -> None:
        for frame in self.socket.frames[self.applied :]:
            if frame["type"] == "message":
                ids = {m["id"] for m in self.messages}
                assert frame["message"]["id"] not in ids, f"{self.name}: duplicate {frame}"
                self.messages.append(frame["message"])
            elif frame["type"] == "log":
                self.messages = list(frame["messages"])
            elif frame["type"] == "state":
                self.state = frame["state"]
        self.applied = len(self.socket.frames)


def fetch(village_id: int, user_id: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    view = selectors.view_for(village_id, user_id)
    return selectors.state_dict(view), selectors.messages_for(view)


async def open_view(game: Game, name: str, user) -> ClientView:
    user_id = user.pk if user is not None else None
    state, messages = await db(fetch)(game.village_id, user_id)  # the page load
    last = messages[-1]["id"] if messages else 0
    token = await db(token_of)(user) if user is not None else None
    socket = await open_socket(game.village_id, token=token, release=False)
    await socket.send({"type": "resume", "after": last})
    view = ClientView(name, user_id, socket, state=state, messages=messages)
    view.applied = 1  # the connection's state frame: the page already shows it
    return view


@pytest.mark.parametrize("hide_roles", [False, True], ids=["roles-shown-in-heaven", "hidden"])
async def test_an_old_view_plus_the_pushed_events_equals_a_fresh_view(hide_roles):
    options = {"hide_roles_in_heaven": hide_roles}
    game = await db(waiting_village)(7, capacity=8, options=options)
    late = await db(make_user)()
    outsider = await db(make_user)()
    views = [await open_view(game, f"seat {no}", game.user(no)) for no in sorted(game.users)]
    views += [
        await open_view(game, "anonymous spectator", None),
        await open_view(game, "outsider", outsider),
        await open_view(game, "late sitter", late),
    ]
    steps = 0

    async def settle(view: ClientView, what: str) -> tuple[dict, list]:
        """Apply frames as they come until the view is the fresh one (or time runs out)."""
        fresh_state, fresh_messages = fresh = await db(fetch)(game.village_id, view.user_id)
        deadline = asyncio.get_running_loop().time() + 10
        while True:
            view.apply_new_frames()
            if (view.messages, view.state) == (fresh_messages, fresh_state):
                return fresh
            if asyncio.get_running_loop().time() > deadline:
                break
            if not await view.socket.communicator.receive_nothing(timeout=0.05):
                await view.socket.receive()
        assert view.messages == fresh_messages, f"{view.name}: lines differ after {what}"
        assert view.state == fresh_state, f"{view.name}: state differs after {what}"
        return fresh

    async def step(command, *args, **kwargs) -> None:
        nonlocal steps
        await db(command)(*args, **kwargs)
        what = f"step {steps}: {command.__name__}{args}"
        fresh = await asyncio.gather(*(settle(view, what) for view in views))
        await asyncio.gather(*(view.socket.quiet(0.05) for view in views))
        for view, (state, messages) in zip(views, fresh, strict=True):
            view.apply_new_frames()  # nothing more came: no stray or duplicate frame
            assert (view.state, view.messages) == (state, messages), f"{view.name}: {what}"
        steps += 1

    vid = game.village_id

    def talk(seat: int, text: str, channel: str = "talk") -> None:
        user = late if seat == 8 else game.user(seat)
        play.post_message(village_id=vid, user=user, text=text, channel=channel)

    def act(seat: int, action: str, target: int) -> None:
        play.night_action(village_id=vid, user=game.user(seat), action=action, targets=[target])

    def vote(seat: int, target: int) -> None:
        user = late if seat == 8 else game.user(seat)
        play.vote(village_id=vid, user=user, target=target)

    # Before the start: talk, an objection, a late seat, a fixed cast, the start votes.
    await step(talk, 1, "よろしく")
    await step(play.object_, village_id=vid, user=game.user(2))
    await step(
        lifecycle.sit, village_id=vid, user=late, handle_name="遅刻", icon_id=await db(icon_id)()
    )
    game.users[8] = late
    await step(
        lifecycle.fix_cast,
        village_id=vid,
        user=game.staff,
        roles={str(k): v for k, v in CAST_8.items()},
        sub_roles={},
    )
    for seat in range(1, 9):
        await step(lifecycle.vote_start, village_id=vid, user=game.users[seat])
    # Night 1: wolves talk, a monologue, a will, the attack and the divination → dawn.
    await step(talk, 1, "4を噛もう")
    await step(talk, 4, "ひとりごと")
    await step(talk, 5, "私は村人です", "will")
    await step(act, 1, "attack", 4)
    await step(act, 3, "divine", 5)
    # Day 2: talk, heaven, a tie and its revote, then an execution.
    await step(talk, 6, "おはよう")
    await step(talk, 4, "霊界より", "heaven")
    for voter, target in ((1, 5), (2, 5), (3, 1), (5, 1), (6, 1), (7, 5), (8, 2)):
        await step(vote, voter, target)
    for voter in (2, 3, 5, 6, 7, 8):
        await step(vote, voter, 1)
    await step(vote, 1, 3)
    # Night 2: the server's silence penalty, then wolf 2 bites 5 and the seer divines 2.
    await step(clock.tick_village, vid, now=timezone.now() + timedelta(seconds=61))
    await step(talk, 2, "5を噛む")
    await step(talk, 1, "がんばれ", "heaven")
    await step(act, 2, "attack", 5)
    await step(act, 3, "divine", 2)
    # Day 3: wolf 2 is executed; the village wins; the talk goes on after the end.
    for voter in (3, 6, 7, 8):
        await step(vote, voter, 2)
    await step(vote, 2, 3)
    await step(talk, 3, "おつかれさまでした")

    assert steps == 44
    for view in views:
        assert view.state["winner"] == "village", view.name
        await view.socket.close()
