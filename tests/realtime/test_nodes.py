"""Several nodes behave as one site: two daphne processes share PostgreSQL and Redis, and
a restart of Redis in the middle of a game loses no line for anyone."""

from __future__ import annotations

import asyncio
import time

import pytest
from django.db import connections

from villages import selectors
from villages.engine.texts import HOWL_TEXT

from .game import Game, started_village, to_day_two
from .live import LiveClient, post_line
from .processes import RedisServer, rules_env, start_site
from .sockets import TIMEOUT

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]

SITE_ENV = rules_env({"JINRO_RATE_LIMIT_ENABLED": False, "JINRO_ONE_SEAT_PER_IP": False}) | {
    "JINRO_MAX_ACTIVE_VILLAGES": "1000"
}


@pytest.fixture(scope="module")
def two_sites(django_db_setup, tmp_path_factory):
    from tests.conftest import stop_process

    log_dir = tmp_path_factory.mktemp("nodes")
    sites = []
    try:
        sites.append(start_site(log_dir, SITE_ENV, "node-a"))
        sites.append(start_site(log_dir, SITE_ENV, "node-b"))
        yield sites
    finally:
        for site in sites:
            stop_process(site)


async def until(condition, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        await asyncio.sleep(0.05)


def test_a_line_posted_through_one_node_reaches_sockets_on_the_other(two_sites):
    a, b = (site.url for site in two_sites)
    game = started_village()  # night 1: wolf talk is the wolves' alone
    tokens = {no: game.token(no) for no in (1, 2, 4, 5)}

    async def scenario() -> None:
        wolf_on_b = LiveClient(b, game.village_id, tokens[2])
        villager_on_b = LiveClient(b, game.village_id, tokens[4])
        spectator_on_a = LiveClient(a, game.village_id)
        clients = (wolf_on_b, villager_on_b, spectator_on_a)
        for client in clients:
            await client.start()

        assert (
            await asyncio.to_thread(post_line, a, game.village_id, tokens[1], "Aから遠吠え") == 201
        )
        await until(lambda: "Aから遠吠え" in wolf_on_b.texts(), "wolf talk on the other node")
        await until(lambda: HOWL_TEXT in villager_on_b.texts(), "the howl on the other node")
        await until(lambda: HOWL_TEXT in spectator_on_a.texts(), "the howl on the same node")
        assert wolf_on_b.messages[-1]["kind"] == "wolf"

        assert await asyncio.to_thread(post_line, b, game.village_id, tokens[5], "Bで独り言") == 201
        await asyncio.sleep(0.5)
        for client in clients:  # a villager's night talk is a monologue: nobody else's
            assert "Bで独り言" not in client.texts()
            assert not client.duplicates
        # Each audience's lines, whichever process holds its socket, are a fresh load's.
        for client, seat in ((wolf_on_b, 2), (villager_on_b, 4), (spectator_on_a, None)):
            fresh = await asyncio.to_thread(expected_lines, game, seat)
            assert client.messages == fresh, seat
            await client.stop()

    asyncio.run(scenario())
    for process in two_sites:
        process.check_alive()


def expected_lines(game: Game, seat: int | None) -> list[dict]:
    """What the viewer may see now, read in a helper thread (which then lets go of its
    database connection)."""
    user_id = game.user(seat).pk if seat is not None else None
    try:
        return selectors.messages_for(selectors.view_for(game.village_id, user_id))
    finally:
        connections.close_all()


def test_redis_restarted_mid_game_clients_reconnect_resume_and_lose_nothing(tmp_path):
    redis = RedisServer(tmp_path)
    redis.start()
    site = None
    try:
        site = start_site(tmp_path, SITE_ENV | {"REDIS_URL": redis.url}, "alone")
        game = started_village()
        to_day_two(game, victim=4)  # day 2; seat 4 talks in heaven
        speakers = {no: game.token(no) for no in (4, 5, 6, 7)}
        viewers = {"alive": 5, "dead": 4, "spectator": None}
        tokens = {name: game.token(seat) if seat else None for name, seat in viewers.items()}
        statuses: list[int] = []

        async def scenario() -> dict[str, LiveClient]:
            clients = {
                name: LiveClient(site.url, game.village_id, tokens[name]) for name in viewers
            }
            for client in clients.values():
                await client.start()
            stop_posting = asyncio.Event()

            async def poster() -> None:
                n = 0
                while not stop_posting.is_set():
                    seat = (4, 5, 6, 7)[n % 4]
                    channel = "heaven" if seat == 4 else "talk"
                    status = await asyncio.to_thread(
                        post_line, site.url, game.village_id, speakers[seat], f"発言{n}", channel
                    )
                    statuses.append(status)
                    n += 1
                    await asyncio.sleep(0.05)

            posting = asyncio.ensure_future(poster())
            await asyncio.sleep(1)
            await asyncio.to_thread(redis.stop)
            await asyncio.sleep(0.5)
            await clients["alive"].drop()  # its socket is lost while Redis is down
            await asyncio.sleep(1.5)
            await asyncio.to_thread(redis.start)
            await asyncio.sleep(1.5)
            stop_posting.set()
            await posting
            await asyncio.wait_for(clients["alive"].connected.wait(), 30)

            for name, client in clients.items():
                expected = await asyncio.to_thread(expected_lines, game, viewers[name])
                await until(
                    lambda c=client, e=expected: c.messages == e, f"{name}'s lines", timeout=15
                )
                assert not client.duplicates, f"{name} got lines twice: {client.duplicates}"
                await client.stop()
            return clients

        clients = asyncio.run(scenario())
        assert statuses and set(statuses) == {201}, "a post failed while Redis was down"
        assert clients["alive"].connections >= 2  # it did reconnect and resume
        assert len(statuses) > 40
        site.check_alive()
    finally:
        if site is not None:
            from tests.conftest import stop_process

            stop_process(site)
        redis.stop()
