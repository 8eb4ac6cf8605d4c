"""Golden games: whole villages scripted end to end, data-driven (SPEC §2–§9).

Each game names the clauses it proves; the script's expectation steps check the
deaths, phases and system lines as the game goes, and the table checks the end:
the winner, every death with its cause, and who won.
"""

from __future__ import annotations

import pytest

from villages.engine.cast import Options, TimeOptions
from villages.engine.errors import Forbidden, InvalidTarget, WrongPhase
from villages.engine.events import GameOver, MessageKind, Post, Revote
from villages.engine.outcome import seat_result
from villages.engine.roles import Role, SubRole, Winner
from villages.engine.state import DeathCause, Phase, RoundResult
from villages.engine.visibility import (
    ability_results,
    me_view,
    partners,
    seat_views,
    see_message,
    vote_views,
)

from .harness import Golden, Village

EIGHT = "wolf wolf seer villager*5"  # 1 2 wolves, 3 seer, 4-8 villagers
FOURTEEN = "wolf wolf fanatic fox seer medium guard common common villager*5"
ELEVEN = "wolf wolf madman seer medium guard villager*5"
SIXTEEN = "wolf*3 madman fox seer medium guard common common villager*6"
EIGHTEEN_CUPID = "wolf*3 madman fox fox seer medium guard common common cupid villager*6"
TWENTY_POISON = "wolf*4 madman fox seer medium guard common common poison villager*8"
TWENTY_POISON_CUPID = "wolf*4 madman fox seer medium guard common common poison cupid villager*7"


def silent(seconds: int, times: int) -> tuple[tuple[str, int], ...]:
    """`times` ticks of `seconds` each: a run of silent periods."""
    return (("tick", seconds),) * times


def results(seat: int, *expected: tuple[int, str, int, str | None]):  # type: ignore[no-untyped-def]
    def check(v: Village) -> None:
        got = [(r.day, r.ability, r.target, r.result) for r in ability_results(v.state, seat)]
        assert got == list(expected), got

    return ("check", check)


def partners_are(seat: int, expected: list[int]):  # type: ignore[no-untyped-def]
    def check(v: Village) -> None:
        assert partners(v.state, seat) == expected

    return ("check", check)


def _dummy_will_published(v: Village) -> None:
    wills = [(p.seat_no, p.code, p.day) for p in v.posts() if p.kind is MessageKind.WILL]
    assert wills == [(1, "dummy_will", 2)], wills


def _poisoned_one_wolf(v: Village) -> None:
    poisoned = [no for no, c in v.deaths().items() if c is DeathCause.POISONED]
    assert len(poisoned) == 1 and v.seat(poisoned[0]).role is Role.WOLF


def _ballots_cleared(v: Village) -> None:
    s = v.state
    assert s.current_ballots() == [] and s.vote_round == 2
    assert s.rounds[-1].result is RoundResult.VOID


def _revote_flags(v: Village) -> None:
    assert [(e.round, e.last_chance) for e in v.of_type(Revote)] == [
        (2, False),
        (3, False),
        (4, True),
    ]
    assert [r.round for r in vote_views(v.state)] == [1, 2, 3, 4]
    # The lines count revotes (1回目 is the first), the rounds every vote.
    said = [dict(p.params) for p in v.posts() if p.code in ("revote", "revote_last")]
    assert said == [{"revotes": "1"}, {"revotes": "2"}, {"revotes": "3"}]


def _authority_ballot_weighs_two(v: Village) -> None:
    day2 = [r for r in vote_views(v.state) if r.day == 2]
    weights = {b.voter: b.weight for r in day2 for b in r.ballots}
    assert weights[12] == 2 and all(w == 1 for no, w in weights.items() if no != 12)


def _realtime_half_night(v: Village) -> None:
    from villages.engine.game import virtual_seconds_left

    assert virtual_seconds_left(v.state, v.now, v.rules) == 3 * 3600
    assert v.state.clock.virtual_left == 6 * 3600  # speech consumed nothing


