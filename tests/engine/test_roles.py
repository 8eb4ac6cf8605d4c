"""SPEC §4: every role and sub-role."""

from __future__ import annotations

import pytest

from villages.engine.cast import Options
from villages.engine.choices import choice
from villages.engine.errors import AlreadyActed, InvalidTarget, NotYourAbility, WrongPhase
from villages.engine.events import MessageKind, Post
from villages.engine.outcome import seat_result, winner_of
from villages.engine.roles import ROLE_TEAM, Role, SubRole, Team, Winner
from villages.engine.state import Ability, DeathCause, Phase
from villages.engine.visibility import ability_results, me_view, partners

from .harness import Village, run, village

A, D, G, C = Ability.ATTACK, Ability.DIVINE, Ability.GUARD, Ability.CUPID
EIGHT = "wolf wolf seer villager*5"
FOURTEEN = "wolf wolf fanatic fox seer medium guard common common villager*5"
FIFTEEN = "wolf wolf madman madman fox seer medium guard common common villager*5"
TWENTY_POISON = "wolf*4 madman fox seer medium guard common common poison villager*8"
TWENTY_POISON_CUPID = "wolf*4 madman fox seer medium guard common common poison cupid villager*7"


def results(v: Village, seat: int) -> list[tuple[int, str, int, str | None]]:
    return [(r.day, r.ability, r.target, r.result) for r in ability_results(v.state, seat)]


def test_teams_are_as_listed() -> None:
    """SPEC §4 teams: village, wolves (wolf, madman, fanatic), fox, lovers (cupid)."""
    village_roles = {Role.VILLAGER, Role.SEER, Role.MEDIUM, Role.GUARD, Role.COMMON, Role.POISON}
    assert {r for r, t in ROLE_TEAM.items() if t is Team.VILLAGE} == village_roles
    assert {r for r, t in ROLE_TEAM.items() if t is Team.WOLVES} == {
        Role.WOLF,
        Role.MADMAN,
        Role.FANATIC,
    }
    assert ROLE_TEAM[Role.FOX] is Team.FOX and ROLE_TEAM[Role.CUPID] is Team.LOVERS


def test_villager_has_no_ability() -> None:
    """SPEC §4 villager: no ability."""
    v = village(EIGHT)
    for ability in Ability:
        run(
            v,
            [
                (
                    "raises",
                    NotYourAbility,
                    (ability.value, 4, 5) if ability is not C else ("cupid", 4, 4, 5),
                )
            ],
        )


def test_seer_learns_human_or_wolf_next_morning() -> None:
    """SPEC §4 seer: divines a living player at night; learns 人/狼 the next morning."""
    v = village(EIGHT)
    v.act(3, D, 1)
    assert results(v, 3) == []  # not before the morning
    v.act(1, A, 4)
    assert results(v, 3) == [(1, "divine", 1, "wolf")]


def test_only_wolves_show_wolf_to_the_seer() -> None:
    """SPEC §4 madman, fanatic, fox, medium show 'human'."""
    v = village(FOURTEEN)
    v.act(5, D, 3)  # fanatic
    v.act(1, A, 10)
    v.lynch(10 + 1)
    v.act(5, D, 6)  # medium
    v.act(7, G, 5)
    v.act(1, A, 12)
    assert results(v, 5) == [(1, "divine", 3, "human"), (2, "divine", 6, "human")]
    v2 = village(FIFTEEN)
    v2.act(6, D, 3)  # madman
    v2.act(1, A, 11)
    assert results(v2, 6) == [(1, "divine", 3, "human")]


def test_divining_the_fox_kills_it_as_an_ordinary_death() -> None:
    """SPEC §4 divining the fox kills the fox (呪殺), reported in the morning as an ordinary
    death; the seer's result is 'human'."""
    v = village(FOURTEEN)
    v.act(5, D, 4)
    v.act(1, A, 10)
    assert v.deaths() == {10: DeathCause.ATTACKED, 4: DeathCause.DIVINED}
    posts = [p for p in v.posts() if p.code == "found_dead"]
    assert {dict(p.params)["name"] for p in posts} == {"p4", "p10"}
    assert results(v, 5) == [(1, "divine", 4, "human")]


