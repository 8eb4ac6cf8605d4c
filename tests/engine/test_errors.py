"""Every typed RuleError, provoked; the state given is never changed (API.md: "An error
never changes state"); commands never mutate their input on success either."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from villages.engine import errors, game
from villages.engine.cast import Options
from villages.engine.events import ObjectionRaised
from villages.engine.rules import Rules
from villages.engine.state import Ability, GameState, Phase

from .harness import T0, Village, expect_error, run, seated, unchanged, village

RULES = Rules()
RNG = random.Random(0)
EIGHT = "wolf wolf seer villager*5"
ELEVEN = "wolf wolf madman seer medium guard villager*5"


def waiting() -> GameState:
    return seated(8, capacity=10)


def night() -> GameState:
    return village(ELEVEN).state


def day() -> GameState:
    v = village(ELEVEN)
    run(v, [("attack", 1, 7), ("divine", 4, 8)])
    return v.state


def ended() -> GameState:
    v = village(EIGHT)
    run(v, [("attack", 1, 4), ("divine", 3, 5), ("lynch", 1), ("attack", 2, 5)])
    run(v, [("divine", 3, 2), ("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    return v.state


def dummy_night() -> GameState:
    return village("villager wolf wolf seer villager*4", options=Options(dummy_boy=True)).state


def no_objections() -> GameState:
    state = waiting()
    for _ in range(RULES.objections_per_player):
        state = game.object_(state, seat_no=2, rules=RULES, now=T0).state
    return state


def time_up_day() -> GameState:
    v = Village(day(), RULES, random.Random(0), T0)
    for _ in range(12):
        v.tick(60)
    return v.state


def a(**kwargs: Any) -> dict[str, Any]:
    return {"rules": RULES, "now": T0, **kwargs}


def ar(**kwargs: Any) -> dict[str, Any]:
    return {"rules": RULES, "rng": RNG, "now": T0, **kwargs}


CASES: list[
    tuple[type[errors.RuleError], str, Callable[[], GameState], Callable[..., Any], dict[str, Any]]
] = [
    (errors.BadRequest, "name too long", waiting, game.sit, a(name="x" * 41)),
    (
        errors.BadRequest,
        "illegal fixed cast",
        waiting,
        game.fix_cast,
        {"cast": game.Cast({1: game.Role.WOLF}, {}), "rules": RULES},
    ),
    (errors.Forbidden, "dummy boy talks", dummy_night, game.talk, a(seat_no=1, text="x")),
    (errors.Forbidden, "living heaven talk", night, game.talk, a(seat_no=1, text="x", heaven=True)),
    (
        errors.Forbidden,
        "dummy boy's will",
        dummy_night,
        game.set_will,
        {"seat_no": 1, "text": "x", "rules": RULES},
    ),
    (errors.NotSeated, "no such seat talks", night, game.talk, a(seat_no=42, text="x")),
    (errors.NotSeated, "no such seat votes", day, game.vote, ar(voter=42, target=1)),
    (errors.VillageFull, "full", lambda: seated(8), game.sit, a(name="late")),
    (errors.NameTaken, "same name", waiting, game.sit, a(name="p2")),
    (errors.WrongPhase, "vote at night", night, game.vote, ar(voter=1, target=2)),
    (
        errors.WrongPhase,
        "act by day",
        day,
        game.night_action,
        ar(seat_no=1, ability=Ability.ATTACK, targets=[9]),
    ),
    (errors.WrongPhase, "sit after start", night, game.sit, a(name="late")),
    (errors.WrongPhase, "talk after time up", time_up_day, game.talk, a(seat_no=2, text="x")),
    (errors.WrongPhase, "objection at night", night, game.object_, a(seat_no=2)),
    (
        errors.WrongPhase,
        "heaven before start",
        waiting,
        game.talk,
        a(seat_no=2, text="x", heaven=True),
    ),
    (errors.WrongPhase, "start twice", night, game.vote_start, ar(seat_no=2)),
    (
        errors.WrongPhase,
        "guard on night 1",
        night,
        game.night_action,
        ar(seat_no=6, ability=Ability.GUARD, targets=[4]),
    ),
    (errors.Dead, "dead votes", day, game.vote, ar(voter=7, target=1)),
    (errors.Dead, "dead talks", day, game.talk, a(seat_no=7, text="x")),
    (
        errors.NotYourAbility,
        "villager divines",
        night,
        game.night_action,
        ar(seat_no=7, ability=Ability.DIVINE, targets=[1]),
    ),
    (
        errors.NotYourAbility,
        "dummy boy votes",
        dummy_night,
        game.night_action,
        ar(seat_no=1, ability=Ability.DIVINE, targets=[2]),
    ),
    (
        errors.InvalidTarget,
        "wolf on wolf",
        night,
        game.night_action,
        ar(seat_no=1, ability=Ability.ATTACK, targets=[2]),
    ),
    (errors.InvalidTarget, "vote self", day, game.vote, ar(voter=1, target=1)),
    (
        errors.AlreadyVoted,
        "start vote twice",
        lambda: game.vote_start(waiting(), seat_no=2, rules=RULES, rng=RNG, now=T0)[0].state,
        game.vote_start,
        ar(seat_no=2),
    ),
    (
        errors.AlreadyActed,
        "second divination",
        lambda: (
            game.night_action(
                night(),
                seat_no=4,
                ability=Ability.DIVINE,
                targets=[1],
                rules=RULES,
                rng=RNG,
                now=T0,
            )[0].state
        ),
        game.night_action,
        ar(seat_no=4, ability=Ability.DIVINE, targets=[2]),
    ),
    (errors.NoObjectionsLeft, "sixth objection", no_objections, game.object_, a(seat_no=2)),
    (errors.TextEmpty, "blank talk", waiting, game.talk, a(seat_no=2, text=" \n ")),
    (errors.TextTooLong, "2001 characters", waiting, game.talk, a(seat_no=2, text="x" * 2001)),
    (errors.TextTooLong, "51 lines", waiting, game.talk, a(seat_no=2, text="x\n" * 51)),
    (errors.TooFewPlayers, "start with 7", lambda: seated(7), game.start_now, ar()),
    # API.md's phase_changed: a command made in a scene the village has left.
    (
        errors.SceneChanged,
        "a night line sent after the dawn",
        day,
        game.talk,
        a(seat_no=1, text="x", at=game.Scene(1, Phase.NIGHT)),
    ),
    (
        errors.SceneChanged,
        "an attack sent after the dawn",
        day,
        game.night_action,
        ar(seat_no=1, ability=Ability.ATTACK, targets=[9], at=game.Scene(1, Phase.NIGHT)),
    ),
    (
        errors.SceneChanged,
        "a ballot of an earlier round",
        day,
        game.vote,
        ar(voter=1, target=2, at=game.Scene(2, Phase.DAY, 0)),
    ),
]


@pytest.mark.parametrize(
    ("error", "why", "make", "command", "kwargs"), CASES, ids=[c[1] for c in CASES]
)
def test_rule_error_is_typed_and_changes_nothing(
    error: type[errors.RuleError],
    why: str,
    make: Callable[[], GameState],
    command: Callable[..., Any],
    kwargs: dict[str, Any],
) -> None:
    """API.md: each refusal is one typed error with its code and a Japanese message; the
    state given is left exactly as it was."""
    raised = expect_error(error, command, make(), **kwargs)
    assert raised.message and not raised.message.isascii()


def test_every_rule_error_is_provoked() -> None:
    """Every RuleError subclass is provoked at least once above."""
    provoked = {case[0] for case in CASES}
    engine_errors = {
        e for e in errors.RuleError.__subclasses__() if e.__module__.startswith("villages.engine")
    }
    assert engine_errors <= provoked


def test_error_codes_are_the_apis() -> None:
    """API.md error codes."""
    codes = {cls.code for cls in errors.RuleError.__subclasses__()}
    assert codes == {
        "bad_request",
        "forbidden",
        "not_seated",
        "village_full",
        "name_taken",
        "wrong_phase",
        "dead",
        "not_your_ability",
        "invalid_target",
        "already_voted",
        "already_acted",
        "no_objections_left",
        "text_empty",
        "text_too_long",
        "too_few_players",
        "phase_changed",
    }


def test_successful_commands_leave_their_input_alone() -> None:
    """Commands copy: the state given is never mutated, on success either (every command)."""
    state = waiting()
    step, _ = unchanged(game.sit, state, **a(name="new"))
    unchanged(game.leave, step.state, **a(seat_no=9))
    unchanged(game.kick_vote, state, **a(voter=2, target=3))
    unchanged(game.object_, state, **a(seat_no=2))
    unchanged(game.set_will, state, seat_no=2, text="遺言", rules=RULES)
    unchanged(game.vote_start, state, **ar(seat_no=2))
    unchanged(game.tick, state, rules=RULES, rng=RNG, now=T0)
    full = seated(8)
    unchanged(game.start_now, full, **ar())
    unchanged(game.abandon, full, **a()) if hasattr(game, "abandon") else None
    n = night()
    unchanged(game.talk, n, **a(seat_no=1, text="狼"))
    unchanged(game.night_action, n, **ar(seat_no=1, ability=Ability.ATTACK, targets=[7]))
    d = day()
    unchanged(game.vote, d, **ar(voter=1, target=8))
    unchanged(game.talk, d, **a(seat_no=7, text="霊話", heaven=True))
    unchanged(game.tick, time_up_day(), rules=RULES, rng=RNG, now=T0.replace(year=2027))


def test_objections_five_per_player_counted_from_before_the_start() -> None:
    """SPEC §10 異議あり: OBJECTIONS_PER_PLAYER = 5 per player per village, counted from before
    the start; before the start and by day by the living; a line and a sound for all."""
    state = seated(8)
    for _ in range(3):
        step = unchanged(game.object_, state, **a(seat_no=3))
        state = step.state
    assert ObjectionRaised(3, 2) in step.events
    v = Village(state, RULES, random.Random(0), T0)
    for x in list(v.state.seats):
        step2, started = game.vote_start(v.state, seat_no=x.no, rules=RULES, rng=v.rng, now=T0)
        v.state = step2.state
    assert started
    run(v, [("raises", errors.WrongPhase, ("object", 3))])
    night_roles = {x.no: x.role for x in v.state.seats}
    wolf = next(no for no, r in night_roles.items() if r is game.Role.WOLF)
    seer = next(no for no, r in night_roles.items() if r is game.Role.SEER)
    prey = next(no for no, r in night_roles.items() if r is not game.Role.WOLF and no != 3)
    run(v, [("attack", wolf, prey), ("divine", seer, wolf)])
    run(v, [("object", 3), ("object", 3), ("raises", errors.NoObjectionsLeft, ("object", 3))])
    assert copy.deepcopy(v.state).seat(3).objections_left == 0  # type: ignore[union-attr]
