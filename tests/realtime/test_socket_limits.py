"""What one socket may make the server do is bounded (issue 14): frames beyond a burst and
a rate are refused, a client that floods regardless is closed with 4429, and a resume reads
the log a page at a time."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db

from villages.consumers import api as api_socket
from villages.consumers.base import CLOSE_FLOODING

from .game import number, started_village, to_day_two
from .sockets import open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


@pytest.fixture
def limits(settings):
    settings.JINRO_RATE_LIMIT_ENABLED = True
    settings.JINRO_WS_BURST = 5
    settings.JINRO_WS_PER_MINUTE = 60


async def test_frames_beyond_the_burst_are_refused_and_a_flooding_socket_is_closed(limits):
    game = await db(started_village)()
    socket = await open_socket(game.village_id, release=False)
    for _ in range(5):  # the burst: each resume is answered with the state
        await socket.send({"type": "resume", "after": 0})
        await socket.until_state()
    await socket.send({"type": "resume", "after": 0})
    refused = await socket.receive()
    assert refused["type"] == "error" and refused["error"]["code"] == "rate_limited"
    assert refused["error"]["message"]
    for _ in range(3):
        await socket.send({"type": "resume", "after": 0})
    frames = await socket.quiet(0.5)
    assert [f["error"]["code"] for f in frames] == ["rate_limited"] * 3
    await socket.send({"type": "resume", "after": 0})  # the fifth refusal in a row
    assert (await socket.receive())["error"]["code"] == "rate_limited"
    closed = await socket.communicator.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": CLOSE_FLOODING}


async def test_the_rate_refills_and_a_calm_client_is_never_refused(limits, settings):
    settings.JINRO_WS_PER_MINUTE = 6000  # a hundred a second
    game = await db(started_village)()
    socket = await open_socket(game.village_id, release=False)
    for _ in range(30):
        await socket.send({"type": "ping"})
        await socket.quiet(0.02)
    assert not [f for f in socket.frames if f["type"] == "error"]
    await socket.close()


async def test_a_resume_over_a_long_log_is_read_page_by_page_and_misses_nothing(monkeypatch):
    monkeypatch.setattr(api_socket, "RESUME_PAGE", 7)
    reads: list[int | None] = []
    original = api_socket.read_snapshot

    def counted(*args, **kwargs):
        reads.append(kwargs.get("page"))
        return original(*args, **kwargs)

    monkeypatch.setattr(api_socket, "read_snapshot", counted)
    game = await db(started_village)()
    await db(to_day_two)(game, victim=4)
    said = []
    for n in range(30):
        message = await db(game.talk)(5 + n % 3, f"行{n}")
        said.append(number(message))
    await db(game.talk)(4, "霊界の話", "heaven")  # never for a spectator
    socket = await open_socket(game.village_id, release=False)
    reads.clear()
    await socket.send({"type": "resume", "after": 0})
    await socket.until_state()
    ids = [m["id"] for m in socket.messages()]
    texts = [m["text"] for m in socket.messages()]
    assert set(said) <= set(ids) and ids == sorted(set(ids))
    assert "霊界の話" not in texts
    assert len(reads) >= 5 and set(reads) == {7}  # pages of seven lines, never all at once
    await socket.close()