EIGHTEEN_CUPID = "wolf*3 madman fox fox seer medium guard common common cupid villager*6"
# 1-3 wolves, 4 madman, 5 6 foxes, 7 seer, 8 medium, 9 guard, 10 11 commons, 12 cupid


def test_a_seer_bitten_the_night_it_divines_divines_nothing_and_the_fox_lives() -> None:
    """SPEC §4/§5 a seer killed by the wolves that same night divines nothing: no result,
    and the fox it chose lives (as 人狼式 resolves it)."""
    v = village(FOURTEEN)
    v.act(5, D, 4)  # the fox
    v.act(1, A, 5)  # the seer
    assert v.deaths() == {5: DeathCause.ATTACKED}
    assert v.seat(4).alive
    assert [p.code for p in v.posts()][-2:] == ["morning", "found_dead"]
    assert results(v, 5) == []


def test_a_seer_who_follows_a_lover_bitten_that_night_has_divined() -> None:
    """SPEC §5 order: the lovers follow after the divination, so a seer who dies as a lover
    at that dawn has divined: the fox dies and the seer's result stands."""
    v = village(EIGHTEEN_CUPID, options=Options(cupid=True))
    v.act(12, C, 7, 13)
    v.act(1, A, 13)
    v.act(7, D, 5)
    assert v.deaths() == {
        13: DeathCause.ATTACKED,
        5: DeathCause.DIVINED,
        7: DeathCause.LOVERS,
    }
    assert results(v, 7) == [(1, "divine", 5, "human")]


def test_a_seer_dead_before_the_dawn_divines_nothing() -> None:
    """SPEC §5 only a seer still alive at its turn divines: a seer who followed a lover dead
    of sudden death before the dawn divines nothing, and the fox it chose lives."""
    v = village(EIGHTEEN_CUPID, options=Options(cupid=True))
    v.act(12, C, 7, 9)  # the seer and the guard
    v.act(1, A, 13)
    v.act(7, D, 14)
    v.lynch(15)
    v.act(7, D, 5)  # the fox
    v.act(2, A, 16)
    for _ in range(3):  # the guard never guards: silence runs the night out
        v.tick(60)
    v.tick(180)
    assert v.seat(9).death_cause is DeathCause.SUDDEN
    assert v.seat(7).death_cause is DeathCause.LOVERS
    assert v.state.phase is Phase.DAY and v.state.day == 3
    assert v.seat(5).alive
    assert results(v, 7) == [(1, "divine", 14, "human")]


def test_a_bitten_poison_still_takes_a_wolf_though_a_bitten_seer_divines_nothing() -> None:
    """SPEC §4: the dead act no more that night (a bitten seer divines nothing), but the
    poison's revenge stays: a bitten poison takes a random living wolf."""
    v = village(TWENTY_POISON, options=Options(poison=True))
    v.act(1, A, 12)  # the poison
    v.act(7, D, 13)
    poisoned = [no for no, c in v.deaths().items() if c is DeathCause.POISONED]
    assert len(poisoned) == 1 and v.seat(poisoned[0]).role is Role.WOLF
    v.lynch(14)
    wolf = next(w for w in (1, 2, 3, 4) if v.seat(w).alive)
    v.act(9, G, 8)
    v.act(7, D, 6)  # the fox
    v.act(wolf, A, 7)  # the seer
    assert v.seat(7).death_cause is DeathCause.ATTACKED and v.seat(6).alive
    assert results(v, 7) == [(1, "divine", 13, "human")]


def test_medium_reads_the_days_executed_from_the_next_morning() -> None:
    """SPEC §4 medium: from day 2, learns next morning whether that day's executed was
    human or wolf."""
    v = village(FOURTEEN)
    v.act(5, D, 10)
    v.act(1, A, 11)
    v.lynch(1)
    assert results(v, 6) == []  # the same evening: nothing yet
    v.act(2, A, 12)
    v.act(5, D, 13)
    v.act(7, G, 5)
    assert results(v, 6) == [(2, "medium", 1, "wolf")]
    v.lynch(3)  # the fanatic
    v.act(2, A, 13)
    v.act(5, D, 14)
    v.act(7, G, 5)
    assert results(v, 6) == [(2, "medium", 1, "wolf"), (3, "medium", 3, "human")]


