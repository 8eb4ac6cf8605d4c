"""The one path every write takes: lock the village → run the engine → save → push on commit.

In one process, a village's writes take turns (`gate`): its pushes leave in the order of
its commits, and a write that cannot have its turn soon is refused, not queued for long.

Two requests at the same moment never both count: PostgreSQL holds the row with
`select_for_update`, and every save is a compare-and-set on `Village.version`
(which also holds on SQLite, where the lock is a no-op); a lost race is retried.
"""

from __future__ import annotations

import copy
import logging
import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.db import IntegrityError, OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from villages import line_numbers, listing, snapshots, wording
from villages.engine import GameState, Phase, Post, Step
from villages.engine import game as engine
from villages.engine import visibility as vis
from villages.engine.errors import NotSeated
from villages.engine.events import Event, GameOver, Kicked, Started
from villages.models import Message, Seat, Village
from villages.models import Seat as SeatRow
from villages.snapshots import Loaded, options_to_api, snapshot

from . import gate, push
from .config import bot_delay, rules
from .errors import Busy, NotFound, Overloaded, StorageConflict
from .persist import game_json, save_records, save_seats

logger = logging.getLogger(__name__)

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
            with gate.write_turn(village_id), transaction.atomic():
                loaded = _locked(village_id, skip_locked=skip_locked)
                if loaded is None:
                    raise NotFound(gettext_noop("村が見つかりません。"))
                village = loaded.village
                at = now or timezone.now()
                rng = random.Random(f"{village.seed}:{village.version}")
                step, value = command(loaded, rng, at)
                return value, _save(loaded, step, at)
        except _VersionConflict:
            continue  # another process saved first: run the command again on its version
        except IntegrityError as error:
            # Not a race (those are version conflicts): a constraint the command broke is
            # a bug. Say what it was, and refuse, with nothing saved.
            logger.error(
                "village %s: %s broke a database constraint: %s",
                village_id,
                getattr(command, "__qualname__", command),
                error,
            )
            raise StorageConflict() from error
        except OperationalError as error:
            if "locked" not in str(error):  # SQLite: another process wrote for too long
                raise
            raise Overloaded() from error
    raise Busy()


def _locked(village_id: int, *, skip_locked: bool) -> Loaded | None:
    """The village as committed, its row locked until the transaction ends (PostgreSQL's
    FOR UPDATE; on SQLite the gate is the lock, and the version's compare-and-set holds on
    both). Under the lock only the row's version is read, with its seed and creation (which
    tell a village from one that took its id after it): when this process holds that
    version's snapshot, as it does of a village it wrote or follows, that is the village,
    as readers take it (`snapshots.known`); otherwise, and for the sweep (`skip_locked`:
    what it settles was due by the row's deadline and clock, as the database has them),
    the whole row is read. Every command comes here, so both reads are SQL (a cursor,
    Manager.raw): a third of what the ORM's `select_for_update().filter().first()` costs
    to build."""
    lock = ""
    if connection.vendor == "postgresql":
        lock = " FOR UPDATE SKIP LOCKED" if skip_locked else " FOR UPDATE"
    row = snapshots.head(village_id, lock=lock)
    if row is None:
        return None
    found = None if skip_locked else snapshots.known(village_id, *row)
    if found is not None:
        return Loaded(
            copy.copy(found.village),
            found.rows,
            found.state,
            kicked_users=found.kicked_users,
            memo=found.memo,
        )
    whole = f'SELECT * FROM "{Village._meta.db_table}" WHERE id = %s'
    village = next(iter(Village.objects.raw(whole, [village_id])), None)
    return None if village is None else snapshot(village)


