"""The bots decide from their seat's view alone (villages/bots; pure, like the engine)."""

from __future__ import annotations

import dataclasses
import random
from itertools import permutations

import pytest

from villages import bots
from villages.bots import Act, BotView, Command, Say, Vote, Wait, bot_view
from villages.bots.hearing import SEER, claims, names_of
from villages.bots.hearing import Said as Heard
from villages.bots.lines import LINES, code_of, word
from villages.bots.reasoning import LATE_SHARE
from villages.engine.cast import Options, TimeOptions
from villages.engine.events import Post
from villages.engine.roles import Role
from villages.engine.state import Ability, GameState, Phase

from .harness import Village, village

ROLES = "wolf wolf seer medium guard villager villager villager villager villager madman"
REAL = Options(time=TimeOptions(realtime=True, day_seconds=600, night_seconds=300))


def day_two() -> Village:
    v = village(ROLES, seed=3)
    v.act(1, Ability.ATTACK, 11)  # the madman is bitten
    v.act(3, Ability.DIVINE, 6)
    assert v.state.phase is Phase.DAY
    bot_says(v, 3, Say("seer_claim", {"name": v.state.seats[5].name, "result": "human"}))
    v.talk(7, "おはようございます")
    return v


def bot_says(v: Village, seat: int, line: Say) -> None:
    """A bot's line as the services say it: its text, with its code and params kept."""
    text = word(line.key, line.params, "ja")
    v.talk(seat, text, wording=(code_of(line.key), tuple(line.params.items())))


def view_of(state: GameState, v: Village, seat: int) -> BotView:
    lines = [e for e in v.events if isinstance(e, Post)]
    view = bot_view(state, seat, lines, v.rules, v.now)
    assert view is not None
    return view


def hidden_to(view: BotView) -> list[int]:
    """Seats whose role the viewer does not know and about which it holds no result."""
    told = {r.target for r in view.me.results}
    return [
        s.no
        for s in view.seats
        if s.role is None and s.no not in told and s.no != view.me.seat_no and s.alive
    ]


def with_roles(state: GameState, roles: dict[int, Role]) -> GameState:
    new = state.clone()
    new.seats = [dataclasses.replace(s, role=roles.get(s.no, s.role)) for s in new.seats]
    return new


@pytest.mark.parametrize("strategy", sorted(bots.STRATEGIES))
@pytest.mark.parametrize("seat", [3, 6, 1])  # the seer, a villager, a wolf
def test_the_same_view_with_the_hidden_roles_permuted_gives_the_same_decision(strategy, seat):
    v = day_two()
    view = view_of(v.state, v, seat)
    hidden = hidden_to(view)
    assert len(hidden) >= 3
    roles = {no: v.state.seat(no).role for no in hidden}  # type: ignore[union-attr]
    tried = 0
    for order in list(permutations(hidden))[:40]:
        permuted = with_roles(
            v.state, {no: roles[old] for no, old in zip(hidden, order, strict=True)}
        )
        other = view_of(permuted, v, seat)
        if other != view:  # a permutation that shows: not the same view (never, here)
            continue
        tried += 1
        decide = bots.STRATEGIES[strategy]
        assert decide(view, random.Random(7)) == decide(other, random.Random(7))
    assert tried >= 10


def test_a_seers_view_changes_when_the_seat_it_divined_changes_role():
    """The property above is not empty: what a seat knows does reach its view."""
    v = day_two()
    view = view_of(v.state, v, 3)
    swapped = with_roles(v.state, {6: Role.WOLF, 1: Role.VILLAGER})
    assert view_of(swapped, v, 3) != view


def test_bots_act_only_within_the_rules_at_night():
    v = village(ROLES, seed=1)
    for seat in range(1, 12):
        view = view_of(v.state, v, seat)
        for strategy in bots.STRATEGIES.values():
            for command in strategy(view, random.Random(seat)):
                if not isinstance(command, Act):  # a wolf's whisper to its pack, a wait
                    assert isinstance(command, Say | Wait) and view.me.role is Role.WOLF
                    continue
                assert command.ability in view.duties
                assert seat not in command.targets
                if command.ability == "attack":
                    assert set(command.targets).isdisjoint({1, 2})
    v.act(1, Ability.ATTACK, 11)
    v.act(3, Ability.DIVINE, 6)
    view = view_of(v.state, v, 5)  # the guard guards from night 2 only
    assert view.phase is Phase.DAY and "guard" not in view.duties


def test_a_dead_bot_decides_nothing():
    v = day_two()
    view = view_of(v.state, v, 11)
    assert not view.me.alive
    for strategy in bots.STRATEGIES.values():
        assert strategy(view, random.Random(1)) == []


