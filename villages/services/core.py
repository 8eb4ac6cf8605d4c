"""The one path every write takes: lock the village → run the engine → save → push on commit.

Two requests at the same moment never both count: PostgreSQL holds the row with
`select_for_update`, and every save is a compare-and-set on `Village.version`
(which also holds on SQLite, where the lock is a no-op); a lost race is retried.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import TypeVar

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from villages.engine import GameState, Phase, Post, Step
from villages.engine import game as engine
from villages.engine.events import GameOver, Kicked, Started
from villages.models import Message, Village

from . import push
from .config import rules
from .errors import Busy, NotFound
from .persist import Loaded, game_json, load, save_records, save_seats

T = TypeVar("T")
Command = Callable[[Loaded, random.Random, datetime], tuple[Step, T]]

RETRIES = 8


class _VersionConflict(Exception):
    pass


def status_of(state: GameState) -> str:
    if state.phase is Phase.WAITING:
        return Village.Status.WAITING
    if state.phase is Phase.ENDED:
        return Village.Status.ENDED
    return Village.Status.PLAYING


def run(
    village_id: int,
    command: Command[T],
    *,
    now: datetime | None = None,
    skip_locked: bool = False,
) -> T:
    """Run `command` on the village under its lock and save what it did.

    With `skip_locked` (the sweep), a village another process holds is passed
    over: NotFound is raised and the caller moves on.
    """
    return run_posting(village_id, command, now=now, skip_locked=skip_locked)[0]


def run_posting(
    village_id: int,
    command: Command[T],
    *,
    now: datetime | None = None,
    skip_locked: bool = False,
) -> tuple[T, list[Message]]:
    """`run`, also returning the lines the command posted."""
    for _ in range(RETRIES):
        try:
            with transaction.atomic():
                village = (
                    Village.objects.select_for_update(skip_locked=skip_locked)
                    .filter(pk=village_id)
                    .first()
                )
                if village is None:
                    raise NotFound("村が見つかりません。")
                loaded = load(village)
                at = now or timezone.now()
                rng = random.Random(f"{village.seed}:{village.version}")
                step, value = command(loaded, rng, at)
                return value, _save(loaded, step, at)
        except (_VersionConflict, IntegrityError):
            continue
    raise Busy()


def _save(loaded: Loaded, step: Step, now: datetime) -> list[Message]:
    village, old, new = loaded.village, loaded.state, step.state
    if not step.events and new == old:
        return []
    fields = {
        "status": status_of(new),
        "phase": new.phase.value,
        "day": new.day,
        "winner": new.winner.value if new.winner else "",
        "abandoned": new.abandoned,
        "game": game_json(new),
        "deadline_at": engine.next_deadline(new, rules()),
    }
    if any(isinstance(e, Started) for e in step.events):
        fields["started_at"] = now
    if any(isinstance(e, GameOver) for e in step.events):
        fields["ended_at"] = now
    updated = Village.objects.filter(pk=village.pk, version=village.version).update(
        version=F("version") + 1, **fields
    )
    if updated != 1:
        raise _VersionConflict()
    for name, value in fields.items():
        setattr(village, name, value)
    village.version += 1
    kicked = {e.seat_no for e in step.events if isinstance(e, Kicked)}
    save_seats(loaded, new, kicked)
    save_records(village, old, new)
    posts = [e for e in step.events if isinstance(e, Post)]
    messages = Message.objects.bulk_create(
        Message(
            village=village,
            day=p.day,
            phase=p.phase.value,
            kind=p.kind.value,
            seat_no=p.seat_no,
            text=p.text,
            volume=p.volume.value,
            code=p.code,
            params=dict(p.params),
            cost=p.cost,
        )
        for p in posts
    )
    others = [e for e in step.events if not isinstance(e, Post)]
    # The push shows this commit's state (no second read) and skips the state frames
    # when only lines were added (a monologue, heaven talk, talk in real time).
    committed = Loaded(
        village, {s.no: loaded.rows.get(s.no) or loaded.new_rows[s.no] for s in new.seats}, new
    )
    transaction.on_commit(
        partial(
            push.publish,
            village.pk,
            [m.pk for m in messages],
            others,
            committed=committed,
            messages=messages,
            state_changed=new != old,
        )
    )
    return messages


def no_change(loaded: Loaded) -> Step:
    return Step(loaded.state, ())