def _save(loaded: Loaded, step: Step, now: datetime) -> list[Message]:
    old, new = loaded.state, step.state
    if not step.events and new == old:
        return []
    village = copy.copy(loaded.village)  # the loaded version stays as it was
    fields = {
        "status": status_of(new),
        "phase": new.phase.value,
        "day": new.day,
        "winner": new.winner.value if new.winner else "",
        "abandoned": new.abandoned,
        # Bots or AIWolf agents make a practice village (kept out of statistics).
        "practice": new.options.agents or any(seat.bot or seat.agent for seat in new.seats),
        "seated": len(new.seats),
        "game": game_json(new),
        "deadline_at": engine.next_deadline(new, rules()),
    }
    if new.options != old.options:  # the host opened or closed the village to AIWolf agents
        fields["options"] = options_to_api(new.options)
    started = any(isinstance(e, Started) for e in step.events)
    fields["started_at"] = now if started else village.started_at
    ended = any(isinstance(e, GameOver) for e in step.events)
    fields["ended_at"] = now if ended else village.ended_at
    # The lines first: their ids go into the village row's compare-and-set below (a lost
    # race rolls them back with the rest).
    posts = [e for e in step.events if isinstance(e, Post)]
    counted = village.public_lines
    rows = []
    for p in posts:
        public = vis.public_line(p.kind.value)
        counted += public
        rows.append(
            Message(
                village_id=village.pk,
                day=p.day,
                phase=p.phase.value,
                kind=p.kind.value,
                seat_no=p.seat_no,
                text=p.text or wording.japanese(p.code, dict(p.params)),
                volume=p.volume.value,
                code=p.code,
                params=dict(p.params),
                cost=p.cost,
                public_no=counted,
            )
        )
    messages = Message.objects.bulk_create(rows) if rows else []
    fields["last_line"] = max((m.pk for m in messages), default=village.last_line)
    fields["public_lines"] = counted
    # A compare-and-set on the version it read: a lost race saves nothing. Only what
    # differs from that version is written (a line by day moves the clock and the counts).
    changed = {name: value for name, value in fields.items() if getattr(village, name) != value}
    saved = Village.objects.filter(pk=village.pk, version=village.version).update(
        version=F("version") + 1, **changed
    )
    if saved != 1:
        raise _VersionConflict()
    if listing.listed_fields_changed(village, fields):
        listing.changed()  # the top page's list shows it
    for name, value in fields.items():
        setattr(village, name, value)
    village.version += 1
    kicked = {e.seat_no: e.by_staff for e in step.events if isinstance(e, Kicked)}
    rows = save_seats(loaded, new, kicked)
    save_records(village, old, new)
    if fields["practice"] and new.phase is not Phase.ENDED:
        _wake_bots(village.pk, now)
    kicked_users = {**loaded.kicked_users} | {
        user: staff for no, staff in kicked.items() if (user := loaded.rows[no].user_id)
    }
    committed = Loaded(village, rows, new, kicked_users=kicked_users)
    push.after_commit(_committed, loaded, committed, step.events, messages)
    return messages


def _wake_bots(village_id: int, now: datetime) -> None:
    """After a change of a practice village each living bot looks again after a pause
    (services/bots.py; one already due keeps its earlier time, and one in the middle of
    a look holds its lease and looks again when it ends)."""
    Seat.objects.filter(
        village_id=village_id, kicked=False, alive=True, bot_next_at__isnull=True
    ).exclude(bot="").update(bot_next_at=now + timedelta(seconds=bot_delay()))


def _committed(
    before: Loaded,
    after: Loaded,
    events: tuple[Event, ...],
    messages: list[Message],
    moderated: Sequence[Message] = (),
    hidden: bool = False,
) -> None:
    """The commit is durable: keep its snapshot for the next reader, and publish it (a
    push that fails is logged; see push.after_commit)."""
    snapshots.keep(after)
    line_numbers.HIDDEN.advance(before.village, after.village, messages)
    push.publish(before, after, events, messages, moderated, hidden)


def edit_village(
    village_id: int,
    change: Callable[[Village], dict[str, Any]],
    *,
    moderated: Sequence[Message] = (),
    hidden: bool = False,
) -> None:
    """Change what the staff may change of a village (its name, its comment, `hidden_mark`)
    under its lock, as a new version, so that every snapshot and every open screen
    follows. `change` gives the new values from the village as it is; `moderated` are
    lines the staff just hid (`hidden`) or showed, which the push names."""
    for _ in range(RETRIES):
        with gate.write_turn(village_id), transaction.atomic():
            village = Village.objects.select_for_update().filter(pk=village_id).first()
            if village is None:
                raise NotFound(gettext_noop("村が見つかりません。"))
            before = snapshot(village)
            fields = change(village)
            updated = copy.copy(village)
            for name, value in fields.items():
                setattr(updated, name, value)
            updated.version += 1
            if not Village.objects.filter(pk=village_id, version=village.version).update(
                version=F("version") + 1, **fields
            ):
                continue  # a command saved first (SQLite takes no row lock): on its version
            after = Loaded(updated, before.rows, before.state, kicked_users=before.kicked_users)
            if listing.listed_fields_changed(village, fields):
                listing.changed()
            push.after_commit(_committed, before, after, (), [], moderated, hidden)
            return
    raise Busy()


def user_seat(loaded: Loaded, user: Any) -> SeatRow:
    """The user's seat in the village, or NotSeated."""
    row = loaded.seat_of_user(user.pk)
    if row is None:
        raise NotSeated()
    return row


def no_change(loaded: Loaded) -> Step:
    return Step(loaded.state, ())
