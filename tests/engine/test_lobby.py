"""SPEC §2: a village's life before and around the game — seats, start, kicks, end, 廃村."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from villages.engine import game
from villages.engine.cast import Options
from villages.engine.errors import (
    AlreadyVoted,
    BadRequest,
    Forbidden,
    InvalidTarget,
    NameTaken,
    TextEmpty,
    VillageFull,
    WrongPhase,
)
from villages.engine.events import GameOver, Kicked, MessageKind, Post, Started
from villages.engine.outcome import seat_result
from villages.engine.roles import Role, Team
from villages.engine.rules import Rules
from villages.engine.state import Phase

from .harness import T0, expect_error, seated, unchanged, village

RULES = Rules()


def _sit(state, name):  # type: ignore[no-untyped-def]
    step, no = unchanged(game.sit, state, name=name, rules=RULES, now=T0)
    return step.state, no


def _start_vote(state, no, rng=None):  # type: ignore[no-untyped-def]
    step, started = unchanged(
        game.vote_start, state, seat_no=no, rules=RULES, rng=rng or random.Random(0), now=T0
    )
    return step, started


def test_created_village_waits_with_its_capacity_and_options() -> None:
    """SPEC §2.1 created (募集中) with a capacity of 8–22 and options."""
    state = game.new_village(capacity=12, options=Options(cupid=True), rules=RULES, now=T0)
    assert state.phase is Phase.WAITING and state.capacity == 12 and state.options.cupid
    for bad in (7, 23):
        with pytest.raises(BadRequest):
            game.new_village(capacity=bad, options=Options(), rules=RULES, now=T0)


def test_seat_handle_name_is_unique_in_the_village() -> None:
    """SPEC §2.2 seats with a handle name unique in the village."""
    state, no = _sit(seated(1), "花子")
    assert no == 2 and state.seat(2).name == "花子"  # type: ignore[union-attr]
    expect_error(NameTaken, game.sit, state, name="花子", rules=RULES, now=T0)
    expect_error(NameTaken, game.sit, state, name=" 花子 ", rules=RULES, now=T0)
    expect_error(TextEmpty, game.sit, state, name="  ", rules=RULES, now=T0)


def test_no_seat_beyond_capacity() -> None:
    """SPEC §2.2 a seat per player up to the capacity."""
    state = seated(8)
    expect_error(VillageFull, game.sit, state, name="late", rules=RULES, now=T0)


def test_seated_player_may_leave_before_the_start_only() -> None:
    """SPEC §2.2 a seated player may leave before the start."""
    state = seated(8)
    step = unchanged(game.leave, state, seat_no=3, rules=RULES, now=T0)
    assert [x.no for x in step.state.seats] == [1, 2, 4, 5, 6, 7, 8]  # stable seat numbers
    assert [p.code for p in step.events if isinstance(p, Post)] == ["left"]
    v = village("wolf wolf seer villager*5")
    expect_error(WrongPhase, game.leave, v.state, seat_no=3, rules=RULES, now=T0)


def test_talk_before_the_start_is_public_and_free() -> None:
    """SPEC §2.2 seated players talk freely before the start; this costs no time."""
    state = seated(8)
    step = unchanged(game.talk, state, seat_no=2, text="よろしく" * 100, rules=RULES, now=T0)
    [post] = [e for e in step.events if isinstance(e, Post)]
    assert post.kind is MessageKind.TALK and post.cost == 0
    assert step.state.clock == state.clock  # last activity was already T0


def test_game_starts_when_every_seat_has_voted_and_the_count_has_a_row() -> None:
    """SPEC §2.3 all vote to start → roles dealt, each told, night 1 at once."""
    state = seated(8)
    for no in range(1, 8):
        step, started = _start_vote(state, no)
        state = step.state
        assert not started and state.phase is Phase.WAITING
    expect_error(
        AlreadyVoted, game.vote_start, state, seat_no=1, rules=RULES, rng=random.Random(0), now=T0
    )
    step, started = _start_vote(state, 8)
    assert started and step.state.phase is Phase.NIGHT and step.state.day == 1
    assert any(isinstance(e, Started) for e in step.events)
    assert all(x.role is not None for x in step.state.seats)
    codes = [e.code for e in step.events if isinstance(e, Post)]
    assert codes == ["game_start", "night"]


def test_start_needs_a_cast_table_row_not_a_full_village() -> None:
    """SPEC §2.3 the number seated needs a row in the cast table (not the capacity)."""
    state = game.new_village(capacity=12, options=Options(), rules=RULES, now=T0)
    for i in range(7):
        state, _ = _sit(state, f"p{i}")
    for x in state.seats:
        step, started = _start_vote(state, x.no)
        state = step.state
    assert not started and state.phase is Phase.WAITING  # 7 seated: no row
    state, no = _sit(state, "eighth")
    step, started = _start_vote(state, no)
    assert started and len(step.state.seats) == 8


def test_dummy_boy_counts_as_having_voted_to_start() -> None:
    """SPEC §2.3 the dummy boy counts as having voted."""
    state = seated(8, options=Options(dummy_boy=True))
    assert state.seat(1).dummy and state.seat(1).start_voted  # type: ignore[union-attr]
    for no in range(2, 9):
        step, started = _start_vote(state, no)
        state = step.state
    assert started


def test_fixed_cast_is_dealt_as_fixed() -> None:
    """SPEC §2.3 roles from a staff-fixed cast."""
    v = village("villager*5 seer wolf wolf")
    assert [x.role for x in v.state.seats][-3:] == [Role.SEER, Role.WOLF, Role.WOLF]


def test_three_kick_votes_by_others_remove_a_seat() -> None:
    """SPEC §2.4 a seat is removed when KICK_VOTES = 3 others have voted to kick it."""
    state = seated(8)
    for voter in (2, 3):
        (step, kicked) = unchanged(
            game.kick_vote, state, voter=voter, target=5, rules=RULES, now=T0
        )
        state = step.state
        assert not kicked
    expect_error(AlreadyVoted, game.kick_vote, state, voter=2, target=5, rules=RULES, now=T0)
    step, kicked = unchanged(game.kick_vote, state, voter=4, target=5, rules=RULES, now=T0)
    assert kicked and step.state.seat(5) is None
    assert Kicked(5) in step.events


def test_self_kick_is_at_once_and_staff_kick_at_once() -> None:
    """SPEC §2.4 a player may kick themself; staff kick at once."""
    state = seated(8)
    step, kicked = unchanged(game.kick_vote, state, voter=4, target=4, rules=RULES, now=T0)
    assert kicked and step.state.seat(4) is None
    step, kicked = unchanged(
        game.kick_vote, state, voter=None, target=6, rules=RULES, now=T0, staff=True
    )
    assert kicked and step.state.seat(6) is None


def test_kick_clears_every_start_vote() -> None:
    """SPEC §2.4 a kick clears every start vote (the dummy boy's stays)."""
    state = seated(9, options=Options(dummy_boy=True))
    for no in (2, 3, 4):
        state = _start_vote(state, no)[0].state
    step, _ = unchanged(game.kick_vote, state, voter=9, target=9, rules=RULES, now=T0)
    assert [x.no for x in step.state.seats if x.start_voted] == [1]


def test_each_kick_vote_is_a_public_line_and_the_kick_that_clears_start_votes_says_so() -> None:
    """SPEC §2.4 (issue 39, item 19) a kick vote is public, as the reference makes it: each
    vote is a system line naming who voted to kick whom; the kick itself is a line, and
    one that clears start votes says so in a line of its own."""
    state = seated(8)
    state = _start_vote(state, 6)[0].state
    lines: list[Post] = []
    for voter in (2, 3, 4):
        step, kicked = unchanged(game.kick_vote, state, voter=voter, target=5, rules=RULES, now=T0)
        state = step.state
        lines += [e for e in step.events if isinstance(e, Post)]
    assert kicked
    assert [(p.kind, p.code, dict(p.params)) for p in lines] == [
        (MessageKind.SYSTEM, "kick_vote", {"voter": "p2", "name": "p5"}),
        (MessageKind.SYSTEM, "kick_vote", {"voter": "p3", "name": "p5"}),
        (MessageKind.SYSTEM, "kick_vote", {"voter": "p4", "name": "p5"}),
        (MessageKind.SYSTEM, "kicked", {"name": "p5"}),
        (MessageKind.SYSTEM, "start_votes_cleared", {}),
    ]
    # Nothing to clear, nothing said of it; a self-kick is a leave, told by the kick's line.
    step, _ = unchanged(game.kick_vote, state, voter=7, target=7, rules=RULES, now=T0)
    assert [p.code for p in step.events if isinstance(p, Post)] == ["kicked"]


def test_dummy_boy_cannot_be_kicked_or_leave() -> None:
    """SPEC §2.4 the dummy boy cannot be kicked."""
    state = seated(8, options=Options(dummy_boy=True))
    expect_error(InvalidTarget, game.kick_vote, state, voter=2, target=1, rules=RULES, now=T0)
    expect_error(
        InvalidTarget, game.kick_vote, state, voter=None, target=1, rules=RULES, now=T0, staff=True
    )
    expect_error(Forbidden, game.leave, state, seat_no=1, rules=RULES, now=T0)


def test_kicked_seat_is_reported_for_the_service_to_bar_the_user() -> None:
    """SPEC §2.4 a kicked user may not sit again: the engine reports the kick (Kicked event);
    the users behind the seats are the service layer's (it bars them)."""
    state = seated(8)
    step, _ = unchanged(
        game.kick_vote, state, voter=None, target=3, rules=RULES, now=T0, staff=True
    )
    assert [e for e in step.events if isinstance(e, Kicked)] == [
        Kicked(3, by_staff=True)
    ]  # and by whom
    assert [p.code for p in step.events if isinstance(p, Post)] == ["kicked"]


def test_kick_votes_only_before_the_start() -> None:
    """SPEC §2.4 kick votes are before the start."""
    v = village("wolf wolf seer villager*5")
    expect_error(WrongPhase, game.kick_vote, v.state, voter=3, target=4, rules=RULES, now=T0)


def test_end_reveals_everything_and_talk_goes_on_free_and_public() -> None:
    """SPEC §2.6 at the end everything is revealed; players may go on talking (free, public);
    each player's result records role, team, win/loss, survival."""
    v = village("wolf wolf seer villager*5")
    v.act(1, game.Ability.ATTACK, 4)
    v.act(3, game.Ability.DIVINE, 1)
    v.lynch(1)
    v.act(2, game.Ability.ATTACK, 5)
    v.act(3, game.Ability.DIVINE, 2)
    v.lynch(2)
    assert v.state.phase is Phase.ENDED
    step = v.talk(4, "おつかれさまでした" * 30)  # a dead player, after the end
    [post] = [e for e in step.events if isinstance(e, Post)]
    assert post.kind is MessageKind.TALK and post.cost == 0
    result = seat_result(v.state, v.seat(1))
    assert result is not None and (result.team, result.won, result.survived) == (
        Team.WOLVES,
        False,
        False,
    )
    result = seat_result(v.state, v.seat(3))
    assert result is not None and (result.team, result.won, result.survived) == (
        Team.VILLAGE,
        True,
        True,
    )


def test_quiet_waiting_village_is_abandoned_with_no_winner() -> None:
    """SPEC §2.7 no activity for ABANDON_SECONDS while waiting → 廃村, no winner."""
    state = seated(8)
    rng = random.Random(0)
    quiet = T0 + timedelta(seconds=RULES.abandon_seconds - 1)
    step = unchanged(game.tick, state, rules=RULES, rng=rng, now=quiet)
    assert step.events == () and step.state.phase is Phase.WAITING
    assert game.next_deadline(state, RULES) == T0 + timedelta(seconds=RULES.abandon_seconds)
    step = unchanged(game.tick, state, rules=RULES, rng=rng, now=quiet + timedelta(seconds=1))
    s = step.state
    assert s.phase is Phase.ENDED and s.abandoned and s.winner is None
    assert GameOver(None) in step.events
    assert [p.code for p in step.events if isinstance(p, Post)] == ["abandoned"]
    assert game.next_deadline(s, RULES) is None


def test_staff_abandoning_says_it_was_the_staff_not_a_quiet_village() -> None:
    """SPEC §11c 廃村 by an admin: its own line, whatever the phase; nobody wins."""
    state = seated(8)
    step = unchanged(game.abandon, state, rules=RULES, now=T0 + timedelta(seconds=5))
    assert step.state.phase is Phase.ENDED and step.state.abandoned
    assert step.state.winner is None and GameOver(None) in step.events
    assert [p.code for p in step.events if isinstance(p, Post)] == ["abandoned_by_staff"]


def test_activity_while_waiting_postpones_abandoning() -> None:
    """SPEC §2.7 activity (a seat, talk, a start vote) restarts the quiet period."""
    state = seated(3)
    later = T0 + timedelta(seconds=1000)
    for command in (
        lambda s: game.sit(s, name="new", rules=RULES, now=later)[0].state,
        lambda s: game.talk(s, seat_no=2, text="hi", rules=RULES, now=later).state,
        lambda s: (
            game.vote_start(s, seat_no=2, rules=RULES, rng=random.Random(0), now=later)[0].state
        ),
    ):
        moved = command(state)
        assert game.next_deadline(moved, RULES) == later + timedelta(seconds=RULES.abandon_seconds)


def test_seat_numbers_are_never_reused_after_a_leave_or_a_kick() -> None:
    """SPEC §2.2 seats are numbered in the order of sitting and stay stable: a departed or
    kicked seat's number is not given again (its lines and records stay its own)."""
    state = seated(8, capacity=10)
    state = unchanged(game.leave, state, seat_no=8, rules=RULES, now=T0).state
    state, no = _sit(state, "newcomer")
    assert no == 9
    step, _ = unchanged(
        game.kick_vote, state, voter=None, target=9, rules=RULES, now=T0, staff=True
    )
    state, no = _sit(step.state, "another")
    assert no == 10 and [x.no for x in state.seats] == [1, 2, 3, 4, 5, 6, 7, 10]


def test_dummy_boy_never_votes_to_kick_nor_speaks_in_heaven() -> None:
    """SPEC §3 the dummy boy never speaks or votes."""
    state = seated(8, options=Options(dummy_boy=True))
    expect_error(Forbidden, game.kick_vote, state, voter=1, target=3, rules=RULES, now=T0)
    v = village("villager wolf wolf seer villager*4", options=Options(dummy_boy=True))
    v.act(2, game.Ability.ATTACK, 1)
    v.act(4, game.Ability.DIVINE, 5)
    assert not v.seat(1).alive
    expect_error(
        Forbidden, game.talk, v.state, seat_no=1, text="x", heaven=True, rules=RULES, now=T0
    )
    expect_error(Forbidden, game.object_, v.state, seat_no=1, rules=RULES, now=T0)


def test_a_leave_that_leaves_everyone_voted_starts_the_game() -> None:
    """SPEC §2.3 when all (seated) have voted and the number has a row, the game starts at
    once — also when the last one who had not voted leaves."""
    state = seated(9)
    for no in range(1, 9):
        state = _start_vote(state, no)[0].state
    step = unchanged(game.leave, state, seat_no=9, rules=RULES, now=T0, rng=random.Random(0))
    assert step.state.phase is Phase.NIGHT and len(step.state.seats) == 8
    assert any(isinstance(e, Started) for e in step.events)
    # Without a random source to deal with, the votes are cleared rather than stuck.
    step = unchanged(game.leave, state, seat_no=9, rules=RULES, now=T0)
    assert step.state.phase is Phase.WAITING
    assert not any(x.start_voted for x in step.state.seats)
    step, started = _start_vote(step.state, 1)
    assert not started
