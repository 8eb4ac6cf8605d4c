"""The socket process's hub and the one publish path (issue 40): one small event per
commit, each viewer's frames worked out once per process, the layer's absence told the
documented way, and a health check that changes neither delivery nor memory."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os

import pytest
import redis
from channels.db import database_sync_to_async as db
from django.test import Client
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoPermissionError

from jinro_site import livebus
from villages import fanout
from villages.consumers import hub as hub_module
from villages.groups import VILLAGE_CHANGED, village_group

from .game import started_village, to_day_two
from .sockets import connect, open_screen, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


async def day_two():
    game = await db(started_village)()
    await db(to_day_two)(game, victim=4)
    return game


async def test_a_commit_publishes_one_small_event_and_no_rendering(monkeypatch):
    game = await day_two()
    published: list[tuple[str, dict]] = []
    monkeypatch.setattr(livebus, "publish", lambda *sent: published.append(sent))
    await db(game.talk)(5, "一行の発言" * 40)
    await db(game.vote)(5, 6)
    assert [group for group, _event in published] == [village_group(game.village_id)] * 2
    talk, vote = (event for _group, event in published)
    for event in (talk, vote):
        assert event["type"] == VILLAGE_CHANGED
        assert event["version"] == event["since"] + 1
        # No frame and no rendering for anybody: each process works those out for itself.
        assert not {"frames", "blob", "parts", "envelope"} & set(json.dumps(event))
    # A line by day moved only the clock: the event carries the line once (not a copy per
    # viewer) and the clock, for the processes to follow without reading the database.
    text = json.dumps(talk, ensure_ascii=False)
    assert text.count("一行の発言" * 40) == 1 and len(text) < 400 + 1200
    # A ballot changed more than the clock: its event names the version alone.
    assert "follow" not in vote and len(json.dumps(vote)) < 200, vote


async def test_each_distinct_view_is_worked_out_once_per_process(monkeypatch):
    """Five sockets of one viewer (and five spectators) cost one envelope each, not five:
    the hub works a change out per viewer, and hands the same envelope to each socket."""
    game = await day_two()
    built: list[int | None] = []
    real = fanout.Change.json_for

    def counting(self, viewer, user):
        if viewer not in self._json:
            built.append(viewer)
        return real(self, viewer, user)

    monkeypatch.setattr(fanout.Change, "json_for", counting)
    token = await db(game.token)(5)
    mine = [await open_socket(game.village_id, token=token) for _ in range(5)]
    spectators = [await open_socket(game.village_id) for _ in range(5)]
    await db(game.talk)(6, "みんなに届く")
    for socket in mine + spectators:
        (line,) = [f for f in await socket.until_state() if f["type"] == "message"]
        assert line["message"]["text"] == "みんなに届く"
    assert sorted(built, key=str) == sorted([5, None], key=str)


async def test_a_screen_delta_is_drawn_once_for_every_socket_that_shows_it_alike(monkeypatch):
    from villages.views import live

    game = await day_two()
    drawn: list[str] = []
    real = live._draw
    monkeypatch.setattr(live, "_draw", lambda delta, *a: drawn.append("x") or real(delta, *a))
    screens = [await open_screen(game.village_id) for _ in range(4)]
    drawn.clear()
    await db(game.talk)(6, "画面に一度だけ描く")
    for screen in screens:
        await screen.next()
        assert any("画面に一度だけ描く" in html for html in screen.lines.values())
    assert len(drawn) == 1


class AwayLayer:
    """A channel layer whose Redis cannot be reached."""

    async def new_channel(self, prefix: str = "specific.") -> str:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    async def group_add(self, group: str, channel: str) -> None:
        raise RedisConnectionError("Error 111")


async def test_a_socket_learns_the_layer_is_away_the_documented_way(monkeypatch, caplog):
    """Accepted, told why (an `error` frame), then closed 1013 (try again later): a socket
    closed before it is accepted reaches its client as HTTP 403, whatever the reason."""
    game = await day_two()
    monkeypatch.setattr(hub_module, "get_channel_layer", AwayLayer)
    with caplog.at_level(logging.WARNING, logger="villages.consumers.base"):
        socket = await connect(f"/ws/villages/{game.village_id}/", None)
        frame = await socket.receive()
        closed = await socket.communicator.receive_output(timeout=5)
    assert frame["type"] == "error" and frame["error"]["code"] == "unavailable"
    assert closed == {"type": "websocket.close", "code": 1013}
    assert "no connection to Redis" in caplog.text  # what is missing, in the log


def test_the_log_says_which_permission_the_redis_account_lacks():
    said = livebus.what_failed(NoPermissionError("this user has no permissions to run 'publish'"))
    assert "permission" in said and "PUBLISH, SUBSCRIBE" in said
    assert "no connection" in livebus.what_failed(RedisConnectionError("refused"))


def live_loops() -> int:
    return sum(isinstance(o, asyncio.AbstractEventLoop) for o in gc.get_objects())


async def test_health_checks_between_pushes_change_neither_delivery_nor_memory():
    game = await day_two()
    socket = await open_socket(game.village_id, token=await db(game.token)(5))
    loop = asyncio.get_running_loop()

    def health_checks(n: int) -> list[int]:
        client = Client()
        return [client.get("/healthz").status_code for _ in range(n)]

    assert set(await asyncio.to_thread(health_checks, 5)) == {200}
    gc.collect()
    loops, hubs = live_loops(), dict(hub_module.HUBS)
    for n in range(3):
        assert set(await asyncio.to_thread(health_checks, 50)) == {200}
        await db(game.talk)(6, f"検査の合間{n}")
        (line,) = [f for f in await socket.until_state() if f["type"] == "message"]
        assert line["message"]["text"] == f"検査の合間{n}"
    gc.collect()
    assert live_loops() == loops, "a health check left an event loop behind"
    assert hubs == hub_module.HUBS and livebus.hub_loop() is loop
    await socket.close()


async def test_the_hub_stops_with_its_last_socket_and_leaves_nothing_behind():
    game = await day_two()
    loop = asyncio.get_running_loop()
    sockets = [await open_socket(game.village_id) for _ in range(3)]
    assert hub_module.HUBS[loop].villages.keys() == {game.village_id}
    for socket in sockets:
        await socket.close()
    await asyncio.sleep(0.1)
    assert loop not in hub_module.HUBS and livebus.hub_loop() is None
    # the spectators' screens come back as before
    again = await open_socket(game.village_id)
    await db(game.talk)(7, "戻ってきた")
    (line,) = [f for f in await again.until_state() if f["type"] == "message"]
    assert line["message"]["text"] == "戻ってきた"


@pytest.mark.services
def test_ci_runs_the_realtime_tests_through_an_account_without_client_commands():
    """CI's services stage gives the site a Redis account that may only publish, subscribe
    and use its own keys (.ci/run): the site must need nothing more."""
    if os.environ.get("JINRO_CI_SERVICES") != "1":
        pytest.skip("only CI's services stage sets the account up")
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    with pytest.raises(NoPermissionError):
        client.client_list()
    with pytest.raises(NoPermissionError):
        client.set("not-the-sites-key", 1)


def test_the_heartbeat_reads_the_versions_again_only_after_a_commit_elsewhere():
    """A quiet SQLite site's heartbeat reads the data version, not the villages; on
    PostgreSQL it reads them each time. Either way it sees what another connection
    committed, and a village it has not read."""
    import threading

    from django.db import connection
    from django.db.models import F
    from django.test.utils import CaptureQueriesContext

    from villages.consumers.following import CommittedVersions
    from villages.models import Village

    game = started_village()
    other = started_village()
    versions = CommittedVersions()
    first = Village.objects.get(pk=game.village_id).version
    assert versions([game.village_id]) == {game.village_id: first}

    def villages_read(ids: list[int]) -> tuple[dict[int, int], bool]:
        with CaptureQueriesContext(connection) as queries:
            found = versions(ids)
        return found, any("villages_village" in q["sql"] for q in queries.captured_queries)

    assert villages_read([game.village_id]) == (
        {game.village_id: first},
        connection.vendor != "sqlite",
    )

    def bump() -> None:
        Village.objects.filter(pk=game.village_id).update(version=F("version") + 1)
        connection.close()

    thread = threading.Thread(target=bump)  # a request's commit, say, whose event was lost
    thread.start()
    thread.join()
    assert villages_read([game.village_id]) == ({game.village_id: first + 1}, True)
    both = versions([game.village_id, other.village_id])
    assert both[other.village_id] == Village.objects.get(pk=other.village_id).version
