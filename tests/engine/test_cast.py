"""SPEC §3: the cast table, the options and their minimums, dealing and a fixed cast."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from villages.engine import game
from villages.engine.cast import (
    CAST_TABLE,
    DUMMY_FORBIDDEN,
    Cast,
    Options,
    TimeOptions,
    deal,
    role_counts,
    sub_role_count,
    validate_cast,
)
from villages.engine.errors import BadRequest, TooFewPlayers
from villages.engine.roles import Role, SubRole
from villages.engine.rules import Rules

from .harness import T0, expect_error, seated, unchanged, village

RULES = Rules()

# The seed's table, typed again here so that the engine's copy is checked against it.
SEED_TABLE = """
8 5 1 0 0 0 2 0 0 0
9 5 1 1 0 0 2 0 0 0
10 5 1 1 0 0 2 1 0 0
11 5 1 1 1 0 2 1 0 0
12 6 1 1 1 0 2 1 0 0
13 5 1 1 1 2 2 1 0 0
14 5 1 1 1 2 2 0 1 1
15 5 1 1 1 2 2 2 0 1
16 6 1 1 1 2 3 1 0 1
17 7 1 1 1 2 3 1 0 1
18 7 1 1 1 2 3 1 0 2
19 9 1 1 1 2 3 1 0 1
20 10 1 1 1 2 3 1 0 1
21 11 1 1 1 2 3 1 0 1
22 12 1 1 1 2 3 1 0 1
"""
COLUMNS = ["villager", "seer", "medium", "guard", "common", "wolf", "madman", "fanatic", "fox"]


def seed_row(n: int) -> dict[Role, int]:
    for line in SEED_TABLE.strip().splitlines():
        first, *counts = (int(x) for x in line.split())
        if first == n:
            return {Role(c): k for c, k in zip(COLUMNS, counts, strict=True) if k}
    raise KeyError(n)


def test_cast_table_is_the_seeds_table_exactly() -> None:
    """SPEC §3 the table is data, taken exactly as the seed gives it (rows 14, 15, 18 too)."""
    assert sorted(CAST_TABLE) == list(range(8, 23))
    for n, row in CAST_TABLE.items():
        assert row == seed_row(n), n
        assert sum(row.values()) == n


@pytest.mark.parametrize("n", [8, 14, 15, 18, 22])
def test_plain_deal_follows_the_row(n: int) -> None:
    """SPEC §3 roles are dealt at random from the row for N players."""
    cast = deal(list(range(1, n + 1)), Options(), RULES, random.Random(n))
    assert Counter(cast.roles.values()) == Counter(seed_row(n))
    assert all(not s for s in cast.sub_roles.values())


def test_cupid_replaces_one_villager_from_six_players() -> None:
    """SPEC §3 cupid (from CUPID_MIN_PLAYERS = 6): one villager becomes the cupid."""
    counts = role_counts(8, Options(cupid=True), RULES)
    assert counts[Role.CUPID] == 1 and counts[Role.VILLAGER] == seed_row(8)[Role.VILLAGER] - 1
    assert Role.CUPID not in role_counts(8, Options(cupid=True), Rules(cupid_min_players=16))


def test_poison_takes_two_villagers_for_a_poison_and_a_wolf_from_twenty() -> None:
    """SPEC §3 poison (from 20): villagers −2, poison +1, wolves +1; inactive below."""
    counts = role_counts(20, Options(poison=True), RULES)
    row = seed_row(20)
    assert counts[Role.VILLAGER] == row[Role.VILLAGER] - 2
    assert counts[Role.POISON] == 1 and counts[Role.WOLF] == row[Role.WOLF] + 1
    assert role_counts(19, Options(poison=True), RULES) == seed_row(19)


@pytest.mark.parametrize("option", ["decider", "authority"])
def test_sub_role_options_from_sixteen_players(option: str) -> None:
    """SPEC §3 decider and authority (from 16): a sub-role for one random player."""
    opts = Options(**{option: True})  # type: ignore[arg-type]
    assert sub_role_count(15, opts, RULES) == {}
    assert sub_role_count(16, opts, RULES) == {SubRole(option): 1}
    cast = deal(list(range(1, 17)), opts, RULES, random.Random(3))
    holders = [no for no, subs in cast.sub_roles.items() if SubRole(option) in subs]
    assert len(holders) == 1


def test_option_below_its_minimum_has_no_effect() -> None:
    """SPEC §3 an option whose minimum is not met is inactive and has no effect."""
    opts = Options(cupid=True, poison=True, decider=True, authority=True)
    active = opts.active(8, Rules(cupid_min_players=9))
    assert not (active.cupid or active.poison or active.decider or active.authority)
    v = village("wolf wolf seer cupid villager*4", options=opts)
    assert v.state.active == Options(cupid=True)  # cupid from 6 only


def test_real_time_phase_may_not_be_shorter_than_the_minimum() -> None:
    """SPEC §3 real time: lengths in seconds, never below MIN_PHASE_SECONDS."""
    short = Options(time=TimeOptions(realtime=True, day_seconds=59, night_seconds=120))
    with pytest.raises(BadRequest):
        game.new_village(capacity=8, options=short, rules=RULES, now=T0)
    ok = Options(time=TimeOptions(realtime=True, day_seconds=60, night_seconds=60))
    game.new_village(capacity=8, options=ok, rules=RULES, now=T0)


def test_dummy_boy_holds_seat_one_and_counts_as_a_player() -> None:
    """SPEC §3 dummy boy: seat 1 is held by the system and counts as one of the N."""
    state = seated(8, options=Options(dummy_boy=True))
    assert state.seat(1).dummy and len(state.seats) == 8  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", range(40))
def test_dummy_boy_is_never_dealt_wolf_fox_poison_cupid_or_a_sub_role(seed: int) -> None:
    """SPEC §3 the dummy boy is dealt any role but wolf, fox, poison and cupid, and no
    sub-role (decider/authority never go to the dummy boy)."""
    opts = Options(dummy_boy=True, cupid=True, poison=True, decider=True, authority=True)
    cast = deal(list(range(1, 21)), opts, RULES, random.Random(seed), dummy_seat=1)
    assert cast.roles[1] not in DUMMY_FORBIDDEN
    assert not cast.sub_roles.get(1)
    assert Counter(cast.roles.values()) == Counter(role_counts(20, opts, RULES))


def test_fixed_cast_must_be_legal_for_the_row_and_options() -> None:
    """SPEC §2.3 staff-fixed cast: a legal cast for the row and options, else bad_request."""
    seats = list(range(1, 9))
    good = {i + 1: r for i, r in enumerate([Role.WOLF] * 2 + [Role.SEER] + [Role.VILLAGER] * 5)}
    validate_cast(seats, Cast(good, {}), Options(), RULES)
    bad_casts = [
        Cast({**good, 8: Role.FOX}, {}),  # not the row
        Cast({k: v for k, v in good.items() if k != 8}, {}),  # a seat missing
        Cast(good, {3: frozenset({SubRole.DECIDER})}),  # decider inactive at 8
        Cast(good, {3: frozenset({SubRole.LOVERS})}),  # lovers are the cupid's choice
        Cast(good, {9: frozenset()}),  # no such seat
    ]
    for cast in bad_casts:
        with pytest.raises(BadRequest):
            validate_cast(seats, cast, Options(), RULES)
    with pytest.raises(BadRequest):  # the dummy boy may not be a wolf
        validate_cast(seats, Cast(good, {}), Options(dummy_boy=True), RULES, dummy_seat=1)
    state = seated(8)
    expect_error(BadRequest, game.fix_cast, state, cast=bad_casts[0], rules=RULES)
    fixed = unchanged(game.fix_cast, state, cast=Cast(good, {}), rules=RULES)
    assert fixed.fixed_cast == Cast(good, {})


def test_fixed_cast_is_dropped_when_the_seats_change() -> None:
    """SPEC §2.3 a fixed cast names seats: a new or departed seat voids it."""
    state = seated(7)
    good = {i + 1: r for i, r in enumerate([Role.WOLF] * 2 + [Role.SEER] + [Role.VILLAGER] * 5)}
    state, _ = game.sit(state, name="p8", rules=RULES, now=T0)
    fixed = game.fix_cast(state.state, cast=Cast(good, {}), rules=RULES)
    assert game.leave(fixed, seat_no=8, rules=RULES, now=T0).state.fixed_cast is None


def test_no_row_means_too_few_players() -> None:
    """SPEC §2.3/§3 a count without a row cannot start (too_few_players)."""
    with pytest.raises(TooFewPlayers):
        role_counts(7, Options(), RULES)
    state = seated(7)
    expect_error(TooFewPlayers, game.start_now, state, rules=RULES, rng=random.Random(0), now=T0)