def late_in_the_day(v: Village) -> None:
    """Others talk until less than the later part's share of the day's virtual time is left."""
    while v.state.clock.virtual_left >= LATE_SHARE * v.rules.day_virtual_seconds:
        v.talk(7, "a" * 400)


def say_all(v: Village, seat: int, commands: list[Command]) -> None:
    for command in commands:
        if isinstance(command, Say):
            bot_says(v, seat, command)


def test_the_reasoning_bot_greets_then_votes_late_and_a_villager_follows_a_lone_seer():
    v = day_two()
    bot_says(v, 3, Say("seer_result", {"name": v.state.seats[1].name, "result": "wolf"}))
    decide = bots.STRATEGIES["reasoning"]
    first = decide(view_of(v.state, v, 6), random.Random(1))
    assert [type(c) for c in first] == [Say, Wait]  # a greeting; the vote waits
    say_all(v, 6, first)
    late_in_the_day(v)
    second = decide(view_of(v.state, v, 6), random.Random(1))
    assert second[-1] == Vote(2)  # the seer called seat 2 a wolf
    said = [c for c in second if isinstance(c, Say)]
    assert said and said[0].key in ("mourn", "vote_black")


def test_a_guard_bot_takes_its_guard_that_held_for_no_reading():
    """A guard's "guarded" (SPEC §4) is not a 人/狼 reading: the guard bot does not call a
    seer a liar for saying "human" of the seat it guarded, and follows that lone seer."""
    v = day_two()  # the seer claimed seat 6 human
    v.lynch(10)
    v.act(5, Ability.GUARD, 6)
    v.act(3, Ability.DIVINE, 1)
    v.act(1, Ability.ATTACK, 6)
    assert v.state.phase is Phase.DAY and v.seat(6).alive
    assert [(r.ability, r.result) for r in view_of(v.state, v, 5).me.results] == [
        ("guard", "guarded")
    ]
    bot_says(v, 3, Say("seer_result", {"name": v.state.seats[0].name, "result": "wolf"}))
    decide = bots.STRATEGIES["reasoning"]
    say_all(v, 5, decide(view_of(v.state, v, 5), random.Random(1)))
    late_in_the_day(v)
    second = decide(view_of(v.state, v, 5), random.Random(1))
    assert second[-1] == Vote(1), second


# -- When a bot votes (issue 32, item 5) ------------------------------------------------


def _looks(v: Village, seat: int, n: int) -> list[Command]:
    """`n` looks of `seat`'s reasoning bot, its lines said; every command it gave."""
    decide = bots.STRATEGIES["reasoning"]
    given: list[Command] = []
    for look in range(n):
        commands = decide(view_of(v.state, v, seat), random.Random(look))
        say_all(v, seat, commands)
        given += commands
    return given


@pytest.mark.parametrize("seat", [1, 3, 4, 6])  # a wolf, the seer (who claims), the medium, …
def test_a_bot_does_not_vote_at_dawn_but_talks_and_waits(seat):
    v = day_two()
    given = _looks(v, seat, 3)
    assert not [c for c in given if isinstance(c, Vote)], given
    assert [c for c in given if isinstance(c, Say)]  # it talks first
    assert isinstance(given[-1], Wait) and given[-1].seconds is None  # for a change (talk)


def test_a_bot_votes_once_the_other_people_have_voted():
    v = day_two()
    _looks(v, 6, 2)
    others = [x.no for x in v.voters() if x.no != 6]
    for voter in others[:-1]:  # all but one: still half of them, so it votes
        v.vote(voter, 6 if voter != 6 else 7)
    assert any(isinstance(c, Vote) for c in _looks(v, 6, 1))


