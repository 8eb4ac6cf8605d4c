"""Embedded mode: the sweep ticker inside `manage.py runsite` keeps the clock, and what it
does reaches the sockets of that same process through the in-memory layer."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connections
from django.utils import timezone

from villages.models import Village

from ..conftest import serve_site
from .game import waiting_village

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.skipif(not settings.EMBEDDED, reason="embedded mode only: with Redis, beat sweeps")
def test_the_in_process_ticker_settles_a_due_village_and_its_sockets_hear_it(
    transactional_db, tmp_path
):
    game = waiting_village(3, capacity=8)
    # Idle for longer than JINRO_ABANDON_SECONDS: the next sweep abandons it (廃村).
    long_ago = timezone.now() - timedelta(seconds=settings.JINRO_ABANDON_SECONDS + 60)
    village = Village.objects.get(pk=game.village_id)
    village.game["clock"]["last_activity_at"] = long_ago.isoformat()
    village.save(update_fields=["game"])

    def make_due() -> None:
        try:
            Village.objects.filter(pk=game.village_id).update(deadline_at=long_ago)
        finally:
            connections.close_all()

    async def watch(site: str) -> list[dict]:
        import websockets

        url = site.replace("http", "ws") + f"/ws/villages/{game.village_id}/"
        frames = []
        async with websockets.connect(url, origin=site) as socket:
            frames.append(json.loads(await asyncio.wait_for(socket.recv(), 10)))
            await socket.send(json.dumps({"type": "ping"}))
            # Only now is the village due: the ticker must find it by its deadline_at.
            await asyncio.to_thread(make_due)
            while not any(f["type"] == "game_over" for f in frames):
                frames.append(json.loads(await asyncio.wait_for(socket.recv(), 15)))
        return frames

    # A site of its own: runsite on the embedded default, whose ticker is on (the suite's
    # shared site, `daphne_server`, runs none).
    with serve_site("ticking", tmp_path, {}) as process:
        frames = asyncio.run(watch(process.url))
    assert frames[-1] == {"type": "game_over", "winner": None}
    assert Village.objects.get(pk=game.village_id).abandoned
    log = next(f for f in frames if f["type"] == "log")
    assert "廃村" in log["messages"][-1]["text"]
