"""Playing: talk, wills, heaven talk, objections, the day's vote and the night's actions."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext_noop

from accounts import bans
from villages import line_numbers
from villages.aiwolf import is_agent_account
from villages.bots import is_bot_account
from villages.engine import Ability, GameState, Phase, Step, Volume
from villages.engine import game as engine
from villages.engine.errors import BadRequest
from villages.engine.visibility import MessageView, see_message
from villages.models import Message
from villages.snapshots import Loaded

from . import core
from .config import rules
from .ratelimit import POST_LIMIT, rate_limit


def _volume(value: str) -> Volume:
    try:
        return Volume(value)
    except ValueError as exc:
        raise BadRequest(
            gettext_noop("声の大きさは strong / normal / weak のいずれかです。")
        ) from exc


def scene(
    day: int | None = None, phase: str | None = None, round_: int | None = None
) -> engine.Scene | None:
    """Where a command says it was made (the day and phase its form showed, a ballot's
    round): the engine refuses it (`phase_changed`) once the village has moved on. None
    when it says nothing: it is taken wherever the village is."""
    if day is None and phase is None and round_ is None:
        return None
    try:
        where = Phase(phase) if phase is not None else None
    except ValueError as exc:
        raise BadRequest(
            gettext_noop("phase は waiting / night / day / ended のいずれかです。")
        ) from exc
    return engine.Scene(day, where, round_)


@dataclass(frozen=True)
class Posted:
    """What a post did, as its speaker sees it (the answer needs no second read)."""

    message: Message | None  # the new line; None for a will, which waits for a death
    seen: MessageView | None  # the speaker's view of the line (wolf talk at night, …)
    will: str  # the speaker's will after the post
    number: int = 0  # the number the speaker knows the line by (villages.line_numbers)


def post_message(
    *,
    village_id: int,
    user: AbstractBaseUser,
    text: str,
    channel: str = "talk",
    volume: str = "normal",
    code: str = "",
    params: dict[str, str] | None = None,
    day: int | None = None,
    phase: str | None = None,
) -> Posted:
    """発言 / 遺言 / 霊話. A line the site words itself (a bot's) names its wording with
    `code` and `params`, so that each page shows it in its own language. With `day` and
    `phase` (where the line was written), a line the village has moved on from is refused
    (`phase_changed`), never published in another phase; a will has no phase."""
    name = user.get_username()
    if not (is_bot_account(name) or is_agent_account(name)):  # they talk in many villages
        rate_limit("post", str(user.pk), POST_LIMIT)
    bans.check(user, "talk")
    vol = _volume(volume)
    if channel not in ("talk", "will", "heaven"):
        raise BadRequest(gettext_noop("channel は talk / will / heaven のいずれかです。"))
    at = scene(day, phase)

    def command(
        loaded: Loaded, rng: random.Random, now: datetime
    ) -> tuple[Step, tuple[int, GameState, int]]:
        seat = core.user_seat(loaded, user).seat_no
        state, r = loaded.state, rules()
        if channel == "will":
            step = Step(engine.set_will(state, seat_no=seat, text=text, rules=r), ())
        else:
            step = engine.talk(
                state,
                seat_no=seat,
                text=text,
                volume=vol,
                heaven=channel == "heaven",
                rules=r,
                now=now,
                wording=(code, tuple(sorted((params or {}).items()))),
                at=at,
            )
        return step, (seat, step.state, loaded.village.seed)

    (seat, state, seed), lines = core.run_posting(village_id, command)
    speaker = state.seat(seat)
    will = speaker.will if speaker is not None else ""
    if not lines:
        return Posted(None, None, will)
    line = lines[0]
    number = line_numbers.number_of(village_id, seed, state, seat, line)
    return Posted(line, see_message(state, seat, line), will, number)


def object_(*, village_id: int, user: AbstractBaseUser) -> int:
    """異議あり: returns the objections left. An objection is a line to everyone, with a
    sound: a talk ban stops it too."""
    bans.check(user, "play")
    bans.check(user, "talk")

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, int]:
        seat = core.user_seat(loaded, user).seat_no
        step = engine.object_(loaded.state, seat_no=seat, rules=rules(), now=now)
        left = step.state.seat(seat)
        assert left is not None
        return step, left.objections_left

    return core.run(village_id, command)


def vote(
    *,
    village_id: int,
    user: AbstractBaseUser,
    target: int,
    day: int | None = None,
    phase: str | None = None,
    round: int | None = None,  # the API's name (a vote round, as in State.votes)
) -> bool:
    """処刑投票: returns whether the tally ran. A ballot that names the day and round it
    was cast in is refused (`phase_changed`) after a revote, never counted in the new round."""
    bans.check(user, "play")
    at = scene(day, phase, round)

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        seat = core.user_seat(loaded, user).seat_no
        return engine.vote(
            loaded.state, voter=seat, target=target, rules=rules(), rng=rng, now=now, at=at
        )

    return core.run(village_id, command)


def night_action(
    *,
    village_id: int,
    user: AbstractBaseUser,
    action: str,
    targets: list[int],
    day: int | None = None,
    phase: str | None = None,
) -> bool:
    """Attack, divine, guard or cupid: returns whether the dawn came. An action that names
    the night it was chosen in is refused (`phase_changed`) after that night."""
    bans.check(user, "play")
    at = scene(day, phase)
    try:
        ability = Ability(action)
    except ValueError as exc:
        raise BadRequest(
            gettext_noop("action は attack / divine / guard / cupid のいずれかです。")
        ) from exc

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, bool]:
        seat = core.user_seat(loaded, user).seat_no
        return engine.night_action(
            loaded.state,
            seat_no=seat,
            ability=ability,
            targets=targets,
            rules=rules(),
            rng=rng,
            now=now,
            at=at,
        )

    return core.run(village_id, command)