def test_a_bot_waits_while_fewer_than_half_of_the_others_have_voted():
    v = day_two()
    _looks(v, 6, 2)
    others = [x.no for x in v.voters() if x.no != 6]
    for voter in others[: (len(others) - 1) // 2]:
        v.vote(voter, 6)
    assert not any(isinstance(c, Vote) for c in _looks(v, 6, 1))


def test_a_bot_votes_in_the_later_part_of_the_day():
    v = day_two()
    _looks(v, 6, 2)
    late_in_the_day(v)
    assert any(isinstance(c, Vote) for c in _looks(v, 6, 1))


def test_a_bot_votes_when_the_time_is_up():
    v = day_two()
    while v.state.clock.time_up_at is None:
        v.tick(60)  # silence
    view = view_of(v.state, v, 6)
    assert view.time_up
    assert any(isinstance(c, Vote) for c in bots.STRATEGIES["reasoning"](view, random.Random(0)))


def test_in_real_time_a_bot_sets_its_alarm_for_the_later_part_and_votes_then():
    """A real-time day's later part comes with no change: the bot asks to look again then
    (a Wait with seconds), which is well before the deadline, and votes at that look."""
    v = village(ROLES, seed=3, options=REAL)
    v.act(1, Ability.ATTACK, 11)
    v.act(3, Ability.DIVINE, 6)
    assert v.state.phase is Phase.DAY
    [*_, wait] = _looks(v, 6, 2)
    assert isinstance(wait, Wait) and wait.seconds is not None
    assert 600 * (1 - LATE_SHARE) <= wait.seconds < 600 - 60  # before the deadline's hurry
    v.advance(wait.seconds - 5)
    assert not any(isinstance(c, Vote) for c in _looks(v, 6, 1))
    v.advance(5)
    assert any(isinstance(c, Vote) for c in _looks(v, 6, 1))


def test_claims_are_read_back_in_either_language():
    names = names_of([(1, "ハルカ(ボット)"), (2, "p2")])
    for language in ("ja", "en"):
        text = word("seer_claim", {"name": "ハルカ(ボット)", "result": "wolf"}, language)
        (claim,) = claims((Heard(0, 2, text),), names, frozenset()).values()
        assert claim.role == SEER and [(r.target, r.result) for r in claim.readings] == [
            (1, "wolf")
        ]
    assert set(LINES) >= {"greet", "seer_claim", "seer_result", "medium_result", "mourn"}


def test_a_bot_never_says_the_same_line_twice_in_a_day():
    """Each look is decided with a fresh RNG (the village's version changes between
    looks), so a wolf may decide to claim seer at any look: its day's plan must not
    shift so that a line it said comes round again."""
    decide = bots.STRATEGIES["reasoning"]
    repeats = []
    for seed in range(60):
        v = village(ROLES, seed=3)
        v.act(1, Ability.ATTACK, 11)
        v.act(3, Ability.DIVINE, 6)  # day 2; nobody has claimed
        for seat in (1, 2, 6):  # the wolves and a villager
            said: list[str] = []
            for look in range(6):
                for command in decide(view_of(v.state, v, seat), random.Random(f"{seed}:{look}")):
                    if isinstance(command, Say):
                        said.append(word(command.key, command.params, "ja"))
                        bot_says(v, seat, command)
                    elif isinstance(command, Vote):
                        v.vote(seat, command.target)
            if len(said) != len(set(said)):
                repeats.append((seed, seat, said))
    assert not repeats, repeats[:3]


def test_a_bot_sees_a_system_line_as_its_code_and_params():
    v = day_two()
    view = view_of(v.state, v, 6)
    today = [(x.code, dict(x.params)) for x in view.lines if x.code and x.day == view.day]
    assert ("found_dead", {"name": "p11"}) in today and ("morning", {"day": "2"}) in today
    spoken = {x.text: (x.code, dict(x.params)) for x in view.lines if x.seat_no is not None}
    assert spoken["おはようございます"] == ("", {})  # a person's words: no code
    assert [code for code, _ in spoken.values() if code] == ["bot_seer_claim"]  # a bot's line


def _said_today(v: Village, seat: int) -> list[Say]:
    """What `seat`'s reasoning bot says over six looks of the day (one line a look)."""
    decide = bots.STRATEGIES["reasoning"]
    said: list[Say] = []
    for look in range(6):
        for command in decide(view_of(v.state, v, seat), random.Random(look)):
            if isinstance(command, Say):
                said.append(command)
                bot_says(v, seat, command)
            elif isinstance(command, Vote):
                v.vote(seat, command.target)
    return said


def test_the_reasoning_bot_mourns_whom_the_mornings_death_lines_name_and_no_one_else():
    """The night's victim is read from the line's code and the name it gives: p1, executed
    the day before, is not mourned when this morning finds p11 (whose name holds p1's)."""
    v = village(ROLES, seed=3)
    v.act(1, Ability.ATTACK, 10)
    v.act(3, Ability.DIVINE, 6)
    v.lynch(1)  # day 2: wolf p1 executed
    v.act(2, Ability.ATTACK, 11)
    v.act(3, Ability.DIVINE, 7)
    v.act(5, Ability.GUARD, 3)
    assert v.state.phase is Phase.DAY and v.state.day == 3
    assert {x.no for x in v.state.seats if not x.alive} == {1, 10, 11}
    mourned = [s.params["name"] for s in _said_today(v, 6) if s.key == "mourn"]
    assert mourned == ["p11"]