def test_medium_reads_only_the_executed_not_the_poison_victim() -> None:
    """SPEC §4 medium reads the executed player, not whoever died with them."""
    v = village(TWENTY_POISON, options=Options(poison=True))
    v.act(1, A, 13)
    v.act(7, D, 14)
    v.lynch(12)  # the poison
    poisoned = next(no for no, c in v.deaths().items() if c is DeathCause.POISONED)
    wolf = next(w for w in (1, 2, 3, 4) if v.seat(w).alive)
    prey = next(no for no in (15, 16, 17, 18) if v.seat(no).alive)
    v.act(wolf, A, prey)
    for seat, ability, target in ((7, D, 19), (9, G, 7)):
        if v.seat(seat).alive:
            v.act(seat, ability, target)
    if v.state.phase is Phase.ENDED or poisoned == 8:
        pytest.skip("the poison took the medium or ended the game")
    mediums = [r for r in ability_results(v.state, 8) if r.ability == "medium"]
    assert [(r.day, r.target) for r in mediums] == [(2, 12)]


def test_guard_protects_from_night_two_only_and_not_themself() -> None:
    """SPEC §4 guard: from night 2, protects one other living player."""
    v = village(FOURTEEN)
    run(v, [("raises", WrongPhase, ("guard", 7, 5))])
    v.act(1, A, 10)
    v.act(5, D, 1)
    v.lynch(1)
    run(
        v, [("raises", InvalidTarget, ("guard", 7, 7)), ("raises", InvalidTarget, ("guard", 7, 10))]
    )
    v.act(7, G, 11)
    v.act(2, A, 11)
    v.act(5, D, 2)
    assert v.seat(11).alive and [p.code for p in v.posts()][-2:] == ["morning", "peaceful"]
    assert results(v, 7) == [(2, "guard", 11, "guarded")]


def test_guard_is_told_it_held_exactly_when_the_wolves_attacked_its_charge() -> None:
    """SPEC §4 guard: told the next morning that the guard held (「○○さんを人狼の襲撃から
    護衛しました」) when the wolves attacked the guarded player, the fox too; a charge dead
    of sudden death before the dawn was never attacked, and the guard is told only whom it
    guarded."""
    v = village(FOURTEEN)
    v.act(1, A, 10)
    v.act(5, D, 11)
    v.lynch(12)
    v.act(7, G, 4)  # the fox, whom the wolves then attack
    v.act(5, D, 13)
    v.act(1, A, 4)
    assert results(v, 7) == [(2, "guard", 4, "guarded")]
    v.lynch(13)
    v.act(7, G, 5)  # the seer, who never divines tonight and dies of it before the dawn
    v.act(1, A, 5)
    for _ in range(3):
        v.tick(60)
    v.tick(180)
    assert v.seat(5).death_cause is DeathCause.SUDDEN and v.state.phase is Phase.DAY
    assert results(v, 7) == [(2, "guard", 4, "guarded"), (3, "guard", 5, None)]


def test_guard_dies_when_the_wolves_attack_the_guard() -> None:
    """SPEC §4 the guard dies if the wolves attack the guard, and is told nothing of that
    night."""
    v = village(FOURTEEN)
    v.act(1, A, 10)
    v.act(5, D, 1)
    v.lynch(1)
    v.act(7, G, 5)
    v.act(2, A, 7)
    v.act(5, D, 2)
    assert v.seat(7).death_cause is DeathCause.ATTACKED
    assert results(v, 7) == []


def test_commons_know_each_other_and_whisper_at_night() -> None:
    """SPEC §4 commons (a pair) know each other; their night talk is shared."""
    v = village(FOURTEEN)
    assert partners(v.state, 8) == [9] and partners(v.state, 9) == [8]
    step = v.talk(8, "共有です")
    [post] = [e for e in step.events if isinstance(e, Post)]
    assert post.kind is MessageKind.COMMON


