"""AIWolf agents' seats: admitted, seated, looked at and played through the players' services.

An agent connects with its owner's API token (`villages.consumers.aiwolf`). Its seat
belongs to one of the site's agent accounts (`aiwolf:01` … `aiwolf:22`: names the
sign-up form refuses, no password), so that one owner may run several agents in a
village, and an agent talks, votes and acts through exactly the services, rules and
visibility of a person; the seat keeps the name the agent gave and its owner, by which
a reconnecting agent finds it again. The host and the staff open a waiting village to
agents or close it, and may remove an agent's seat before the start.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.hashers import make_password
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts import bans
from villages.aiwolf import AGENT_ACCOUNT_PREFIX, Heard, Limits, Look
from villages.aiwolf.packets import game_ulid
from villages.bots import bot_view
from villages.engine import Step
from villages.engine import game as engine
from villages.engine.cast import agents_fit
from villages.engine.errors import (
    BadRequest,
    Forbidden,
    NameTaken,
    RuleError,
    VillageFull,
    WrongPhase,
)
from villages.engine.state import Phase
from villages.engine.visibility import see_message, vote_views
from villages.models import Icon, Message, Seat, Village
from villages.snapshots import Loaded, options_from_api, snapshot_of

from . import core, lifecycle, play
from .config import number, rules
from .errors import AlreadySeated, NotFound, StorageConflict

POOL = 22  # the most seats a village has


def _pool() -> list[AbstractBaseUser]:
    User = get_user_model()
    names = [f"{AGENT_ACCOUNT_PREFIX}{n:02d}" for n in range(1, POOL + 1)]
    have = {u.get_username(): u for u in User.objects.filter(username__in=names)}
    for name in names:
        if name not in have:
            user, _made = User.objects.get_or_create(
                username=name, defaults={"password": make_password(None)}
            )
            have[name] = user
    return [have[n] for n in names]


def _agent_seats(village_id: int):  # type: ignore[no-untyped-def]
    return Seat.objects.filter(village_id=village_id, kicked=False).exclude(agent="")


def refusal(village_id: int, owner: AbstractBaseUser) -> str | None:
    """Why an agent of `owner` may not be asked its name here (a key of
    `wording.AGENT_REFUSALS`), or None. An owner with an agent seat in the village is
    asked, whatever the phase: its agent may be coming back."""
    bans.check(owner, "play")
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        return "not_found"
    if village.status == Village.Status.ENDED:
        return "ended"
    if _agent_seats(village_id).filter(agent_owner=owner).exists():
        return None
    options = options_from_api(village.options)
    if not options.agents:
        return "closed"
    if village.status != Village.Status.WAITING:
        return "playing"
    if village.seated >= village.capacity:
        return "full"
    agents = _agent_seats(village_id).count() + 1
    if agents_fit(village.capacity, options, rules(), agents, options.dummy_boy) is not None:
        return "cast"
    return None


def take_seat(*, village_id: int, owner: AbstractBaseUser, name: str) -> int:
    """The seat of the agent `name` of `owner`: its own again (a reconnection), or a new
    one (the village must be waiting and open to agents). Returns its number."""
    name = name.strip()
    mine = _agent_seats(village_id).filter(agent=name).first()
    if mine is not None:
        if mine.agent_owner_id != owner.pk:
            raise NameTaken(gettext_noop("その名前のエージェントは別のアカウントの席にいます。"))
        return mine.seat_no
    kicked = Seat.objects.filter(village_id=village_id, kicked=True, agent=name)
    if kicked.filter(agent_owner=owner).exists():
        raise Forbidden(gettext_noop("このエージェントはこの村からキックされています。"))
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    if village.status != Village.Status.WAITING:
        raise WrongPhase(gettext_noop("ゲームが始まった村には入れません。"))
    # Every account with a row here, kicked ones too (a kicked row bars its account).
    seated = set(Seat.objects.filter(village_id=village_id).values_list("user_id", flat=True))
    icons = list(Icon.objects.choosable().values_list("pk", flat=True))
    if not icons:
        raise BadRequest(gettext_noop("エージェントに使えるアイコンがありません。"))
    for account in (u for u in _pool() if u.pk not in seated):
        try:
            return lifecycle.sit(
                village_id=village_id,
                user=account,
                handle_name=name,
                icon_id=icons[(village.seated + len(name)) % len(icons)],
                agent=name,
                agent_owner=owner,
            )
        except (AlreadySeated, StorageConflict):  # another agent took it meanwhile: the next
            continue
    raise VillageFull()


def _host_or_staff(village_id: int, user: AbstractBaseUser) -> None:
    village = Village.objects.filter(pk=village_id).first()
    if village is None:
        raise NotFound(gettext_noop("村が見つかりません。"))
    if not (getattr(user, "is_staff", False) or village.created_by_id == user.pk):
        raise Forbidden(
            gettext_noop("エージェントの受け入れを変えられるのは村を作った人とスタッフだけです。")
        )


def set_open(*, village_id: int, user: AbstractBaseUser, open_: bool) -> None:
    """The host (or staff) opens the waiting village to agents, or closes it."""
    _host_or_staff(village_id, user)

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        if loaded.state.phase is not Phase.WAITING:
            raise WrongPhase(
                gettext_noop("人狼知能エージェントの受け入れはゲーム開始前にだけ変えられます。")
            )
        return engine.open_to_agents(loaded.state, open_=open_, rules=rules(), now=now), None

    core.run(village_id, command)


def remove(*, village_id: int, user: AbstractBaseUser, seat_no: int) -> None:
    """The host (or staff) removes an agent's seat before the start."""
    _host_or_staff(village_id, user)

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        row = loaded.rows.get(seat_no)
        if row is None or not row.agent:
            raise BadRequest(gettext_noop("その席は人狼知能エージェントの席ではありません。"))
        return engine.leave(loaded.state, seat_no=seat_no, rules=rules(), now=now, rng=rng), None

    core.run(village_id, command)


