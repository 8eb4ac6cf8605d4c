"""Playing: talk, wills, heaven talk, objections, the day's vote and the night's actions."""

from __future__ import annotations

import random
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser

from villages.engine import Ability, Step, Volume
from villages.engine import game as engine
from villages.engine.errors import BadRequest, NotSeated
from villages.models import Message, Seat

from . import core
from .config import rules
from .persist import Loaded
from .ratelimit import POST_LIMIT, rate_limit


def _user_seat(loaded: Loaded, user: AbstractBaseUser) -> Seat:
    row = loaded.seat_of_user(user.pk)
    if row is None:
        raise NotSeated()
    return row


def _volume(value: str) -> Volume:
    try:
        return Volume(value)
    except ValueError as exc:
        raise BadRequest("声の大きさは strong / normal / weak のいずれかです。") from exc


def post_message(
    *,
    village_id: int,
    user: AbstractBaseUser,
    text: str,
    channel: str = "talk",
    volume: str = "normal",
) -> Message | None:
    """発言 / 遺言 / 霊話. Returns the new line (None for a will, which waits for a death)."""
    rate_limit("post", str(user.pk), POST_LIMIT)
    vol = _volume(volume)
    if channel not in ("talk", "will", "heaven"):
        raise BadRequest("channel は talk / will / heaven のいずれかです。")

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        seat = _user_seat(loaded, user).seat_no
        state, r = loaded.state, rules()
        if channel == "will":
            new = engine.set_will(state, seat_no=seat, text=text, rules=r)
            return Step(new, ()), None
        speak = engine.heaven_talk if channel == "heaven" else engine.talk
        return speak(state, seat_no=seat, text=text, volume=vol, rules=r, now=now), None

    _, posted = core.run_posting(village_id, command)
    return posted[0] if posted else None


def object_(*, village_id: int, user: AbstractBaseUser) -> int:
    """異議あり: returns the objections left."""

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, int]:
        seat = _user_seat(loaded, user).seat_no
        step = engine.object_(loaded.state, seat_no=seat, rules=rules(), now=now)
        left = step.state.seat(seat)
        assert left is not None
        return step, left.objections_left

    return core.run(village_id, command)


def vote(*, village_id: int, user: AbstractBaseUser, target: int) -> bool:
    """処刑投票: returns whether the tally ran."""

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        seat = _user_seat(loaded, user).seat_no
        return engine.vote(loaded.state, voter=seat, target=target, rules=rules(), rng=rng, now=now)

    return core.run(village_id, command)


def night_action(
    *, village_id: int, user: AbstractBaseUser, action: str, targets: list[int]
) -> bool:
    """Attack, divine, guard or cupid: returns whether the dawn came."""
    try:
        ability = Ability(action)
    except ValueError as exc:
        raise BadRequest("action は attack / divine / guard / cupid のいずれかです。") from exc

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        seat = _user_seat(loaded, user).seat_no
        return engine.night_action(
            loaded.state,
            seat_no=seat,
            ability=ability,
            targets=targets,
            rules=rules(),
            rng=rng,
            now=now,
        )

    return core.run(village_id, command)
