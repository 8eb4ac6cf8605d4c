"""SPEC §5: the night, the dawn's order, the day's vote, ties and tallies."""

from __future__ import annotations

import pytest

from villages.engine import game
from villages.engine.cast import Options
from villages.engine.errors import AlreadyVoted, Dead, InvalidTarget, NotYourAbility, WrongPhase
from villages.engine.events import Dawn, Died, MessageKind, PhaseChanged, Post, Revote
from villages.engine.roles import Winner
from villages.engine.state import Ability, DeathCause, Phase, RoundResult
from villages.engine.visibility import vote_views

from .harness import run, village

A, D, G, C = Ability.ATTACK, Ability.DIVINE, Ability.GUARD, Ability.CUPID
EIGHT = "wolf wolf seer villager*5"
ELEVEN = "wolf wolf madman seer medium guard villager*5"
TWENTY_POISON_CUPID = "wolf*4 madman fox seer medium guard common common poison cupid villager*7"


def test_there_is_no_day_one() -> None:
    """SPEC §5 night 1 → day 2 → night 2 → day 3."""
    v = village(EIGHT)
    phases = [(v.state.phase, v.state.day)]
    v.act(1, A, 4)
    v.act(3, D, 5)
    phases.append((v.state.phase, v.state.day))
    v.lynch(6)
    phases.append((v.state.phase, v.state.day))
    v.act(1, A, 7)
    v.act(3, D, 8)
    phases.append((v.state.phase, v.state.day))
    assert phases == [(Phase.NIGHT, 1), (Phase.DAY, 2), (Phase.NIGHT, 2), (Phase.DAY, 3)]
    assert [e for e in v.events if isinstance(e, PhaseChanged)][:3] == [
        PhaseChanged(1, Phase.NIGHT),
        PhaseChanged(2, Phase.DAY),
        PhaseChanged(2, Phase.NIGHT),
    ]


@pytest.mark.parametrize(
    ("step", "why"),
    [
        (("attack", 1, 2), "a wolf"),
        (("attack", 1, 99), "nobody"),
        (("divine", 4, 4), "the seer themself"),
        (("divine", 4, 99), "nobody"),
        (("guard", 6, 6), "the guard themself"),
        (("guard", 6, 7), "the dead"),
        (("attack", 1, 7), "the dead"),
        (("divine", 4, 7), "the dead"),
    ],
)
def test_invalid_night_targets_are_refused(step: tuple[object, ...], why: str) -> None:
    """SPEC §5 targets: wolves a living non-wolf; seer and guard another living player."""
    v = village(ELEVEN)
    v.act(1, A, 7)
    v.act(4, D, 8)
    v.lynch(9)
    run(v, [("raises", InvalidTarget, step)])


def test_cupid_needs_two_distinct_living_players() -> None:
    """SPEC §5 the cupid picks two distinct living players."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    run(
        v,
        [
            ("raises", InvalidTarget, ("cupid", 4, 4)),
            ("raises", InvalidTarget, ("cupid", 4, 4, 4)),
            ("raises", InvalidTarget, ("cupid", 4, 4, 5, 6)),
            ("raises", InvalidTarget, ("cupid", 4, 4, 99)),
        ],
    )


def test_night_ends_as_soon_as_every_required_action_is_in() -> None:
    """SPEC §5 the night ends as soon as every required action is in (wolves, seer, guard
    from night 2, cupid on night 1)."""
    v = village(ELEVEN)
    assert {x.no for x in game.owed_actions(v.state)} == {1, 2, 4}  # the guard rests night 1
    assert not v.act(4, D, 7)
    assert {x.no for x in game.owed_actions(v.state)} == {1, 2}
    assert v.act(2, A, 8)
    v.lynch(9)
    assert {x.no for x in game.owed_actions(v.state)} == {1, 2, 4, 6}


def test_dawn_resolves_in_order_cupid_guard_attack_poison_divination_lovers() -> None:
    """SPEC §5 resolution order at dawn: cupid → guard → attack → poison's revenge →
    divination → lovers' suicides → wills → victory check."""
    v = village(TWENTY_POISON_CUPID, options=Options(poison=True, cupid=True))
    v.will(12, "毒の遺言")
    v.will(14, "恋人の遺言")
    v.act(13, C, 12, 14)  # the poison and a villager become lovers tonight
    v.act(1, A, 12)  # bite the poison (a lover formed the same night)
    v.act(7, D, 6)  # divine the fox
    died = [(e.seat_no, e.cause) for e in v.of_type(Died)]
    assert [c for _, c in died] == [
        DeathCause.ATTACKED,
        DeathCause.POISONED,
        DeathCause.DIVINED,
        DeathCause.LOVERS,
    ]
    assert died[0][0] == 12 and died[2][0] == 6 and died[3][0] == 14
    kinds = [(e.kind, e.code) for e in v.posts() if e.day == 2]
    assert kinds[0] == (MessageKind.SYSTEM, "morning")
    wills = [e.seat_no for e in v.posts() if e.kind is MessageKind.WILL]
    assert wills == [12, 14]
    dawn_at = next(i for i, e in enumerate(v.events) if isinstance(e, Dawn))
    will_at = max(
        i for i, e in enumerate(v.events) if isinstance(e, Post) and e.kind is MessageKind.WILL
    )
    assert will_at < dawn_at