def test_executed_poison_takes_a_random_other_living_player() -> None:
    """SPEC §4 poison executed → one random living player (other than the poison) dies."""
    victims = set()
    for seed in range(12):
        v = village(TWENTY_POISON, options=Options(poison=True), seed=seed)
        v.act(1, A, 13)
        v.act(7, D, 14)
        v.lynch(12)
        poisoned = [no for no, c in v.deaths().items() if c is DeathCause.POISONED]
        assert len(poisoned) == 1 and poisoned[0] not in (12, 13)
        victims.add(poisoned[0])
        assert "poison_victim" in v.codes()
    assert len(victims) > 1  # random, not a fixed seat


def test_bitten_poison_takes_a_random_living_wolf() -> None:
    """SPEC §4 poison killed by the wolves → one random living wolf dies with them."""
    taken = set()
    for seed in range(12):
        v = village(TWENTY_POISON, options=Options(poison=True), seed=seed)
        v.act(2, A, 12)
        v.act(7, D, 14)
        poisoned = [no for no, c in v.deaths().items() if c is DeathCause.POISONED]
        assert len(poisoned) == 1 and v.seat(poisoned[0]).role is Role.WOLF
        taken.add(poisoned[0])
    assert len(taken) > 1  # any living wolf, not only the one who chose


def test_guarded_poison_takes_nobody() -> None:
    """SPEC §4/§5 an attack that fails kills nobody, so no revenge."""
    v = village(TWENTY_POISON, options=Options(poison=True))
    v.act(1, A, 13)
    v.act(7, D, 14)
    v.lynch(14 + 1)
    v.act(9, G, 12)
    v.act(1, A, 12)
    v.act(7, D, 16)
    assert v.seat(12).alive and all(v.seat(w).alive for w in (1, 2, 3, 4))


def test_poison_dying_as_a_lover_or_suddenly_takes_nobody() -> None:
    """SPEC §4 a poison who dies by a lover's suicide or sudden death takes nobody."""
    v = village(TWENTY_POISON_CUPID, options=Options(poison=True, cupid=True))
    v.act(13, C, 12, 14)
    v.act(1, A, 14)
    v.act(7, D, 15)
    assert v.deaths() == {14: DeathCause.ATTACKED, 12: DeathCause.LOVERS}
    v2 = village(TWENTY_POISON, options=Options(poison=True))
    v2.act(1, A, 13)
    v2.act(7, D, 14)
    run(v2, [("vote", {x: 2 for x in v2.living() if x not in (2, 12)}), ("vote", {2: 3})])
    for _ in range(12):
        v2.tick(60)
    v2.tick(180)
    assert v2.seat(12).death_cause is DeathCause.SUDDEN
    assert not any(c is DeathCause.POISONED for c in v2.deaths().values())


def test_wolves_know_each_other_and_the_first_choice_is_the_packs() -> None:
    """SPEC §4 wolves know each other; the first wolf's choice is the pack's."""
    v = village(FOURTEEN)
    assert partners(v.state, 1) == [2] and partners(v.state, 2) == [1]
    v.act(1, A, 10)
    run(v, [("raises", AlreadyActed, ("attack", 2, 11))])
    view = me_view(v.state, 2)
    assert view is not None and view.action_done
    v.act(5, D, 11)
    assert v.deaths() == {10: DeathCause.ATTACKED}


def test_wolves_cannot_attack_wolves_but_may_attack_madman_and_fanatic() -> None:
    """SPEC §4/§5 the wolves attack a living non-wolf."""
    v = village(FOURTEEN)
    run(v, [("raises", InvalidTarget, ("attack", 1, 2)), ("attack", 1, 3), ("divine", 5, 10)])
    assert v.deaths() == {3: DeathCause.ATTACKED}


def test_dummy_boy_must_be_the_night_one_target() -> None:
    """SPEC §4 on night 1 with the dummy boy, the target must be the dummy boy."""
    v = village("villager wolf wolf seer villager*4", options=Options(dummy_boy=True))
    run(v, [("raises", InvalidTarget, ("attack", 2, 4)), ("attack", 3, 1), ("divine", 4, 5)])
    assert v.deaths() == {1: DeathCause.ATTACKED}


def test_madman_is_wolf_team_counted_human_and_knows_nothing() -> None:
    """SPEC §4 madman: wolf team, a human everywhere, knows nothing."""
    v = village(FIFTEEN)
    assert partners(v.state, 3) == [] and ROLE_TEAM[Role.MADMAN] is Team.WOLVES
    step = v.talk(3, "独り言")
    assert [e.kind for e in step.events if isinstance(e, Post)] == [MessageKind.MONOLOGUE]


