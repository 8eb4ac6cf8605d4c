"""The sweep: every due village's clock advanced by the engine, exactly once.

Celery beat (production) and the embedded ticker both call
`sweep_due_villages`; it is idempotent and safe beside other sweepers: a
village another process holds is skipped (`skip_locked` on PostgreSQL), and
the version compare-and-set in `core.run` settles any other race.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime

from django.db.models import Min
from django.utils import timezone

from villages.engine import Step
from villages.engine import game as engine
from villages.models import Seat, Village
from villages.snapshots import Loaded

from . import core
from .bots import run_due_bots
from .config import rules
from .errors import NotFound, Overloaded

logger = logging.getLogger(__name__)

BATCH = 500


def tick_village(village_id: int, *, now: datetime | None = None) -> None:
    """Advance one village's clock to now (silence, time-up, alerts, sudden death, abandon)."""

    def command(loaded: Loaded, rng: random.Random, at: datetime) -> tuple[Step, None]:
        due = loaded.village.deadline_at
        if due is None or due > at:  # another sweeper already did it
            return core.no_change(loaded), None
        return engine.tick(loaded.state, rules=rules(), rng=rng, now=at), None

    core.run(village_id, command, now=now, skip_locked=True)


def sweep_due_villages(*, now: datetime | None = None) -> int:
    """Tick every village whose `deadline_at` has come, then let every bot that is due
    look at its seat (`bots.run_due_bots`); returns how many villages were ticked."""
    at = now or timezone.now()
    due = list(
        Village.objects.filter(
            deadline_at__lte=at,
            status__in=[Village.Status.WAITING, Village.Status.PLAYING],
        )
        .order_by("deadline_at")
        .values_list("pk", flat=True)[:BATCH]
    )
    done = 0
    for village_id in due:
        try:
            tick_village(village_id, now=now)
            done += 1
        except (NotFound, Overloaded):  # held by another sweeper, deleted, or too busy now
            continue  # the next sweep comes back to it
        except Exception:
            logger.exception("sweep of village %s failed", village_id)
    run_due_bots(now=now)
    return done


def next_due() -> datetime | None:
    """When the sweep next has something to do, as committed now: the earliest deadline of
    a village waiting or in play, look or alarm of a bot (None: nothing waits for time). A
    time already past is due at the next sweep (a village another sweeper held)."""
    deadline = Village.objects.filter(
        status__in=[Village.Status.WAITING, Village.Status.PLAYING]
    ).aggregate(at=Min("deadline_at"))["at"]
    bots = Seat.objects.aggregate(look=Min("bot_next_at"), alarm=Min("bot_alarm_at"))
    return min((t for t in (deadline, bots["look"], bots["alarm"]) if t is not None), default=None)
