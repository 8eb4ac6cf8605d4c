"""The sweep (villages.services.clock): due villages ticked exactly once, whoever sweeps.

These call the sweep with an explicit `now` to walk a village's clock; the processes
that call it for real (Celery beat + workers, the embedded ticker) are in
test_processes.py.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from channels.db import database_sync_to_async as db
from django.db import connections

from villages.models import Message, Seat, Village
from villages.services import clock

from .game import Game, started_village, to_day_two
from .sockets import open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

REALTIME = {"time": {"mode": "realtime", "day_seconds": 60, "night_seconds": 60}}
NON_VOTER = 8


def codes(village_id: int, code: str) -> int:
    return Message.objects.filter(village_id=village_id, code=code).count()


def deadline(village_id: int) -> datetime:
    value = Village.objects.get(pk=village_id).deadline_at
    assert value is not None
    return value


def day_two_with_a_non_voter() -> Game:
    """A real-time village on day 2 where everyone alive but seat 8 has voted."""
    game = started_village(options=REALTIME)
    to_day_two(game, victim=4)
    for voter in (1, 2, 3, 5, 6, 7):
        game.vote(voter, 3 if voter != 3 else 1)
    return game


def sweep_until(game: Game, done, *, steps: int = 100) -> None:
    """Sweep at each successive deadline, as a punctual beat would, until `done()`."""
    for _ in range(steps):
        if done():
            return
        clock.sweep_due_villages(now=deadline(game.village_id))
    raise AssertionError("the clock never got there")


def sudden_deaths(game: Game) -> list[int]:
    return list(
        Seat.objects.filter(village_id=game.village_id, death_cause="sudden").values_list(
            "seat_no", flat=True
        )
    )


def test_the_non_voter_dies_of_sudden_death_once_time_and_grace_are_up():
    game = day_two_with_a_non_voter()
    sweep_until(game, lambda: codes(game.village_id, "time_up_day") == 1)
    sweep_until(game, lambda: sudden_deaths(game))
    assert sudden_deaths(game) == [NON_VOTER]
    assert codes(game.village_id, "sudden_death") == 1
    assert codes(game.village_id, "revote_after_sudden") == 1


def test_a_second_sweep_at_the_same_moment_changes_nothing():
    game = day_two_with_a_non_voter()
    at = deadline(game.village_id)
    assert clock.sweep_due_villages(now=at) == 1
    version = Village.objects.get(pk=game.village_id).version
    clock.sweep_due_villages(now=at)
    clock.tick_village(game.village_id, now=at)
    assert Village.objects.get(pk=game.village_id).version == version


def test_a_village_is_not_ticked_before_its_deadline():
    game = day_two_with_a_non_voter()
    version = Village.objects.get(pk=game.village_id).version
    early = deadline(game.village_id) - timedelta(seconds=1)
    assert clock.sweep_due_villages(now=early) == 0
    clock.tick_village(game.village_id, now=early)  # a sweeper that read a stale list
    assert Village.objects.get(pk=game.village_id).version == version


def test_next_due_is_the_earliest_deadline_or_bot_time_of_a_village_in_play():
    """What the embedded ticker sleeps until (it sweeps then, or when a commit elsewhere
    may have set an earlier time)."""
    game = day_two_with_a_non_voter()
    at = deadline(game.village_id)
    assert clock.next_due() == at
    look = at - timedelta(seconds=30)
    Seat.objects.filter(village_id=game.village_id, seat_no=2).update(bot_next_at=look)
    assert clock.next_due() == look
    alarm = at - timedelta(seconds=40)
    Seat.objects.filter(village_id=game.village_id, seat_no=3).update(bot_alarm_at=alarm)
    assert clock.next_due() == alarm
    Seat.objects.filter(village_id=game.village_id).update(bot_next_at=None, bot_alarm_at=None)
    Village.objects.filter(pk=game.village_id).update(status=Village.Status.ENDED)
    assert clock.next_due() is None  # an ended village's deadline waits for nothing


def test_sweepers_racing_at_the_deadline_kill_once():
    game = day_two_with_a_non_voter()
    sweep_until(game, lambda: Village.objects.get(pk=game.village_id).game["clock"]["time_up_at"])
    sudden_at = datetime.fromisoformat(
        Village.objects.get(pk=game.village_id).game["clock"]["sudden_death_at"]
    )
    sweep_until(game, lambda: deadline(game.village_id) >= sudden_at)
    start = threading.Barrier(6)
    errors: list[BaseException] = []

    def sweeper(n: int) -> None:
        try:
            start.wait()
            clock.sweep_due_villages(now=sudden_at + timedelta(milliseconds=n))
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sweeper, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert sudden_deaths(game) == [NON_VOTER]
    assert codes(game.village_id, "sudden_death") == 1


def test_after_an_outage_nobody_dies_and_the_grace_starts_again(settings):
    game = day_two_with_a_non_voter()
    sweep_until(game, lambda: codes(game.village_id, "time_up_day") == 1)
    sudden_at = datetime.fromisoformat(
        Village.objects.get(pk=game.village_id).game["clock"]["sudden_death_at"]
    )
    back = sudden_at + timedelta(seconds=settings.JINRO_OUTAGE_SECONDS + 1)
    clock.sweep_due_villages(now=back)  # the first sweep after the server was down

    assert sudden_deaths(game) == []
    assert codes(game.village_id, "outage") == 1
    restarted = Village.objects.get(pk=game.village_id).game["clock"]["sudden_death_at"]
    assert datetime.fromisoformat(restarted) == back + timedelta(
        seconds=settings.JINRO_SUDDEN_DEATH_GRACE
    )
    sweep_until(game, lambda: sudden_deaths(game))
    assert sudden_deaths(game) == [NON_VOTER]
    assert codes(game.village_id, "outage") == 1


def test_a_deadline_overdue_by_less_than_the_outage_limit_is_kept(settings):
    game = day_two_with_a_non_voter()
    sweep_until(game, lambda: codes(game.village_id, "time_up_day") == 1)
    sudden_at = datetime.fromisoformat(
        Village.objects.get(pk=game.village_id).game["clock"]["sudden_death_at"]
    )
    clock.sweep_due_villages(now=sudden_at + timedelta(seconds=settings.JINRO_OUTAGE_SECONDS))
    assert sudden_deaths(game) == [NON_VOTER]
    assert codes(game.village_id, "outage") == 0


def test_the_silence_penalty_is_posted_once_per_silent_period(settings):
    game = started_village()  # virtual time: silence costs time
    to_day_two(game)
    first = deadline(game.village_id)
    for _ in range(3):
        clock.sweep_due_villages(now=first)  # one period: one line, however often swept
    assert codes(game.village_id, "silence_day") == 1
    second = deadline(game.village_id)
    assert second == first + timedelta(seconds=settings.JINRO_SILENCE_REAL_SECONDS)
    clock.sweep_due_villages(now=second - timedelta(seconds=1))
    assert codes(game.village_id, "silence_day") == 1
    clock.sweep_due_villages(now=second)
    assert codes(game.village_id, "silence_day") == 2


async def test_what_the_sweep_does_reaches_the_sockets():
    game = await db(day_two_with_a_non_voter)()
    non_voter = await open_socket(game.village_id, token=await db(game.token)(NON_VOTER))
    spectator = await open_socket(game.village_id)
    await db(sweep_until)(game, lambda: sudden_deaths(game))
    frames = await non_voter.quiet(0.5)
    assert "alert" in [f["type"] for f in frames]
    assert any(f["type"] == "log" for f in frames)  # it died: its view widened
    assert non_voter.last_state()["me"]["alive"] is False
    await spectator.quiet(0.5)
    lines = [m["text"] for m in spectator.messages()]
    assert any("突然死" in text for text in lines)
    # The ballots were cleared: said as loudly as a tie's revote (issue 32, item 1).
    revotes = [f for f in spectator.frames if f["type"] == "revote"]
    assert revotes == [{"type": "revote", "day": 2, "round": 2, "reason": "sudden_death"}]
    assert spectator.last_state()["seats"][NON_VOTER - 1]["alive"] is False
    await non_voter.close()
    await spectator.close()
