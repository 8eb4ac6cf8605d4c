"""The AIWolf agents' door, in process (`/ws/aiwolf/villages/<id>/`): who is refused and
why (never asked its name), seats taken, taken back and taken over, removed."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async as db
from channels.testing import WebsocketCommunicator

from villages.consumers import aiwolf as door
from villages.models import Seat, Village
from villages.services import agents, lifecycle

from ..conftest import restore_icons
from .game import icon_id, make_user, token_of
from .sockets import ORIGIN, TIMEOUT, tracked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


@pytest.fixture(autouse=True)
def icons():
    restore_icons()  # an earlier transactional test's flush took the migrations' icons


@pytest.fixture(autouse=True)
def no_refusal_pause(monkeypatch):
    monkeypatch.setattr(door, "REFUSAL_PAUSE", 0)


def agents_village(*, capacity: int = 8, open_: bool = True, **options: object) -> int:
    host = make_user()
    return lifecycle.create_village(
        user=host, name="人狼知能の村", capacity=capacity, options={"agents": open_, **options}
    ).pk


async def connect(
    village_id: int, token: str | None, *, header: bool = True
) -> WebsocketCommunicator:
    path = f"/ws/aiwolf/villages/{village_id}/"
    headers = [ORIGIN]
    if token is not None and header:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    elif token is not None:
        path += f"?token={token}"
    socket = tracked(path, headers)
    connected, _ = await socket.connect(timeout=TIMEOUT)
    assert connected
    return socket


async def refused(socket: WebsocketCommunicator) -> tuple[str, str, int]:
    """(error code, message, close code) of a refusal; fails on anything else first."""
    frame = json.loads(await socket.receive_from(timeout=TIMEOUT))
    assert frame.get("type") == "error", f"expected a refusal, got {frame}"
    # the contest's library logs the `request` it cannot read: the reason, in its log
    assert frame["request"] == f"{frame['error']['code']}: {frame['error']['message']}"
    closing = await socket.receive_output(timeout=TIMEOUT)
    assert closing["type"] == "websocket.close"
    return frame["error"]["code"], frame["error"]["message"], closing["code"]


async def sit_as(socket: WebsocketCommunicator, name: str) -> None:
    assert json.loads(await socket.receive_from(timeout=TIMEOUT)) == {"request": "NAME"}
    await socket.send_to(text_data=name + "\n")  # a line, as aiwolf-nlp-common sends it


def seats(village_id: int) -> list[tuple[int, str, str]]:
    return list(
        Seat.objects.filter(village_id=village_id, kicked=False)
        .order_by("seat_no")
        .values_list("seat_no", "handle_name", "agent")
    )


async def test_without_a_token_or_with_a_bad_one_the_agent_is_refused_unasked():
    village = await db(agents_village)()
    for token in (None, "not-a-token"):
        code, message, close = await refused(await connect(village, token))
        assert (code, close) == ("not_authenticated", 4401)
        assert "トークン" in message
    assert await db(seats)(village) == []


async def test_a_refusal_waits_a_moment_so_that_reconnecting_in_a_loop_is_slow(monkeypatch):
    monkeypatch.setattr(door, "REFUSAL_PAUSE", 1.0)
    socket = await connect(await db(agents_village)(open_=False), "not-a-token")
    assert await socket.receive_nothing(timeout=0.5)  # nothing yet: the pause
    code, _message, close = await refused(socket)
    assert (code, close) == ("not_authenticated", 4401)


@pytest.mark.parametrize(
    ("situation", "expected"),
    [
        ("closed", "agents_closed"),
        ("full", "village_full"),
        ("playing", "wrong_phase"),
        ("unknown", "not_found"),
    ],
)
async def test_a_village_that_cannot_take_an_agent_says_why_before_asking_its_name(
    situation, expected
):
    owner = await db(make_user)()
    village = await db(agents_village)(open_=situation != "closed")
    if situation in ("full", "playing"):
        await db(fill)(village, start=situation == "playing")
    if situation == "unknown":
        village += 1000
    code, message, _close = await refused(await connect(village, await db(token_of)(owner)))
    assert code == expected
    assert message  # a Japanese sentence, never empty


def fill(village_id: int, *, start: bool) -> None:
    village = Village.objects.get(pk=village_id)
    for n in range(village.capacity):
        user = make_user()
        lifecycle.sit(village_id=village_id, user=user, handle_name=f"村人{n}", icon_id=icon_id())
        if start:
            lifecycle.vote_start(village_id=village_id, user=user)


async def test_an_agent_sits_with_its_mark_counts_as_voted_and_one_owner_runs_several():
    owner = await db(make_user)()
    token = await db(token_of)(owner)
    village = await db(agents_village)()
    first = await connect(village, token)
    await sit_as(first, "kanolab1")
    second = await connect(village, token, header=False)  # ?token= works too
    await sit_as(second, "kanolab2")
    await first.receive_nothing(timeout=0.5)
    rows = await db(seats)(village)
    assert sorted((name, agent) for _no, name, agent in rows) == [
        ("kanolab1(AI)", "kanolab1"),
        ("kanolab2(AI)", "kanolab2"),
    ]
    voted = await db(
        lambda: list(Seat.objects.filter(village_id=village).values_list("start_voted", flat=True))
    )()
    assert voted == [True, True]


async def test_a_reconnecting_agent_gets_its_seat_back_and_the_old_socket_is_closed():
    owner = await db(make_user)()
    token = await db(token_of)(owner)
    village = await db(agents_village)()
    old = await connect(village, token)
    await sit_as(old, "kanolab1")
    await old.receive_nothing(timeout=0.5)
    new = await connect(village, token)
    await sit_as(new, "kanolab1")
    code, _message, close = await refused(old)
    assert (code, close) == ("replaced", 4409)
    assert [no for no, *_ in await db(seats)(village)] == [1]


async def test_a_name_held_by_another_accounts_agent_is_refused():
    village = await db(agents_village)()
    mine = await connect(village, await db(token_of)(await db(make_user)()))
    await sit_as(mine, "kanolab1")
    await mine.receive_nothing(timeout=0.5)  # seated
    theirs = await connect(village, await db(token_of)(await db(make_user)()))
    await sit_as(theirs, "kanolab1")
    code, message, _close = await refused(theirs)
    assert code == "name_taken"
    assert "別のアカウント" in message


async def test_when_the_cast_has_no_protocol_role_left_the_next_agent_is_refused():
    # 14 seats: 5 villagers, a seer, a medium, a guard, two wolves (10 protocol roles),
    # two commons, a fanatic and a fox.
    owner = await db(make_user)()
    village = await db(agents_village)(capacity=14)
    for n in range(10):
        await db(agents.take_seat)(village_id=village, owner=owner, name=f"kanolab{n}")
    newcomer = await db(make_user)()  # (the owner's own agents are asked: one may be back)
    code, message, _close = await refused(await connect(village, await db(token_of)(newcomer)))
    assert code == "cast_unfit"
    assert "人狼" in message


async def test_the_host_removes_an_agent_and_its_socket_is_told():
    owner = await db(make_user)()
    village = await db(agents_village)()
    socket = await connect(village, await db(token_of)(owner))
    await sit_as(socket, "kanolab1")
    for _ in range(200):  # until the agent holds its seat
        if await db(seats)(village):
            break
        await asyncio.sleep(0.05)
    host = await db(lambda: Village.objects.get(pk=village).created_by)()
    await db(agents.remove)(village_id=village, user=host, seat_no=1)
    code, _message, _close = await refused(socket)
    assert code == "not_seated"
    assert await db(seats)(village) == []


async def test_only_the_host_or_staff_open_or_close_the_village_to_agents():
    village = await db(agents_village)(open_=False)
    stranger = await db(make_user)()
    with pytest.raises(agents.Forbidden):
        await db(agents.set_open)(village_id=village, user=stranger, open_=True)
    host = await db(lambda: Village.objects.get(pk=village).created_by)()
    await db(agents.set_open)(village_id=village, user=host, open_=True)
    owner = await db(make_user)()
    socket = await connect(village, await db(token_of)(owner))
    await sit_as(socket, "kanolab1")
    await socket.receive_nothing(timeout=0.5)
    assert [agent for *_, agent in await db(seats)(village)] == ["kanolab1"]


async def test_a_kicked_agent_stays_out_and_its_account_is_not_given_to_the_next():
    owner = await db(make_user)()
    village = await db(agents_village)()
    await db(agents.take_seat)(village_id=village, owner=owner, name="kanolab1")
    staff = await db(make_user)(staff=True)
    await db(lifecycle.kick_vote)(village_id=village, user=staff, target=1)
    back = await connect(village, await db(token_of)(owner))
    await sit_as(back, "kanolab1")
    code, message, _close = await refused(back)
    assert code == "forbidden" and "キック" in message
    seat_no = await db(agents.take_seat)(village_id=village, owner=owner, name="kanolab2")
    assert [(no, agent) for no, _name, agent in await db(seats)(village)] == [(seat_no, "kanolab2")]
