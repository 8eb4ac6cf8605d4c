"""The clock kept by real Celery beats and workers against Redis (SPEC §6, §7).

Two beats and two workers run at once (two beats are against the deployment rule, which
is exactly why the sweep must stand them); the clock is short (processes.SHORT_RULES): a
4-second real-time day, a 3-second grace, an outage after 4 seconds overdue.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from itertools import pairwise

import pytest
from channels.db import database_sync_to_async as db
from django.utils import timezone

from villages.models import Message, Seat, Village

from .game import Game, started_village, to_day_two
from .processes import SHORT_RULES, wait_for
from .sockets import open_socket

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]

REALTIME = {"time": {"mode": "realtime", "day_seconds": 4, "night_seconds": 60}}
NON_VOTER = 8
VOTERS = (1, 2, 3, 5, 6, 7)  # seat 4 was bitten on night 1


@pytest.fixture(autouse=True)
def nothing_left_to_sweep(transactional_db):
    """After each test, before its database is emptied: no village is due, and the sweeps
    in flight are given time to end (a sweep holding a village while the test's TRUNCATE
    locks every table deadlocks with it)."""
    yield
    Village.objects.update(deadline_at=None)
    time.sleep(1.0)


@pytest.fixture(autouse=True)
def short_rules(settings):
    """This process plays by the same short rules as the workers."""
    for name, value in SHORT_RULES.items():
        setattr(settings, name, value)


def lines(village_id: int, code: str) -> list[Message]:
    return list(Message.objects.filter(village_id=village_id, code=code).order_by("id"))


def sudden_deaths(village_id: int) -> list[int]:
    return list(
        Seat.objects.filter(village_id=village_id, death_cause="sudden").values_list(
            "seat_no", flat=True
        )
    )


def day_two_with_a_non_voter(game: Game) -> None:
    to_day_two(game, victim=4)
    for voter in VOTERS:
        game.vote(voter, 3 if voter != 3 else 1)


async def test_a_non_voter_dies_of_sudden_death_exactly_once_with_two_beats_and_two_workers(
    sweepers,
):
    game = await db(started_village)(options=REALTIME)
    spectator = await open_socket(game.village_id)  # hears the workers' pushes
    await db(day_two_with_a_non_voter)(game)
    vid = game.village_id

    deadline = time.monotonic() + 30
    while not await db(sudden_deaths)(vid):
        assert time.monotonic() < deadline, sweepers.logs()
        await asyncio.sleep(0.1)
    # Everyone left votes again at once, inside the new grace: the day ends by vote.
    for voter in VOTERS:
        await db(game.vote)(voter, 3 if voter != 3 else 1)
    await asyncio.sleep(3)  # six more sweeps from the two beats
    sweepers.check_alive()

    assert await db(sudden_deaths)(vid) == [NON_VOTER]
    assert len(await db(lines)(vid, "sudden_death")) == 1
    # Time up, then again with a fresh grace after the sudden death cleared the ballots.
    assert len(await db(lines)(vid, "time_up_day")) == 2
    assert len(await db(lines)(vid, "revote_after_sudden")) == 1
    village = await db(Village.objects.get)(pk=vid)
    assert (village.phase, village.day) == ("night", 2)  # the re-vote executed seat 3

    frames = await spectator.quiet(0.5)
    kinds = [f["type"] for f in spectator.frames]
    texts = [f["message"]["text"] for f in spectator.frames if f["type"] == "message"]
    # How many alerts fall in the last ALERT_FROM = 2 s depends on when the sweeps land;
    # at least one does, and each tells the seconds left in that window.
    alerts = [f["seconds_left"] for f in spectator.frames if f["type"] == "alert"]
    assert alerts, f"the workers' alert cues did not reach the socket: {kinds}"
    assert all(0 <= left <= SHORT_RULES["JINRO_ALERT_FROM"] for left in alerts), alerts
    assert any("突然死しました" in t for t in texts), frames
    assert spectator.last_state()["seats"][NON_VOTER - 1]["alive"] is False
    await spectator.close()


def test_the_silence_penalty_is_posted_once_per_silent_period(sweepers):
    game = started_village()  # virtual time
    to_day_two(game)
    period = SHORT_RULES["JINRO_SILENCE_REAL_SECONDS"]
    day_began = Village.objects.get(pk=game.village_id).game["clock"]["phase_started_at"]
    # Wait for the outcome (three silent periods), not for an assumed sweep lateness.
    wait_for(
        lambda: len(lines(game.village_id, "silence_day")) >= 3,
        timeout=30,
        what="three silence lines",
    )
    sweepers.check_alive()
    posted = lines(game.village_id, "silence_day")
    began = datetime.fromisoformat(day_began)
    elapsed = (timezone.now() - began).total_seconds()
    assert len(posted) <= elapsed // period, f"more lines than silent periods in {elapsed} s"
    first = (posted[0].created_at - began).total_seconds()
    assert first >= period - 0.05, f"the first silence line came {first} s into the day"
    gaps = [(b.created_at - a.created_at).total_seconds() for a, b in pairwise(posted)]
    assert all(gap >= period - 0.05 for gap in gaps), f"twice in one period: {gaps}"


def test_after_the_workers_were_down_longer_than_the_outage_limit_nobody_dies_for_it(
    sweepers,
):
    game = started_village(options=REALTIME)
    day_two_with_a_non_voter(game)
    vid = game.village_id
    wait_for(lambda: lines(vid, "time_up_day"), timeout=20, what="the time-up warning")
    sweepers.kill_workers()
    clock = Village.objects.get(pk=vid).game["clock"]
    sudden_at = datetime.fromisoformat(clock["sudden_death_at"])
    overdue = sudden_at + timedelta(seconds=SHORT_RULES["JINRO_OUTAGE_SECONDS"] + 1)
    time.sleep(max(0.0, (overdue - timezone.now()).total_seconds()))
    assert sudden_deaths(vid) == []  # nobody sweeps: nobody dies

    sweepers.start_workers(1)
    wait_for(lambda: lines(vid, "outage"), timeout=30, what="the outage line")
    (outage,) = lines(vid, "outage")
    assert sudden_deaths(vid) == [], "someone died for the server's outage"
    grace = SHORT_RULES["JINRO_SUDDEN_DEATH_GRACE"]
    restarted = datetime.fromisoformat(Village.objects.get(pk=vid).game["clock"]["sudden_death_at"])
    assert abs((restarted - outage.created_at).total_seconds() - grace) < 0.5

    # The grace starts again from the recovery: the non-voter dies after it, once.
    wait_for(lambda: sudden_deaths(vid), timeout=30, what="the sudden death after the new grace")
    (death,) = lines(vid, "sudden_death")
    assert (death.created_at - outage.created_at).total_seconds() >= grace - 0.05
    assert sudden_deaths(vid) == [NON_VOTER]
    assert len(lines(vid, "outage")) == 1
    sweepers.start_workers(1)  # two again for whatever runs next
