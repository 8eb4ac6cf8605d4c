"""All-bot villages played to the end by real Celery beats and workers against Redis.

The bots look on the same sweep as the deadlines (`clock.sweep_due_villages`); two beats
and two workers run at once, so a bot's look is claimed by one of them only. The rules
are short (processes.SHORT_RULES) but for the grace after the time is up: 20 s, not 3, as
CI runs this beside its other stages on two cores, where a worker's look may come seconds
late (the default grace is 180 s); bots look JINRO_BOT_DELAY = 2 s after each change.
"""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from villages.models import Message, Seat, Village
from villages.services import bots, lifecycle

from ..conftest import restore_icons
from .game import make_user
from .processes import SHORT_RULES

BOT_RULES = SHORT_RULES | {"JINRO_SUDDEN_DEATH_GRACE": 20, "JINRO_OUTAGE_SECONDS": 30}

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(400),
]


@pytest.fixture(scope="module")
def sweeper_rules():
    return BOT_RULES


@pytest.fixture(autouse=True)
def short_rules(settings):
    restore_icons()  # an earlier transactional test's flush took the migrations' icons
    for name, value in BOT_RULES.items():
        setattr(settings, name, value)
    yield
    # Nothing left for a sweep in flight to hold while the database is emptied.
    Village.objects.update(deadline_at=None)
    Seat.objects.update(bot_next_at=None)
    time.sleep(1.0)


FLAGS = ("cupid", "poison", "decider", "authority", "hide_roles_in_heaven", "dummy_boy")


# Six sizes of the cast table (the engine's tests and bench/bot_villages.py play every size
# without Celery): 8 and 20 in real time, 11 with five options, 20 with the poison active.
SIZES = (8, 11, 14, 16, 20, 22)


def villages() -> list[tuple[int, dict]]:
    """Villages of SIZES, each with a random set of options (seeded, drawn for every size
    from 8 to 22 in turn); some in real time with a 20-second day (bots vote at their
    first look there)."""
    rng = random.Random(11)
    found = []
    for players in range(8, 23):
        options: dict = {name: rng.random() < 0.4 for name in FLAGS}
        if rng.random() < 0.25:
            options["time"] = {"mode": "realtime", "day_seconds": 20, "night_seconds": 30}
        if players in SIZES:
            found.append((players, options))
    return found


def test_all_bot_villages_end_with_a_winner_and_no_sudden_death(sweepers):
    host = make_user(staff=True)
    ids = []
    for players, options in villages():
        village = lifecycle.create_village(
            user=host, name="ボットだけの村", capacity=players, options=options
        )
        bots.add_bots(village_id=village.pk, user=host)
        ids.append(village.pk)

    deadline = time.monotonic() + 360
    while Village.objects.filter(pk__in=ids).exclude(status=Village.Status.ENDED).exists():
        assert time.monotonic() < deadline, sweepers.logs()
        time.sleep(0.5)
    sweepers.check_alive()

    for village in Village.objects.filter(pk__in=ids):
        assert village.winner and not village.abandoned, (village.pk, village.winner)
        causes = Counter(Seat.objects.filter(village=village).values_list("death_cause", flat=True))
        assert causes["sudden"] == 0, (village.pk, causes)
        # One look per claim: no bot said the same line twice in a day.
        said = Counter(
            Message.objects.filter(village=village, kind="talk").values_list(
                "seat_no", "day", "text"
            )
        )
        assert max(said.values(), default=1) == 1, [k for k, n in said.items() if n > 1]