def _hidden_heaven_day2(v: Village) -> None:
    # Dead villager 4 sees no role but their own, and the wolves' talk only as a howl.
    views = {x.no: x.role for x in seat_views(v.state, 4)}
    assert views == {no: (Role.VILLAGER if no == 4 else None) for no in views}
    howl = next(p for p in v.posts() if p.kind is MessageKind.WOLF)
    seen = see_message(v.state, 4, howl)
    assert seen is not None and seen.kind is MessageKind.WOLF_HOWL and seen.seat_no is None


def _dead_wolf_hears_pack(v: Village) -> None:
    last = [p for p in v.posts() if p.kind is MessageKind.WOLF][-1]
    assert last.seat_no == 2 and last.day == 2
    whole = see_message(v.state, 1, last)  # wolf 1 executed on day 2
    assert whole is not None and whole.kind is MessageKind.WOLF and whole.text == last.text
    howl = see_message(v.state, 4, last)
    assert howl is not None and howl.kind is MessageKind.WOLF_HOWL


def _everything_after_end(v: Village) -> None:
    assert all(x.role is not None for x in seat_views(v.state, 4))
    assert all(x.role is not None for x in seat_views(v.state, None))
    for p in v.posts():
        assert see_message(v.state, None, p) is not None


def _lovers_formed(a: int, b: int):  # type: ignore[no-untyped-def]
    def check(v: Village) -> None:
        assert {x.no for x in v.state.lovers()} == {a, b}
        assert SubRole.LOVERS in me_view(v.state, a).sub_roles  # type: ignore[union-attr]

    return ("check", check)