def test_fanatic_knows_the_wolves_who_do_not_know_the_fanatic() -> None:
    """SPEC §4 fanatic: told who the wolves are; the wolves are not told; no night talk."""
    v = village(FOURTEEN)
    assert partners(v.state, 3) == [1, 2]
    assert 3 not in partners(v.state, 1) and 3 not in partners(v.state, 2)
    step = v.talk(3, "狼様")
    assert [e.kind for e in step.events if isinstance(e, Post)] == [MessageKind.MONOLOGUE]


def test_fox_survives_the_attack_as_a_peaceful_night() -> None:
    """SPEC §4 fox: the attack simply fails, reported as a peaceful night."""
    v = village(FOURTEEN)
    v.act(1, A, 4)
    v.act(5, D, 10)
    assert v.seat(4).alive and v.codes()[-2:] == ["morning", "peaceful"]


def test_cupid_shoots_on_night_one_only() -> None:
    """SPEC §4 cupid: on night 1 chooses two players who become lovers."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    run(v, [("raises", InvalidTarget, ("cupid", 4, 4, 4)), ("cupid", 4, 4, 5)])
    v.act(1, A, 6)
    v.act(3, D, 7)
    assert {x.no for x in v.state.lovers()} == {4, 5}
    v.lynch(8)
    run(v, [("raises", WrongPhase, ("cupid", 4, 4, 5))])


def test_cupid_must_pick_themself_below_eighteen_players_only() -> None:
    """SPEC §4 below CUPID_SELF_BELOW = 18 players, one of the two must be the cupid."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    run(v, [("raises", InvalidTarget, ("cupid", 4, 5, 6))])
    v18 = village(
        "wolf*3 madman fox fox seer medium guard common common cupid villager*6",
        options=Options(cupid=True),
    )
    run(v18, [("cupid", 12, 13, 14), ("attack", 1, 15), ("divine", 7, 1), ("phase", "day", 2)])
    assert {x.no for x in v18.state.lovers()} == {13, 14}


def test_cupid_counts_as_human_and_wins_with_the_lovers_dead_or_alive() -> None:
    """SPEC §4 cupid: counted as a human everywhere; wins with the lovers, dead or alive."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    v.act(4, C, 4, 5)
    v.act(1, A, 4)  # the cupid dies; lover 5 follows
    v.act(3, D, 1)
    assert v.deaths() == {4: DeathCause.ATTACKED, 5: DeathCause.LOVERS}
    v.lynch(1)
    v.act(2, A, 6)
    v.act(3, D, 2)
    v.lynch(2)
    assert v.state.winner is Winner.VILLAGE
    cupid = seat_result(v.state, v.seat(4))
    assert cupid is not None and cupid.team is Team.LOVERS and not cupid.won
    # The cupid counts as a human: W W + cupid + one villager → humans 2 ≤ wolves 2.
    w = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    w.act(4, C, 4, 1)
    w.act(1, A, 5)
    w.act(3, D, 2)
    w.lynch(3)
    w.act(1, A, 6)
    w.lynch(7)
    assert w.state.winner is Winner.LOVERS
    assert seat_result(w.state, w.seat(4)).won  # type: ignore[union-attr]


def test_lover_follows_the_other_at_once_by_day() -> None:
    """SPEC §4 lovers: when one dies, the other dies at once (後追い), even by day."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    v.act(4, C, 4, 6)
    v.act(1, A, 5)
    v.act(3, D, 1)
    v.lynch(6)
    assert v.deaths()[4] is DeathCause.LOVERS and v.state.phase is Phase.NIGHT
    assert v.codes()[-3:] == ["executed", "lovers_suicide", "night"]


def test_lovers_keep_their_main_role_and_know_each_other() -> None:
    """SPEC §4 lovers: a sub-role kept with the main role; they know each other."""
    v = village(
        "wolf*3 madman fox fox seer medium guard common common cupid villager*6",
        options=Options(cupid=True),
    )
    v.act(12, C, 1, 7)
    v.act(1, A, 13)
    v.act(7, D, 2)
    assert v.seat(1).role is Role.WOLF and v.seat(1).has(SubRole.LOVERS)
    assert partners(v.state, 7) == [1]
    assert partners(v.state, 1) == [2, 3, 7]
    assert partners(v.state, 12) == [1, 7]