def test_guard_before_attack_saves_a_lover_and_so_the_other() -> None:
    """SPEC §5 cupid before guard before attack: a guarded lover lives, and so the other."""
    v = village(
        "wolf*3 madman fox fox seer medium guard common common cupid villager*6",
        options=Options(cupid=True),
    )
    v.act(12, C, 13, 14)
    v.act(1, A, 15)
    v.act(7, D, 1)
    v.lynch(1)
    v.act(9, G, 13)
    v.act(2, A, 13)
    v.act(7, D, 2)
    assert v.seat(13).alive and v.seat(14).alive


def test_victory_is_checked_after_the_nights_deaths() -> None:
    """SPEC §5 victory check at the end of the dawn."""
    v = village("wolf wolf seer medium villager*5")
    run(v, [("attack", 1, 4), ("divine", 3, 5), ("lynch", 5)])
    run(v, [("attack", 1, 6), ("divine", 3, 7), ("lynch", 7)])
    run(v, [("attack", 1, 3), ("divine", 3, 8)])  # W W V V at dawn
    assert v.state.winner is Winner.WOLVES and v.codes()[-2:] == ["found_dead", "win_wolves"]


def test_day_vote_is_for_another_living_player_once_and_never_changed() -> None:
    """SPEC §5 each living player casts one vote for another living player; it cannot change."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    run(
        v,
        [
            ("raises", InvalidTarget, ("vote", {2: 2})),
            ("raises", InvalidTarget, ("vote", {2: 4})),
            ("raises", Dead, ("vote", {4: 2})),
            ("vote", {2: 3}),
            ("raises", AlreadyVoted, ("vote", {2: 5})),
        ],
    )


def test_dummy_boy_never_votes() -> None:
    """SPEC §3 the dummy boy never votes."""
    v = village("villager wolf wolf seer villager*4", options=Options(dummy_boy=True))
    assert all(not x.dummy for x in game.owed_votes(v.state))
    v.act(2, A, 1)
    v.act(4, D, 5)
    run(v, [("raises", NotYourAbility, ("vote", {1: 2}))])


def test_vote_is_counted_as_soon_as_every_living_player_voted() -> None:
    """SPEC §5 when every living player has voted the vote is counted at once: execution,
    then the night."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    for voter in (1, 2, 3, 5, 6, 7):
        assert not v.vote(voter, 8 if voter != 8 else 7)
        assert v.state.phase is Phase.DAY
    assert v.vote(8, 7)
    assert v.seat(8).death_cause is DeathCause.EXECUTED and v.state.phase is Phase.NIGHT


def test_votes_are_allowed_after_talk_closes() -> None:
    """SPEC §6 when the virtual time reaches 0, talk closes; only voting remains."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    for _ in range(12):
        v.tick(60)
    run(v, [("raises", WrongPhase, ("talk", 2, "話したい")), ("lynch", 2)])
    assert v.seat(2).death_cause is DeathCause.EXECUTED


def test_tie_means_a_revote_with_cleared_ballots_and_a_sound() -> None:
    """SPEC §5 tie → revote (再投票, "N 回目") with all ballots cleared, notified."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    run(v, [("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]})])
    assert v.state.current_ballots() == [] and v.state.vote_round == 2
    assert v.of_type(Revote) == [Revote(2, 2, False)]
    revote = [p for p in v.posts() if p.code == "revote"][-1]
    assert dict(revote.params)["revotes"] == "1", "the first revote is 1回目"
    run(v, [("vote", {2: 3})])  # a new ballot for the new round


