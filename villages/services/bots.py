"""Bot seats: filled by the host, played on the clock through the players' services.

A bot's seat belongs to one of the site's bot accounts (`bot:01` … `bot:22`: a name the
sign-up form refuses, no password), so that a bot sits, votes, acts and talks through
exactly the services, rules and visibility of a person. Its pacing is data: every
change of a practice village gives each living bot a time to look again
(`Seat.bot_next_at`, `config.bot_delay()` seconds on; `core._wake_bots`); the sweep
(`run_due_bots`, beside the deadlines) claims each due bot with one compare-and-set,
so that several workers never make a bot act twice, builds the seat's view, asks its
strategy and sends the commands. A bot that keeps its vote for later says so (a `Wait`):
it looks again at the next change, or at its alarm (`Seat.bot_alarm_at`: the later part
of a real-time day comes with no change), which the sweep turns into a look when due.
The claim is a lease (LOOK_LEASE): while a bot looks,
no change wakes it, so that a second sweeper never looks at it from a view without the
line the first look is about to say; when the look ends, the bot looks again if the
village changed meanwhile (its own lines included), as a change would have woken it.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from villages import bots, wording
from villages.bots import ACCOUNT_PREFIX, Act, Say, Vote, Wait
from villages.bots.lines import NAMES as BOT_NAMES
from villages.bots.lines import code_of
from villages.engine import GameState
from villages.engine.errors import BadRequest, Forbidden, RuleError, VillageFull, WrongPhase
from villages.engine.game import BOT_MARK
from villages.models import Icon, Message, Seat, Village
from villages.snapshots import snapshot_of

from . import lifecycle, play
from .config import bot_delay, rules
from .errors import NotFound

logger = logging.getLogger(__name__)

POOL = 22  # the most seats a village has
NAMES = [ja for ja, _en in BOT_NAMES]
BATCH = 200
LOOK_LEASE = timedelta(seconds=60)  # a look that takes longer is taken as lost (a worker died)


def _pool() -> list[AbstractBaseUser]:
    User = get_user_model()
    names = [f"{ACCOUNT_PREFIX}{n:02d}" for n in range(1, POOL + 1)]
    have = {u.get_username(): u for u in User.objects.filter(username__in=names)}
    for name in names:
        if name not in have:
            user = User(username=name)
            user.set_unusable_password()
            user.save()
            have[name] = user
    return [have[n] for n in names]


def add_bots(
    *,
    village_id: int,
    user: AbstractBaseUser,
    count: int | None = None,
    strategy: str = bots.DEFAULT,
) -> list[int]:
    """ボットで空席を埋める (count None) or add `count` bots; returns their seat numbers.

    The village's host or staff, before the start. Each bot sits and votes to start at
    once; the last of them may start the game.
    """
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    if not (getattr(user, "is_staff", False) or village.created_by_id == user.pk):
        raise Forbidden(gettext_noop("ボットを入れられるのは村を作った人とスタッフだけです。"))
    if strategy not in bots.STRATEGIES:
        raise BadRequest(
            gettext_noop("ボットの戦略は {strategies} のいずれかです。"),
            strategies=" / ".join(sorted(bots.STRATEGIES)),
        )
    loaded = snapshot_of(village_id)
    assert loaded is not None
    if village.status != Village.Status.WAITING:
        raise WrongPhase(gettext_noop("ボットを入れられるのはゲームの開始前だけです。"))
    free = loaded.state.capacity - len(loaded.state.seats)
    if free <= 0:
        raise VillageFull()  # この村は満員です: however many were asked for
    wanted = free if count is None else count
    if wanted < 1:
        raise BadRequest(gettext_noop("ボットは1人以上です。"))
    if wanted > free:
        raise VillageFull(gettext_noop("空席は{free}席です。"), free=free)
    seated_users = {row.user_id for row in loaded.rows.values()}
    taken = {seat.name for seat in loaded.state.seats}
    pool = [u for u in _pool() if u.pk not in seated_users]
    names = [n for n in NAMES if f"{n}{BOT_MARK}" not in taken]
    icons = list(Icon.objects.choosable().values_list("pk", flat=True))
    if not icons:
        raise BadRequest(gettext_noop("ボットに使えるアイコンがありません。"))
    seats = [
        lifecycle.sit(
            village_id=village_id,
            user=bot_user,
            handle_name=names[n % len(names)],
            icon_id=icons[(len(taken) + n) % len(icons)],
            bot=strategy,
        )
        for n, bot_user in enumerate(pool[:wanted])
    ]
    # All sit before any votes: a full table of votes starts the game.
    for bot_user in pool[:wanted]:
        lifecycle.vote_start(village_id=village_id, user=bot_user)
    return seats


def run_due_bots(*, now: datetime | None = None) -> int:
    """Let every due bot look at its view and act; returns how many looked."""
    at = now or timezone.now()
    # An alarm that has come is a look due now, for a bot not already due or looking.
    Seat.objects.filter(bot_alarm_at__lte=at, bot_next_at__isnull=True).update(
        bot_next_at=F("bot_alarm_at"), bot_alarm_at=None
    )
    due = list(
        Seat.objects.filter(
            bot_next_at__lte=at,
            kicked=False,
            village__status__in=[Village.Status.WAITING, Village.Status.PLAYING],
        )
        .exclude(bot="")
        .order_by("bot_next_at")
        .values_list("pk", "bot_next_at")[:BATCH]
    )
    done = 0
    for pk, when in due:
        # The claim: only the sweeper whose update finds the time unchanged goes on.
        lease = timezone.now() + LOOK_LEASE
        if not Seat.objects.filter(pk=pk, bot_next_at=when).update(bot_next_at=lease):
            continue
        claimed = Seat.objects.filter(pk=pk).values_list("village_id", "village__version").first()
        if claimed is None:  # its village was deleted meanwhile
            continue
        village_id, version = claimed
        next_look = None
        try:
            next_look = act(pk, now=max(at, timezone.now()))
            done += 1
        except Exception:
            logger.exception("bot seat %s failed", pk)
            next_look = _later(at_least=1)
        finally:
            _release(pk, lease, next_look, village_id, version)
    # Seats of villages that ended or were deleted meanwhile keep no time.
    Seat.objects.filter(~Q(bot=""), bot_next_at__isnull=False).exclude(
        village__status__in=[Village.Status.WAITING, Village.Status.PLAYING]
    ).update(bot_next_at=None, bot_alarm_at=None)
    return done


def act(seat_pk: int, *, now: datetime | None = None) -> datetime | None:
    """One look of one bot at `now` (the sweep's time): its view, its strategy's commands,
    each through the services. Returns when it looks next: None for at the next change of
    its village (and at its alarm, which a `Wait` sets)."""
    now = now or timezone.now()
    row = Seat.objects.select_related("user").filter(pk=seat_pk).first()
    if row is None or row.user is None or not row.bot or row.kicked:
        return None
    loaded = snapshot_of(row.village_id)
    if loaded is None or loaded.seat_of_user(row.user_id) is None:
        return None
    lines = Message.objects.filter(
        village_id=row.village_id, hidden=False, id__lte=loaded.village.last_line
    ).order_by("id")
    view = bots.bot_view(loaded.state, row.seat_no, lines, rules(), now)
    if view is None:
        return None
    strategy = bots.STRATEGIES.get(row.bot, bots.STRATEGIES[bots.DEFAULT])
    rng = random.Random(f"{loaded.village.seed}:{row.seat_no}:{loaded.village.version}")
    sent, waits = 0, []
    for command in strategy(view, rng):
        if isinstance(command, Wait):
            waits.append(command)
            continue
        try:
            _send(row.village_id, row.user, command, loaded.state)
            sent += 1
        except RuleError as error:  # the village moved on since the look: next time
            logger.info("bot seat %s: %r refused: %s", seat_pk, command, error)
    alarms = [now + timedelta(seconds=w.seconds) for w in waits if w.seconds is not None]
    Seat.objects.filter(pk=seat_pk).update(bot_alarm_at=min(alarms, default=None))
    if view.duties and not sent and not waits:
        # It still owes something and changed nothing, so no change may come to wake it.
        logger.info("bot seat %s owes %s and did nothing: it looks again", seat_pk, view.duties)
        return _later(at_least=1)
    return None


def _release(
    seat_pk: int, lease: datetime, next_look: datetime | None, village_id: int, version: int
) -> None:
    """End a look: the bot looks next at `next_look`, or soon if its village changed since
    the claim (a change that found it looking could not wake it). Under the village's
    row lock, so that no commit falls between the question and the answer."""
    with transaction.atomic():
        current = (
            Village.objects.select_for_update()
            .filter(pk=village_id)
            .values_list("version", flat=True)
            .first()
        )
        if next_look is None and current is not None and current != version:
            next_look = _later()
        Seat.objects.filter(pk=seat_pk, bot_next_at=lease).update(bot_next_at=next_look)


def _later(*, at_least: float = 0) -> datetime:
    """When a bot looks next: `bot_delay()` from now, as `core._wake_bots` gives."""
    return timezone.now() + timedelta(seconds=max(at_least, bot_delay()))


def _send(village_id: int, user: AbstractBaseUser, command: bots.Command, seen: GameState) -> None:
    """Send one command of a look at `seen`, naming the scene it was made in: a wolf's
    night line, or a ballot, whose village moved on meanwhile is refused, as a person's."""
    at = {"day": seen.day, "phase": seen.phase.value}
    if isinstance(command, Say):
        text = wording.bot_line(command.key, command.params)
        play.post_message(
            village_id=village_id,
            user=user,
            text=text,
            code=code_of(command.key),
            params=command.params,
            **at,
        )
    elif isinstance(command, Vote):
        play.vote(
            village_id=village_id, user=user, target=command.target, round=seen.vote_round, **at
        )
    elif isinstance(command, Act):
        play.night_action(
            village_id=village_id,
            user=user,
            action=command.ability,
            targets=list(command.targets),
            **at,
        )