def test_decider_choice_wins_a_tie_it_voted_in() -> None:
    """SPEC §4 decider: on a tie, the decider's choice wins if among the tied."""
    v = village(
        "wolf*3 madman fox seer medium guard common common villager*6",
        subs={16: "decider"},
        options=Options(decider=True),
    )
    v.act(1, A, 11)
    v.act(6, D, 12)
    run(v, [("ballots", {13: [1, 2, 3, 4, 5, 6, 7], 14: [8, 9, 10, 12, 13, 15, 16], 15: [14]})])
    assert v.deaths()[14] is DeathCause.EXECUTED


def test_decider_choice_outside_the_tie_means_a_revote() -> None:
    """SPEC §5 otherwise a revote."""
    v = village(
        "wolf*3 madman fox seer medium guard common common villager*6",
        subs={16: "decider"},
        options=Options(decider=True),
    )
    v.act(1, A, 11)
    v.act(6, D, 12)
    run(v, [("ballots", {13: [1, 2, 3, 4, 5, 6], 14: [7, 8, 9, 10, 12, 15], 12: [13, 14, 16]})])
    assert v.state.vote_round == 2 and "revote" in v.codes()


def test_decider_is_never_told_and_authority_is() -> None:
    """SPEC §3/§4 decider: that player is not told; authority: told."""
    v = village(
        "wolf*3 madman fox seer medium guard common common villager*6",
        subs={16: "decider", 15: "authority"},
        options=Options(decider=True, authority=True),
    )
    assert me_view(v.state, 16).sub_roles == frozenset()  # type: ignore[union-attr]
    assert me_view(v.state, 15).sub_roles == {SubRole.AUTHORITY}  # type: ignore[union-attr]


def test_authority_vote_counts_twice() -> None:
    """SPEC §4 authority: the vote counts twice."""
    v = village(
        "wolf*3 madman fox seer medium guard common common villager*6",
        subs={15: "authority"},
        options=Options(authority=True),
    )
    v.act(1, A, 11)
    v.act(6, D, 12)
    # 7 heads each, but the authority (15) is among those voting 13.
    run(v, [("ballots", {13: [1, 2, 3, 4, 5, 6, 15], 14: [7, 8, 9, 10, 12, 13, 16], 16: [14]})])
    assert v.deaths()[13] is DeathCause.EXECUTED


@pytest.mark.parametrize("role", [Role.MADMAN, Role.FANATIC, Role.CUPID])
def test_humans_everywhere_count_in_the_victory_check(role: Role) -> None:
    """SPEC §4/§9 madman, fanatic, cupid are humans in the count."""
    v = village(FOURTEEN)
    s = v.state
    for x in s.seats:
        x.alive = x.no in (1, 3)
    s.seat(3).role = role  # type: ignore[union-attr]
    assert winner_of(s) is Winner.WOLVES  # 1 human ≤ 1 wolf
    s.seat(4).alive = True  # type: ignore[union-attr]
    s.seat(4).role = Role.VILLAGER  # type: ignore[union-attr]
    assert winner_of(s) is None


def test_cupid_may_not_bind_the_dummy_boy() -> None:
    """SPEC §5 targets (issue 39, item 18): the cupid picks two living players but never
    the dummy boy, as the reference refuses it; so no lover follows the dummy boy eaten on
    night 1. Another pair is taken as before."""
    v = village(
        "villager wolf wolf seer cupid villager*3",
        options=Options(cupid=True, dummy_boy=True),
    )
    run(v, [("raises", InvalidTarget, ("cupid", 5, 5, 1))])
    assert 1 not in choice(v.state, 5, "cupid", rules=v.rules, now=v.now).targets
    run(v, [("cupid", 5, 5, 6), ("attack", 2, 1), ("divine", 4, 6)])
    assert v.deaths() == {1: DeathCause.ATTACKED}
    assert SubRole.LOVERS in v.seat(6).sub_roles and SubRole.LOVERS not in v.seat(1).sub_roles
