"""Where a player's talk goes: the village's talk, or heaven (霊話) for the dead while the
game runs. The screens send a talk box's text where `talks_in_heaven` says; the API's
explicit channels keep their meaning (a dead player's `talk` is refused)."""

from __future__ import annotations

import pytest

from villages.engine import errors, game
from villages.engine.events import MessageKind, Post
from villages.engine.rules import Rules
from villages.engine.state import GameState, Phase

from .harness import T0, run, seated, unchanged, village

RULES = Rules()
EIGHT = "wolf wolf seer villager*5"


def _states() -> dict[str, GameState]:
    v = village(EIGHT)
    run(v, [("attack", 1, 4), ("divine", 3, 5)])
    states = {"day 2": v.state}  # 4 was bitten
    run(v, [("lynch", 1)])
    states["night 2"] = v.state  # and wolf 1 executed
    run(v, [("attack", 2, 5), ("divine", 3, 2), ("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    states["ended"] = v.state
    return {"waiting": seated(8, capacity=10), **states}


STATES = _states()


@pytest.mark.parametrize("name", sorted(STATES))
def test_the_dead_talk_in_heaven_while_the_game_runs_and_everyone_in_the_village_else(name):
    state = STATES[name]
    playing = state.phase in (Phase.DAY, Phase.NIGHT)
    dead = [x.no for x in state.seats if not x.alive]
    if playing:
        assert dead, "a state with a dead player"
    for seat in state.seats:
        expected = playing and not seat.alive
        assert game.talks_in_heaven(state, seat.no) is expected, (name, seat.no)
        if seat.dummy:
            continue
        said = {"seat_no": seat.no, "text": "x", "rules": RULES, "now": T0}
        if expected:
            # Where it says heaven, heaven talk is taken and the village's is refused.
            step = unchanged(game.talk, state, heaven=True, **said)
            assert [p.kind for p in step.events if isinstance(p, Post)] == [MessageKind.HEAVEN]
            with pytest.raises(errors.Dead):
                game.talk(state, **said)
        elif seat.alive or not playing:
            with pytest.raises((errors.Forbidden, errors.WrongPhase)):
                game.talk(state, heaven=True, **said)
    assert not game.talks_in_heaven(state, 99), "no such seat"
