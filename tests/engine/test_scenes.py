"""A command taken only in the scene it was made in (issue 39, items 12 and 15; API.md's
`phase_changed`): a line, a ballot or a night action that names the day and phase (and a
ballot its round) it was made in is refused once the village has moved on, and nothing is
taken, so that a wolf's night line never becomes the day's talk and a ballot from before
a revote is never counted in the new round. A command that names no scene is taken
wherever the village is, as before."""

from __future__ import annotations

import pytest

from villages.engine import game
from villages.engine.errors import RuleError, SceneChanged
from villages.engine.events import MessageKind, Post
from villages.engine.rules import Rules
from villages.engine.state import Ability, Phase

from .harness import T0, Village, expect_error, run, seated, unchanged, village

A, D = Ability.ATTACK, Ability.DIVINE
EIGHT = "wolf wolf seer villager*5"  # 1 2 wolves, 3 seer, 4-8 villagers
NIGHT_1 = game.Scene(1, Phase.NIGHT)
DAY_2 = game.Scene(2, Phase.DAY)


def talk(v: Village, seat: int, text: str, at: game.Scene | None) -> game.Step:
    step = unchanged(game.talk, v.state, seat_no=seat, text=text, rules=v.rules, now=v.now, at=at)
    v.state = step.state
    return step


def refused_talk(v: Village, seat: int, text: str, at: game.Scene | None) -> RuleError:
    """The line, refused for its scene (the state left as it was)."""
    return expect_error(
        SceneChanged, game.talk, v.state, seat_no=seat, text=text, rules=v.rules, now=v.now, at=at
    )


def ballot(v: Village, voter: int, target: int, at: game.Scene) -> dict:
    """`game.vote`'s arguments for a ballot cast on the form of scene `at`."""
    return {
        "voter": voter,
        "target": target,
        "rules": v.rules,
        "rng": v.rng,
        "now": v.now,
        "at": at,
    }


def test_a_wolfs_night_line_sent_after_the_dawn_is_refused_not_published_by_day() -> None:
    """The bug: a wolf's night line whose POST committed after the dawn was stored as the
    day's public talk, the pack's plan read by the whole village."""
    v = village(EIGHT)
    [post] = [e for e in talk(v, 1, "今夜は4を噛もう", NIGHT_1).events if isinstance(e, Post)]
    assert post.kind is MessageKind.WOLF and (post.day, post.phase) == (1, Phase.NIGHT)
    run(v, [("attack", 1, 4), ("divine", 3, 5), ("phase", "day", 2)])
    error = refused_talk(v, 2, "明日は5を吊ろう", NIGHT_1)
    assert error.code == "phase_changed" and "発言は送られませんでした" in error.message
    [said] = [e for e in talk(v, 2, "おはよう", DAY_2).events if isinstance(e, Post)]
    assert said.kind is MessageKind.TALK and said.day == 2


@pytest.mark.parametrize(
    ("at", "refused"),
    [
        (None, False),
        (game.Scene(2, Phase.DAY), False),
        (game.Scene(2, None), False),
        (game.Scene(None, Phase.DAY), False),
        (game.Scene(1, Phase.NIGHT), True),
        (game.Scene(1, Phase.DAY), True),
        (game.Scene(3, Phase.DAY), True),
        (game.Scene(2, Phase.NIGHT), True),
        (game.Scene(None, Phase.NIGHT), True),
        (game.Scene(1, None), True),
    ],
)
def test_each_part_of_the_scene_that_is_named_must_be_where_the_village_is(
    at: game.Scene | None, refused: bool
) -> None:
    v = village(EIGHT)
    run(v, [("attack", 1, 4), ("divine", 3, 5)])  # day 2
    if refused:
        refused_talk(v, 5, "x", at)
    else:
        talk(v, 5, "x", at)


def test_a_line_written_before_the_start_is_not_a_night_line() -> None:
    """A line of the waiting room sent after the start would be wolf talk or a monologue
    of night 1: it is refused instead."""
    waiting = game.Scene(0, Phase.WAITING)
    step = unchanged(
        game.talk, seated(8), seat_no=2, text="よろしく", rules=Rules(), now=T0, at=waiting
    )
    assert [e.kind for e in step.events if isinstance(e, Post)] == [MessageKind.TALK]
    v = village(EIGHT)
    refused_talk(v, 1, "よろしく", waiting)


def test_a_night_action_sent_after_its_night_is_refused() -> None:
    v = village(EIGHT)
    step, _dawn = unchanged(
        game.night_action,
        v.state,
        seat_no=1,
        ability=A,
        targets=[4],
        rules=v.rules,
        rng=v.rng,
        now=v.now,
        at=NIGHT_1,
    )
    v.state = step.state
    run(v, [("divine", 3, 5), ("lynch", 6), ("phase", "night", 2)])
    for action, seat, target in ((A, 2, 5), (D, 3, 2)):
        expect_error(
            SceneChanged,
            game.night_action,
            v.state,
            seat_no=seat,
            ability=action,
            targets=[target],
            rules=v.rules,
            rng=v.rng,
            now=v.now,
            at=NIGHT_1,
        )
    assert v.state.pack_attack(2) is None


def test_a_ballot_from_before_a_revote_is_refused_and_counted_in_no_round() -> None:
    """Issue 39, item 12: the form carries the round it was opened in; sent after a tie,
    the ballot is refused with the words a player needs, and the new round is untouched."""
    v = village(EIGHT)
    run(v, [("attack", 1, 4), ("divine", 3, 5)])
    first = game.Scene(2, Phase.DAY, 1)
    for voter, target in ((1, 2), (2, 1), (3, 1), (5, 2), (6, 7)):
        step, _ = unchanged(game.vote, v.state, **ballot(v, voter, target, first))
        v.state = step.state
    run(v, [("vote", {7: 6, 8: 6})])  # 2 / 2 / 2 (+1): a tie, round 2
    assert v.state.vote_round == 2 and v.state.current_ballots() == []
    error = expect_error(SceneChanged, game.vote, v.state, **ballot(v, 7, 1, first))
    assert error.message == "再投票になりました。もう一度投票してください。"
    second = game.Scene(2, Phase.DAY, 2)
    step, _ = unchanged(game.vote, v.state, **ballot(v, 7, 1, second))
    assert [(b.round, b.voter, b.target) for b in step.state.current_ballots()] == [(2, 7, 1)]