def test_fourth_tie_is_a_draw_announced_in_advance() -> None:
    """SPEC §5 the MAX_REVOTES = 4th tie of the same day ends the game in a draw, and the
    revote message says so in advance."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    tie = ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]})
    run(v, [tie, tie, tie])
    last = [p for p in v.posts() if p.code.startswith("revote")][-1]
    assert last.code == "revote_last" and dict(last.params)["revotes"] == "3"
    run(v, [tie])
    assert v.state.winner is Winner.DRAW and v.state.rounds[-1].result is RoundResult.DRAW


def test_the_revote_line_counts_revotes_and_the_fourth_tie_is_the_draw() -> None:
    """SPEC §5 "N 回目", N counting revotes as the reference words it: the first revote is
    1, the second 2, the third 3 (with the warning); the fourth tie is the draw. A vote
    taken again after a sudden death is no revote and does not count."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    tie = ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]})
    run(v, [tie])
    run(v, [("vote", {1: 2, 2: 3, 3: 1, 5: 1, 6: 1, 7: 1})])  # 8 never votes
    for _ in range(12):
        v.tick(60)
    v.tick(180)
    assert v.seat(8).death_cause is DeathCause.SUDDEN
    tie = ("ballots", {1: [2, 3, 5], 2: [1, 6, 7]})
    run(v, [tie, tie])
    said = [(p.code, dict(p.params)) for p in v.posts() if p.code.startswith(("revote", "tie"))]
    assert said == [
        ("revote", {"revotes": "1"}),
        ("revote_after_sudden", {}),
        ("revote", {"revotes": "2"}),
        ("revote_last", {"revotes": "3"}),
    ]
    run(v, [tie])
    assert [p.code for p in v.posts()][-2:] == ["tie_draw", "win_draw_revotes"]
    assert dict(v.posts()[-2].params) == {"ties": "4"}
    assert v.state.winner is Winner.DRAW


def test_ties_count_per_day() -> None:
    """SPEC §5 the 4th tie *of the same day*: ties of an earlier day do not count."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    tie = ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]})
    run(v, [tie, tie, tie, ("lynch", 8), ("attack", 1, 7), ("divine", 3, 6)])
    # Day 3: one tie is only the first of this day.
    run(v, [("ballots", {1: [2, 3], 2: [1, 6], 3: [5]})])
    assert v.state.phase is Phase.DAY and v.state.vote_round == 2
    assert [p.code for p in v.posts()][-1] == "revote"


def test_tally_of_every_round_is_shown_to_all() -> None:
    """SPEC §5 the tally (開票) of every round: voter → target, and totals, for everyone."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    run(v, [("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]}), ("lynch", 6)])
    rounds = vote_views(v.state)
    assert [(r.day, r.round, r.executed) for r in rounds] == [(2, 1, None), (2, 2, 6)]
    first = {(b.voter, b.target) for b in rounds[0].ballots}
    assert first == {(2, 1), (3, 1), (5, 1), (1, 2), (6, 2), (7, 2), (8, 3)}


def test_ballots_of_the_running_round_are_not_public() -> None:
    """SPEC §5/§8 a round's ballots are shown when it is counted, not before."""
    v = village(EIGHT)
    v.act(1, A, 4)
    v.act(3, D, 5)
    run(v, [("vote", {2: 3})])
    assert vote_views(v.state) == []


def test_execution_then_poison_then_lovers_then_victory_then_night() -> None:
    """SPEC §5 the executed dies, poison's revenge and lovers' suicide follow, victory check,
    then night."""
    for seed in range(6):
        v = village(TWENTY_POISON_CUPID, options=Options(poison=True, cupid=True), seed=seed)
        v.act(13, C, 12, 15)
        v.act(1, A, 14)
        v.act(7, D, 6)
        v.lynch(12)
        died = [(e.seat_no, e.cause) for e in v.of_type(Died)][-3:]
        victim = next(no for no, c in died if c is DeathCause.POISONED)
        expected = ["executed", "poison_victim"] + (["lovers_suicide"] if victim != 15 else [])
        codes = v.codes()
        tail = codes[codes.index("executed") :]
        assert tail in ([*expected, "night"], [*expected, f"win_{v.state.winner}"])