# ---------------------------------------------------------------------------
# Playing: the seat's look, and its commands


def limits() -> Limits:
    return Limits(
        talks_per_day=number("AIWOLF_TALKS_PER_DAY"),
        whispers_per_night=number("AIWOLF_WHISPERS_PER_NIGHT"),
        skips=number("AIWOLF_SKIPS"),
        chars_per_talk=rules().speech_max_chars,
        timeout_ms=number("AIWOLF_TIMEOUT") * 1000,
        round_seconds=number("AIWOLF_ROUND_SECONDS"),
        revotes=rules().max_revotes,
    )


def look(village_id: int, seat_no: int, *, now: datetime | None = None) -> Look | None:
    """The agent's seat as its player would see it now (None: no such seat any more)."""
    now = now or timezone.now()
    loaded = snapshot_of(village_id)
    if loaded is None or seat_no not in loaded.rows:
        return None
    state = loaded.state
    lines = list(
        Message.objects.filter(
            village_id=village_id, hidden=False, id__lte=loaded.village.last_line
        ).order_by("id")
    )
    view = bot_view(state, seat_no, lines, rules(), now)
    if view is None:
        return None
    heard = []
    for m in lines:
        seen = see_message(state, seat_no, m)
        if seen is None:
            continue
        system = seen.kind == m.kind and bool(m.code)
        params = {k: str(x) for k, x in dict(m.params or {}).items()} if system else {}
        heard.append(
            Heard(
                m.pk,
                m.day,
                Phase(m.phase),
                seen.kind,
                seen.seat_no,
                seen.text,
                m.code if system else "",
                params,
            )
        )
    return Look(
        game_id=game_ulid(
            int(loaded.village.created_at.timestamp() * 1000),
            (loaded.village.seed << 18) | (village_id & 0x3FFFF),
        ),
        seed=loaded.village.seed,
        view=view,
        heard=tuple(heard),
        rounds=tuple(vote_views(state)),
        cast=Counter(s.role for s in state.seats if s.role is not None),
        limits=limits(),
        now=now,
        phase_started_at=state.clock.phase_started_at,
    )


def seat_user(village_id: int, seat_no: int) -> AbstractBaseUser | None:
    row = (
        Seat.objects.select_related("user")
        .filter(village_id=village_id, seat_no=seat_no, kicked=False)
        .exclude(agent="")
        .first()
    )
    return row.user if row is not None else None


def say(village_id: int, user: AbstractBaseUser, text: str, asked: Look) -> str | None:
    """The agent's line (talk by day, a wolf's whisper at night); the refusal's message.
    The line is of the phase it was asked in (`asked`): a whisper answered after the
    dawn is refused, never published as the day's talk."""
    return _refused(
        lambda: play.post_message(village_id=village_id, user=user, text=text, **_scene(asked))
    )


def vote(village_id: int, user: AbstractBaseUser, target: int, asked: Look) -> str | None:
    """The agent's ballot, for the round it was asked in (a revote asks again)."""
    today = sum(1 for r in asked.rounds if r.day == asked.view.day)
    return _refused(
        lambda: play.vote(
            village_id=village_id, user=user, target=target, round=today + 1, **_scene(asked)
        )
    )


def act(
    village_id: int, user: AbstractBaseUser, ability: str, target: int, asked: Look
) -> str | None:
    return _refused(
        lambda: play.night_action(
            village_id=village_id, user=user, action=ability, targets=[target], **_scene(asked)
        )
    )


def _scene(asked: Look) -> dict[str, Any]:
    """Where the agent was asked (`play.scene`): an answer is taken there or nowhere."""
    return {"day": asked.view.day, "phase": asked.view.phase.value}


def _refused(command) -> str | None:  # type: ignore[no-untyped-def]
    try:
        command()
    except RuleError as error:
        return str(error)
    return None
