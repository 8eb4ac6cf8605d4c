"""A village's life before and around the game: create, sit, leave, start, kick, cast, abandon."""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts import bans
from villages.engine import Step
from villages.engine import game as engine
from villages.engine.errors import BadRequest, Forbidden, NotSeated
from villages.engine.speech import has_controls
from villages.models import Icon, Seat, Village
from villages.snapshots import Loaded, options_from_api, options_to_api

from . import core
from .config import flag, number, rules
from .errors import AlreadySeated, NotFound, TooManyVillages
from .persist import game_json


def trip_of(secret: str) -> str:
    """◆ + a keyed hash of the secret; the secret itself is never stored."""
    if not secret:
        return ""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"trip:{secret}".encode(), hashlib.sha256
    ).digest()
    return "◆" + base64.b64encode(digest).decode()[:10]


# Any fixed number: the key of the PostgreSQL advisory lock that serializes creations.
_CREATE_LOCK = 0x6A696E726F


def _serialize_creations() -> None:
    """Two creations at once must not both pass the active-village cap. SQLite's
    IMMEDIATE transactions already serialize writers; PostgreSQL needs a lock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CREATE_LOCK])


def create_village(
    *,
    user: AbstractBaseUser,
    name: str,
    comment: str = "",
    capacity: int,
    options: dict[str, Any] | None = None,
) -> Village:
    """村を作成: validated by the engine; the creator is not seated."""
    bans.check(user, "create")
    name = name.strip()
    if not name:
        raise BadRequest(gettext_noop("村の名前を入力してください。"))
    if len(name) > 60 or len(comment) > 200:
        raise BadRequest(gettext_noop("村の名前は60文字、説明は200文字までです。"))
    if has_controls(name, name=True) or has_controls(comment):
        raise BadRequest(gettext_noop("村の名前か説明に使えない文字（制御文字）が含まれています。"))
    opts = options_from_api(options)
    now = timezone.now()
    state = engine.new_village(capacity=capacity, options=opts, rules=rules(), now=now)
    with transaction.atomic():
        _serialize_creations()
        active = Village.objects.filter(
            status__in=[Village.Status.WAITING, Village.Status.PLAYING]
        ).count()
        if active >= number("MAX_ACTIVE_VILLAGES"):
            raise TooManyVillages()
        village = Village.objects.create(
            name=name,
            comment=comment.strip(),
            capacity=capacity,
            options=options_to_api(opts),
            created_by=user,
            seed=secrets.randbits(62),
            practice=opts.agents,  # open to AIWolf agents: a practice village
            game=game_json(state),
            seated=len(state.seats),
            deadline_at=engine.next_deadline(state, rules()),
        )
        for seat in state.seats:  # the dummy boy
            Seat.objects.create(
                village=village,
                seat_no=seat.no,
                handle_name=seat.name,
                dummy=True,
                start_voted=True,
                objections_left=0,
                icon=Icon.objects.filter(reserved=True, is_active=True).first()
                or Icon.objects.choosable().first(),
            )
    return village


def sit(
    *,
    village_id: int,
    user: AbstractBaseUser,
    handle_name: str,
    icon_id: int | None,
    trip: str = "",
    ip: str | None = None,
    bot: str = "",
    agent: str = "",
    agent_owner: AbstractBaseUser | None = None,
) -> int:
    """村人登録: returns the new seat number. `bot`: the strategy of a bot's seat; `agent`:
    the name an AIWolf agent gave, `agent_owner` the account of its token (an agent's
    seat counts as having voted to start: it starts a full village where all have)."""
    bans.check(user, "play")
    icon = Icon.objects.choosable().filter(pk=icon_id).first() if icon_id else None
    if icon_id and icon is None:
        raise NotFound(gettext_noop("そのアイコンはありません。"))

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, int]:
        village = loaded.village
        if icon is None:
            raise BadRequest(gettext_noop("アイコンを選んでください。"))
        if loaded.seat_of_user(user.pk) is not None:
            raise AlreadySeated()
        if user.pk in loaded.kicked_users:
            raise Forbidden(gettext_noop("この村からはキックされています。"))
        if ip and flag("ONE_SEAT_PER_IP") and any(r.ip == ip for r in loaded.rows.values()):
            raise AlreadySeated(gettext_noop("同じ接続元からはひとつの村にひと席までです。"))
        step, seat_no = engine.sit(
            loaded.state, name=handle_name, bot=bool(bot), agent=bool(agent), rules=rules(), now=now
        )
        new = step.state
        if agent and len(new.seats) == new.capacity and all(x.start_voted for x in new.seats):
            started = engine.start_now(new, rules=rules(), rng=rng, now=now)
            step = Step(started.state, step.events + started.events)
        seat = step.state.seat(seat_no)
        assert seat is not None
        loaded.new_rows[seat_no] = Seat(
            village=village,
            seat_no=seat_no,
            user=user,
            bot=bot,
            agent=agent,
            agent_owner=agent_owner,
            handle_name=seat.name,
            icon=icon,
            trip=trip_of(trip),
            ip=ip,
        )
        return step, seat_no

    return core.run(village_id, command)


def leave(*, village_id: int, user: AbstractBaseUser) -> None:
    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        seat = core.user_seat(loaded, user)
        step = engine.leave(loaded.state, seat_no=seat.seat_no, rules=rules(), now=now, rng=rng)
        return step, None

    core.run(village_id, command)


def vote_start(*, village_id: int, user: AbstractBaseUser) -> bool:
    """ゲーム開始 vote; returns whether the game started."""
    bans.check(user, "play")

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        seat = core.user_seat(loaded, user)
        return engine.vote_start(
            loaded.state, seat_no=seat.seat_no, rules=rules(), rng=rng, now=now
        )

    return core.run(village_id, command)


def kick_vote(*, village_id: int, user: AbstractBaseUser, target: int) -> bool:
    """キック投票 (staff kick at once); returns whether the seat was removed."""
    staff = bool(getattr(user, "is_staff", False))
    if not staff:
        bans.check(user, "play")

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        row = loaded.seat_of_user(user.pk)
        if row is None and not staff:
            raise NotSeated()
        return engine.kick_vote(
            loaded.state,
            voter=row.seat_no if row is not None else None,
            target=target,
            rules=rules(),
            now=now,
            staff=staff and row is None,
        )

    return core.run(village_id, command)


def fix_cast(
    *,
    village_id: int,
    user: AbstractBaseUser,
    roles: dict[str, str],
    sub_roles: dict[str, list[str]],
) -> None:
    """Staff only: fix the cast of a waiting village."""
    if not getattr(user, "is_staff", False):
        raise Forbidden(gettext_noop("配役の指定は管理者だけができます。"))
    try:
        seat_roles = {int(no): code for no, code in roles.items()}
        seat_subs = {int(no): codes for no, codes in sub_roles.items()}
    except ValueError as exc:
        raise BadRequest(gettext_noop("席番号は数字で指定してください。")) from exc
    cast = engine.cast_from_codes(seat_roles, seat_subs)

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        return Step(engine.fix_cast(loaded.state, cast=cast, rules=rules()), ()), None

    core.run(village_id, command)


def end_village(*, village_id: int) -> None:
    """Staff: close a village now (廃村), whatever its phase; nobody wins."""

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        return engine.abandon(loaded.state, rules=rules(), now=now), None

    core.run(village_id, command)