GOLDEN: list[Golden] = [
    Golden(
        name="village_wins_when_every_wolf_is_executed",
        clauses="§5 night→day→night, §9 village",
        roles=EIGHT,
        script=(
            ("talk", 1, "今夜は4を狙おう"),
            ("attack", 1, 4),
            ("divine", 3, 1),
            ("phase", "day", 2),
            ("dead", {4: "attacked"}),
            ("codes", "game_start", "night", "morning", "found_dead"),
            results(3, (1, "divine", 1, "wolf")),
            ("lynch", 1),
            ("dead", {1: "executed"}),
            ("codes", "executed", "night"),
            ("phase", "night", 2),
            ("attack", 2, 5),
            ("divine", 3, 2),
            ("dead", {5: "attacked"}),
            ("lynch", 2),
            ("codes", "morning", "found_dead", "executed", "win_village"),
            ("phase", "ended", 3),
        ),
        winner=Winner.VILLAGE,
        deaths={4: "attacked", 1: "executed", 5: "attacked", 2: "executed"},
        winners=(3, 4, 5, 6, 7, 8),
    ),
    Golden(
        name="wolves_win_when_humans_fall_to_their_number",
        clauses="§9 wolves; §4/§5 a seer bitten the night it divines learns nothing",
        roles=EIGHT,
        script=(
            ("attack", 1, 3),
            ("divine", 3, 4),
            ("dead", {3: "attacked"}),
            results(3),
            ("lynch", 4),
            ("attack", 2, 5),
            ("phase", "day", 3),
            ("lynch", 6),
            ("codes", "executed", "win_wolves"),
        ),
        winner=Winner.WOLVES,
        deaths={3: "attacked", 4: "executed", 5: "attacked", 6: "executed"},
        winners=(1, 2),
    ),
    Golden(
        name="fox_survives_the_bite_and_wins",
        clauses="§4 fox survives the attack (peaceful night), §9 fox; §4 medium",
        roles=FOURTEEN,
        script=(
            ("attack", 1, 4),
            ("divine", 5, 1),
            ("dead", {}),
            ("codes", "morning", "peaceful"),
            ("lynch", 1),
            ("attack", 2, 10),
            ("divine", 5, 2),
            ("guard", 7, 5),
            ("dead", {1: "executed", 10: "attacked"}),
            results(6, (2, "medium", 1, "wolf")),
            ("lynch", 2),
            ("codes", "win_fox"),
        ),
        winner=Winner.FOX,
        deaths={1: "executed", 10: "attacked", 2: "executed"},
        winners=(4,),
    ),
    Golden(
        name="a_bitten_seer_divines_nothing_and_the_fox_it_chose_wins",
        clauses="§4/§5 a seer killed by the wolves that night divines nothing: no result, "
        "the fox it chose lives; §9 fox",
        roles=FOURTEEN,
        script=(
            ("divine", 5, 4),
            ("attack", 1, 5),
            ("dead", {5: "attacked"}),
            ("codes", "morning", "found_dead"),
            results(5),
            ("lynch", 1),
            ("attack", 2, 10),
            ("guard", 7, 6),
            ("dead", {1: "executed", 10: "attacked"}),
            results(6, (2, "medium", 1, "wolf")),
            ("lynch", 2),
            ("codes", "executed", "win_fox"),
        ),
        winner=Winner.FOX,
        deaths={5: "attacked", 1: "executed", 10: "attacked", 2: "executed"},
        winners=(4,),
    ),
    Golden(
        name="fox_divined_dies_and_a_guard_saves_the_seer",
        clauses="§4 fox dies when divined (ordinary death), guard protects and is told so",
        roles=FOURTEEN,
        script=(
            ("attack", 1, 10),
            ("divine", 5, 4),
            ("dead", {10: "attacked", 4: "divined"}),
            ("codes", "morning", "found_dead", "found_dead"),
            results(5, (1, "divine", 4, "human")),
            ("lynch", 1),
            ("guard", 7, 5),
            ("attack", 2, 5),
            ("divine", 5, 2),
            ("dead", {1: "executed"}),
            ("codes", "morning", "peaceful"),
            results(7, (2, "guard", 5, "guarded")),
            ("lynch", 2),
        ),
        winner=Winner.VILLAGE,
        deaths={10: "attacked", 4: "divined", 1: "executed", 2: "executed"},
        winners=(5, 6, 7, 8, 9, 10, 11, 12, 13, 14),
    ),
    Golden(
        name="guard_eaten_when_the_wolves_pick_the_guard",
        clauses="§4 guard dies if attacked; madman shows human; guard from night 2; a seer "
        "bitten the night it divines learns nothing",
        roles=ELEVEN,
        script=(
            ("raises", WrongPhase, ("guard", 6, 4)),
            ("attack", 1, 7),
            ("divine", 4, 3),
            results(4, (1, "divine", 3, "human")),
            ("lynch", 3),
            ("guard", 6, 4),
            ("attack", 2, 6),
            ("divine", 4, 1),
            ("dead", {7: "attacked", 3: "executed", 6: "attacked"}),
            results(5, (2, "medium", 3, "human")),
            ("lynch", 1),
            ("attack", 2, 4),
            ("divine", 4, 2),
            ("dead", {1: "executed", 4: "attacked"}),
            # Bitten on night 3 as it divined wolf 2: the seer learns nothing of that night.
            results(4, (1, "divine", 3, "human"), (2, "divine", 1, "wolf")),
            ("lynch", 2),
        ),
        winner=Winner.VILLAGE,
        deaths={
            7: "attacked",
            3: "executed",
            6: "attacked",
            1: "executed",
            4: "attacked",
            2: "executed",
        },
        winners=(4, 5, 6, 7, 8, 9, 10, 11),
    ),
    Golden(
        name="lovers_win_with_the_cupid_who_shot_herself",
        clauses="§4 cupid self-pick below 18, lovers know each other; §9 lovers",
        roles="wolf wolf seer cupid villager*4",
        options=Options(cupid=True),
        script=(
            ("raises", InvalidTarget, ("cupid", 4, 1, 2)),
            ("cupid", 4, 4, 1),
            ("attack", 1, 5),
            ("divine", 3, 2),
            _lovers_formed(4, 1),
            partners_are(4, [1]),
            partners_are(1, [2, 4]),
            partners_are(2, [1]),
            ("lynch", 3),
            ("attack", 1, 6),
            ("lynch", 7),
            ("codes", "win_lovers"),
        ),
        winner=Winner.LOVERS,
        deaths={5: "attacked", 3: "executed", 6: "attacked", 7: "executed"},
        winners=(1, 4),
    ),
    Golden(
        name="lovers_across_teams_follow_each_other_and_lose",
        clauses="§4 lovers across teams, 後追い at dawn; §9 a lover's result is the lovers'",
        roles=EIGHTEEN_CUPID,
        options=Options(cupid=True),
        script=(
            ("cupid", 12, 3, 13),
            ("attack", 1, 13),
            ("divine", 7, 5),
            ("dead", {13: "attacked", 5: "divined", 3: "lovers"}),
            ("codes", "morning", "found_dead", "found_dead", "lovers_suicide"),
            ("lynch", 1),
            ("attack", 2, 14),
            ("divine", 7, 6),
            ("guard", 9, 7),
            ("dead", {1: "executed", 14: "attacked", 6: "divined"}),
            ("lynch", 2),
        ),
        winner=Winner.VILLAGE,
        deaths={
            13: "attacked",
            5: "divined",
            3: "lovers",
            1: "executed",
            14: "attacked",
            6: "divined",
            2: "executed",
        },
        winners=(7, 8, 9, 10, 11, 14, 15, 16, 17, 18),
    ),
    Golden(
        name="draw_on_the_fourth_tie_of_a_day",
        clauses="§5 tie → revote (N回目, N counting revotes), 4th tie → draw announced in "
        "advance; §5 tallies public",
        roles=EIGHT,
        script=(
            ("attack", 1, 4),
            ("divine", 3, 5),
            ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]}),
            ("codes", "revote"),
            ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]}),
            ("codes", "revote"),
            ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]}),
            ("codes", "revote_last"),
            ("phase", "day", 2),
            ("ballots", {1: [2, 3, 5], 2: [1, 6, 7], 3: [8]}),
            ("codes", "tie_draw", "win_draw_revotes"),
            ("check", _revote_flags),
        ),
        winner=Winner.DRAW,
        deaths={4: "attacked"},
        winners=(),
    ),
    Golden(
        name="everybody_dies_of_sudden_death_and_it_is_a_draw",
        clauses="§6 silence penalty, §7 time-up → grace → sudden death, §9 nobody alive → draw",
        roles=EIGHT,
        script=(
            ("attack", 1, 4),
            ("divine", 3, 5),
            *silent(60, 11),
            ("codes", *["silence_day"] * 11),
            ("tick", 60),
            ("codes", "silence_day", "time_up_day"),
            ("raises", WrongPhase, ("talk", 2, "まだ話したい")),
            ("tick", 179),
            ("dead", {4: "attacked"}),
            ("tick", 1),
            ("dead", {n: "sudden" for n in (1, 2, 3, 5, 6, 7, 8)}),
            ("codes", *["sudden_death"] * 7, "win_draw"),
        ),
        winner=Winner.DRAW,
        deaths={
            4: "attacked",
            1: "sudden",
            2: "sudden",
            3: "sudden",
            5: "sudden",
            6: "sudden",
            7: "sudden",
            8: "sudden",
        },
        winners=(),
    ),
    Golden(
        name="poison_executed_takes_a_lover_and_nobody_is_left",
        clauses="§4 poison executed → random other dies, lovers follow; §7 day sudden death "
        "clears ballots; §9 nobody alive → draw",
        roles=TWENTY_POISON_CUPID,
        options=Options(cupid=True, poison=True),
        script=(
            ("cupid", 13, 13, 1),
            ("attack", 1, 14),
            ("divine", 7, 2),
            ("vote", {1: 12, 13: 12, 12: 13}),
            *silent(60, 12),
            ("tick", 180),
            (
                "dead",
                {14: "attacked"} | {n: "sudden" for n in range(2, 21) if n not in (12, 13, 14)},
            ),
            ("codes", "revote_after_sudden", "time_up_day"),
            ("check", _ballots_cleared),
            ("phase", "day", 2),
            ("vote", {1: 12, 13: 12, 12: 13}),
            ("codes", "executed", "poison_victim", "lovers_suicide", "win_draw"),
        ),
        winner=Winner.DRAW,
        deaths={14: "attacked", 12: "executed", 1: "lovers", 13: "poisoned"}
        | {n: "sudden" for n in range(2, 21) if n not in (12, 13, 14)},
        winners=(),
    ),
    Golden(
        name="poison_bitten_takes_a_wolf_then_the_silent_pack_dies_and_the_fox_wins",
        clauses="§4 poison bitten → a random wolf dies; §7 night sudden death of every wolf "
        "when no wolf chose; §9 fox",
        roles=TWENTY_POISON,
        options=Options(poison=True),
        script=(
            ("attack", 1, 12),
            ("divine", 7, 5),
            ("check", _poisoned_one_wolf),
            ("lynch", 13),
            ("divine", 7, 10),
            ("guard", 9, 7),
            *silent(60, 3),
            ("codes", "silence_night", "silence_night", "silence_night", "time_up_night"),
            ("tick", 180),
            ("codes", "sudden_death", "sudden_death", "sudden_death", "morning", "win_fox"),
        ),
        winner=Winner.FOX,
        deaths={
            12: "attacked",
            4: "poisoned",
            13: "executed",
            1: "sudden",
            2: "sudden",
            3: "sudden",
        },
        winners=(6,),
    ),
    Golden(
        name="decider_breaks_a_tie_and_authority_outweighs_a_head_count",
        clauses="§4 decider (hidden) breaks a tie; authority's vote counts twice",
        roles=SIXTEEN,
        subs={11: "decider", 12: "authority"},
        options=Options(decider=True, authority=True),
        script=(
            ("attack", 1, 16),
            ("divine", 6, 1),
            ("ballots", {1: [2, 3, 4, 5, 6, 11, 12], 2: [1, 7, 8, 9, 10, 13, 14, 15]}),
            ("dead", {16: "attacked", 1: "executed"}),
            ("codes", "executed"),
            ("check", _authority_ballot_weighs_two),
            ("attack", 2, 15),
            ("divine", 6, 2),
            ("guard", 8, 6),
            ("ballots", {2: [12, 6, 7, 8, 9, 10], 3: [2, 4, 5, 11, 13, 14], 4: [3]}),
            ("dead", {15: "attacked", 2: "executed"}),
            ("attack", 3, 14),
            ("divine", 6, 5),
            ("guard", 8, 6),
            ("lynch", 3),
        ),
        winner=Winner.VILLAGE,
        deaths={
            16: "attacked",
            1: "executed",
            15: "attacked",
            2: "executed",
            14: "attacked",
            5: "divined",
            3: "executed",
        },
        winners=(6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
    ),
    Golden(
        name="dummy_boy_is_eaten_on_night_one",
        clauses="§3 dummy boy: seat 1, eaten night 1, leaves the site's will (writes none), "
        "no vote, never wins",
        roles="villager wolf wolf seer villager*4",
        options=Options(dummy_boy=True),
        script=(
            ("raises", Forbidden, ("will", 1, "身代わり君の遺言")),
            ("raises", InvalidTarget, ("attack", 2, 5)),
            ("attack", 2, 1),
            ("divine", 4, 2),
            ("dead", {1: "attacked"}),
            ("check", _dummy_will_published),
            ("lynch", 2),
            ("attack", 3, 5),
            ("divine", 4, 3),
            ("lynch", 3),
        ),
        winner=Winner.VILLAGE,
        deaths={1: "attacked", 2: "executed", 5: "attacked", 3: "executed"},
        winners=(4, 5, 6, 7, 8),
    ),
    Golden(
        name="real_time_night_runs_out_and_the_silent_seer_dies",
        clauses="§6 real time: proportional virtual clock, free speech; §7 night sudden death",
        roles=EIGHT,
        options=Options(time=TimeOptions(realtime=True, day_seconds=300, night_seconds=120)),
        script=(
            ("talk", 1, "狼の作戦会議" * 100),
            ("attack", 1, 4),
            ("tick", 60),
            ("check", _realtime_half_night),
            ("tick", 60),
            ("codes", "time_up_night"),
            ("tick", 180),
            ("dead", {3: "sudden", 4: "attacked"}),
            ("phase", "day", 2),
            ("lynch", 1),
            ("attack", 2, 5),
            ("lynch", 2),
        ),
        winner=Winner.VILLAGE,
        deaths={3: "sudden", 4: "attacked", 1: "executed", 5: "attacked", 2: "executed"},
        winners=(3, 4, 5, 6, 7, 8),
    ),
    Golden(
        name="hidden_heaven_shows_the_dead_only_what_is_public",
        clauses="§8 hide roles in heaven; dead wolves still hear the pack; all revealed at end",
        roles=EIGHT,
        options=Options(hide_roles_in_heaven=True),
        script=(
            ("talk", 1, "4を襲う"),
            ("attack", 1, 4),
            ("divine", 3, 5),
            ("check", _hidden_heaven_day2),
            ("lynch", 1),
            ("talk", 2, "ひとりになってしまった"),
            ("check", _dead_wolf_hears_pack),
            ("attack", 2, 5),
            ("divine", 3, 2),
            ("lynch", 2),
            ("check", _everything_after_end),
        ),
        winner=Winner.VILLAGE,
        deaths={4: "attacked", 1: "executed", 5: "attacked", 2: "executed"},
        winners=(3, 4, 5, 6, 7, 8),
    ),
    Golden(
        name="silent_pack_dies_at_night_one_and_the_village_wins",
        clauses="§7 at night, if no wolf chose, every living wolf dies",
        roles=EIGHT,
        script=(
            ("divine", 3, 4),
            *silent(60, 3),
            ("codes", "silence_night", "silence_night", "silence_night", "time_up_night"),
            ("tick", 90),
            ("dead", {}),
            ("tick", 90),
            ("dead", {1: "sudden", 2: "sudden"}),
            ("codes", "sudden_death", "sudden_death", "morning", "win_village"),
        ),
        winner=Winner.VILLAGE,
        deaths={1: "sudden", 2: "sudden"},
        winners=(3, 4, 5, 6, 7, 8),
    ),
    Golden(
        name="day_sudden_death_clears_the_ballots",
        clauses="§7 by day: non-voters die, ballots cleared, voting starts again",
        roles=EIGHT,
        script=(
            ("attack", 1, 4),
            ("divine", 3, 5),
            ("vote", {2: 3, 3: 1, 5: 1, 6: 1}),
            *silent(60, 12),
            ("tick", 180),
            ("dead", {4: "attacked", 1: "sudden", 7: "sudden", 8: "sudden"}),
            ("check", _ballots_cleared),
            ("phase", "day", 2),
            ("vote", {3: 2, 5: 2, 6: 2, 2: 3}),
            ("codes", "executed", "win_village"),
        ),
        winner=Winner.VILLAGE,
        deaths={4: "attacked", 1: "sudden", 7: "sudden", 8: "sudden", 2: "executed"},
        winners=(3, 4, 5, 6, 7, 8),
    ),
]


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda g: g.name)
def test_golden_game(golden: Golden) -> None:
    """Each golden game ends as scripted: one outcome, the deaths, the winners (SPEC §9)."""
    v = golden.play()
    s = v.state
    assert s.phase is Phase.ENDED, f"{golden.name} did not end ({s.phase} {s.day})"
    assert s.winner is golden.winner
    overs = v.of_type(GameOver)
    assert overs == [GameOver(golden.winner)], "exactly one outcome"
    assert v.deaths() == {no: DeathCause(c) for no, c in golden.deaths.items()}
    assert {x.no for x in s.seats if not x.alive} == set(golden.deaths)
    if golden.winners is not None:
        won = {x.no for x in s.seats if (r := seat_result(s, x)) is not None and r.won}
        assert won == set(golden.winners)


def test_golden_games_cover_the_brief() -> None:
    """At least 12 games, with every victory and every option among them."""
    assert len(GOLDEN) >= 12
    assert {g.winner for g in GOLDEN} == set(Winner)
    opts = [g.options for g in GOLDEN]
    assert any(o.cupid for o in opts) and any(o.poison for o in opts)
    assert any(o.decider for o in opts) and any(o.authority for o in opts)
    assert any(o.dummy_boy for o in opts) and any(o.time.realtime for o in opts)
    assert any(o.hide_roles_in_heaven for o in opts)


def test_golden_games_publish_every_will_by_the_end() -> None:
    """SPEC §8 wills: a will left before dying is published by the game's end."""
    g = GOLDEN[0]
    script = (("will", 4, "4の遺言"), ("will", 1, "狼の遺言"), *g.script)
    v = Golden(**{**g.__dict__, "script": script}).play()
    wills = {p.seat_no: p.text for p in v.posts() if p.kind is MessageKind.WILL}
    assert wills == {4: "4の遺言", 1: "狼の遺言"}
    assert all(isinstance(p, Post) for p in v.posts())
