"""Bots play with the people beside them (issue 39, items 1, 3 and 4): a bot wolf shares
the night with a person of its pack, bots answer a person who asks them, never say a
sentence twice in a day, and vote together. Whole villages run through the engine alone
(tests/engine/botplay.py, the site's pacing in miniature); bench/bot_games.py prints the
figures over thousands of villages, these tests hold a few dozen to loose bounds."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from villages.bots import BotView, Vote
from villages.bots.lines import LINES, key_of, word
from villages.engine.cast import Options, TimeOptions
from villages.engine.events import MessageKind
from villages.engine.night import owed_actions
from villages.engine.roles import Role
from villages.engine.state import Phase

from . import botplay as bp

# 8 seats: seat 1 a wolf played by a person, seat 2 a bot wolf, seat 3 the seer.
CAST = {1: Role.WOLF, 2: Role.WOLF, 3: Role.SEER} | {n: Role.VILLAGER for n in range(4, 9)}
REAL = Options(time=TimeOptions(realtime=True, day_seconds=600, night_seconds=240))


def quiet(g: bp.Game, no: int, view: BotView) -> bool:
    """A person who reads the screen and does nothing."""
    return False


def whispers(g: bp.Game, *, day: int = 1) -> list[tuple[int | None, str, str]]:
    """The pack's lines of night `day`: (speaker, text, the bot line's key or "")."""
    return [
        (p.seat_no, p.text, key_of(p.code) or "")
        for p in g.posts
        if p.kind is MessageKind.WOLF and p.day == day
    ]


def night_one(person=quiet, *, options: Options | None = None, seed: int = 1) -> bp.Game:
    return bp.new_game(8, seed, cast=CAST, people={1: person}, options=options)


def dawn_of(g: bp.Game) -> bp.Game:
    bp.play(g, until=lambda g: g.state.phase is Phase.DAY)
    return g


def victims(g: bp.Game, day: int = 1) -> list[int]:
    return [s.no for s in g.state.seats if s.death_day == day and not s.alive]


# --- Item 1: the night of a person's pack --------------------------------------------------


def test_a_bot_wolf_greets_its_person_packmate_proposes_and_does_not_attack_at_once():
    g = night_one()
    bp.look_round(g)  # every bot looks at the start of the night: the seer divines
    assert g.state.phase is Phase.NIGHT and owed_actions(g.state)
    [(speaker, text, key)] = whispers(g)
    assert (speaker, key) == (2, "pack_propose") and "さん" in text
    assert g.state.pack_attack(1) is None


def test_in_virtual_time_the_bot_wolf_attacks_alone_only_after_a_silence_of_the_person():
    g = night_one()
    bp.look_round(g)
    started = g.now
    proposed = next(p.params for p in g.posts if key_of(p.code) == "pack_propose")
    dawn_of(g)
    codes = [p.code for p in g.posts if p.day == 1]
    assert codes.index("silence_night") < codes.index("bot_pack_alone")
    assert g.now - started >= timedelta(seconds=g.rules.silence_real_seconds)
    assert victims(g) == [g.seat_of(dict(proposed)["name"])]


def test_in_real_time_the_bot_wolf_leaves_the_person_half_of_the_night():
    g = night_one(options=REAL)
    started = g.state.clock.phase_started_at
    bp.look_round(g)
    assert 2 in g.alarms and g.alarms[2] - started >= timedelta(seconds=120)
    dawn_of(g)
    assert g.now - started >= timedelta(seconds=120)  # half of the 240-second night
    assert [key for _, _, key in whispers(g)] == ["pack_propose", "pack_alone"]
    assert not [s for s in g.state.seats if s.death_cause and s.death_cause.value == "sudden"]


@pytest.mark.parametrize(
    "line",
    ["今夜はユウキさんでお願い", "ユウキで！", "ユウキ(ボット)さんにしよう", "Let's take Yuki"],
)
def test_a_target_the_person_names_in_a_whisper_is_attacked(line):
    cast = CAST | {2: Role.VILLAGER, 4: Role.WOLF}  # the bot wolf is seat 4; ユウキ is seat 2
    said = []

    def person(g: bp.Game, no: int, view: BotView) -> bool:
        if view.phase is Phase.NIGHT and not said and any(k for _, _, k in whispers(g)):
            said.append(line)
            bp.say(g, no, line)
            return True
        return False

    g = bp.new_game(8, 3, cast=cast, people={1: person})
    dawn_of(g)
    assert victims(g) == [2]
    assert [key for _, _, key in whispers(g)] == ["pack_propose", "", "pack_follow"]


def test_the_person_s_yes_to_the_proposal_settles_it():
    def person(g: bp.Game, no: int, view: BotView) -> bool:
        if view.phase is Phase.NIGHT and len(whispers(g)) == 1:
            bp.say(g, no, "いいよ、それで")
            return True
        return False

    g = dawn_of(night_one(person))
    proposed = next(dict(p.params)["name"] for p in g.posts if key_of(p.code) == "pack_propose")
    assert victims(g) == [g.seat_of(proposed)]
    assert [key for _, _, key in whispers(g)] == ["pack_propose", "", "pack_follow"]


def test_a_person_who_attacks_from_the_screen_settles_the_pack_s_attack():
    def person(g: bp.Game, no: int, view: BotView) -> bool:
        return (
            view.phase is Phase.NIGHT
            and "attack" in view.duties
            and bp.do(g, no, bp.Act("attack", (5,)))
        )

    g = dawn_of(night_one(person))
    assert victims(g) == [5]
    assert [key for _, _, key in whispers(g)] in ([], ["pack_propose"])


def test_a_person_left_the_only_living_wolf_beside_dead_bot_wolves_keeps_the_night():
    """Day 2 executes the bot wolf; on night 2 no bot settles the pack's attack: the
    night waits for the person (until its time runs out, as any player's)."""

    def person(g: bp.Game, no: int, view: BotView) -> bool:
        if view.phase is Phase.NIGHT and view.day == 1 and view.duties:
            return bp.do(g, no, bp.Act("attack", (5,)))
        return False

    g = bp.new_game(8, 4, cast=CAST, people={1: person})
    bp.play(g, until=lambda g: g.state.phase is Phase.DAY)
    voters = [s.no for s in g.state.living]
    for voter in voters:  # the village executes the bot wolf
        bp.do(g, voter, Vote(2 if voter != 2 else 3))
    assert g.state.phase is Phase.NIGHT and g.state.day == 2
    assert not g.state.seat(2).alive and g.state.seat(1).alive  # the bot wolf was executed
    for _ in range(3):
        bp.look_round(g)
    assert g.state.phase is Phase.NIGHT and g.state.pack_attack(2) is None
    assert [s.no for s in owed_actions(g.state)] == [1]


def test_of_several_bot_wolves_beside_a_person_one_proposes_and_all_wait():
    roles = [Role.WOLF] * 3 + [Role.SEER, Role.MEDIUM, Role.GUARD, Role.COMMON, Role.COMMON]
    roles += [Role.MADMAN, Role.FOX] + [Role.VILLAGER] * 6
    cast = {no: role for no, role in enumerate(roles, start=1)}
    g = bp.new_game(16, 5, cast=cast, people={3: quiet})
    bp.look_round(g)
    assert [(speaker, key) for speaker, _, key in whispers(g)] == [(1, "pack_propose")]
    assert g.state.phase is Phase.NIGHT and g.state.pack_attack(1) is None


def test_a_pack_of_bots_only_attacks_at_once():
    g = bp.new_game(8, 6, cast=CAST)
    bp.look_round(g)
    assert g.state.phase is Phase.DAY  # the seer and the pack acted on their first look


# --- Item 4: several people --------------------------------------------------------------


def test_each_kind_of_line_has_several_wordings_in_both_languages():
    for key, wordings in LINES.items():
        assert len(wordings) >= 3, key
        assert len({ja for ja, _ in wordings}) == len({en for _, en in wordings}) == len(wordings)


@pytest.mark.parametrize(("players", "language"), [(8, "ja"), (13, "ja"), (16, "en")])
def test_no_two_bots_say_the_same_sentence_on_one_day(players, language):
    repeats = []
    for seed in range(6):
        g = bp.new_game(players, seed, language=language)
        bp.play(g)
        said = Counter((p.day, p.text) for p in g.posts if p.seat_no is not None)
        repeats += [line for line, n in said.items() if n > 1]
    assert not repeats, repeats[:5]


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("ミサキさんはどう思う？", "ja"),
        ("ミサキ、誰が怪しい?", "ja"),
        ("Misaki, what do you think?", "en"),
    ],
)
def test_a_bot_a_person_names_in_a_question_answers_with_its_suspicion_and_why(question, language):
    asked = []

    def person(g: bp.Game, no: int, view: BotView) -> bool:
        if view.phase is Phase.DAY and not asked:
            asked.append(len(g.posts))
            bp.say(g, no, question)
            return True
        return False

    g = bp.new_game(8, 7, cast=CAST, people={1: person}, language=language)  # asks seat 5
    bp.play(g, until=lambda g: bool(asked) and len(g.posts) > asked[0] + 12)
    answers = [
        p
        for p in g.posts[asked[0] :]
        if p.seat_no == 5 and (key_of(p.code) or "").startswith("answer_")
    ]
    assert answers, [p.text for p in g.posts[asked[0] :]]
    params = dict(answers[0].params)
    assert params["asker"] == "たろう"
    first_after = next(p for p in g.posts[asked[0] + 1 :] if p.seat_no == 5)
    assert first_after is answers[0]  # at its next look
    if answers[0].code != "bot_answer_none":
        assert g.seat_of(params["name"]) not in (1, 5)  # a suspect: neither asker nor itself
    assert word(key_of(answers[0].code) or "", params, "en").startswith("たろう:")


# --- Item 3: the village votes together ----------------------------------------------------


def test_all_bot_villages_rarely_draw_or_revote_and_each_side_wins_sometimes():
    figures = [bp.all_bots(8, seed) for seed in range(40)]
    winners = Counter(f.winner for f in figures)
    days = sum(f.vote_days for f in figures)
    assert winners["draw"] <= 2, winners
    assert sum(f.revote_days for f in figures) <= 0.2 * days
    assert 8 <= winners["village"] <= 32, winners


def test_a_lone_seer_person_s_wolf_is_executed_that_day():
    outcomes = [x for x in (bp.lone_seer(seed) for seed in range(40)) if x is not None]
    assert len(outcomes) >= 25
    assert sum(outcomes) >= 0.7 * len(outcomes), outcomes


def test_a_lone_seer_s_black_is_voted_by_every_bot_of_the_village():
    """The bots that are not wolves all vote for the wolf a lone seer names."""
    g = bp.new_game(8, 11, cast=CAST)
    bp.play(g, until=lambda g: g.state.phase is Phase.DAY)
    bp.say(g, 3, "占いCO アキラ●")  # the seer (a bot here) speaks as a person would
    bp.play(g, until=lambda g: g.state.phase is not Phase.DAY)
    ballots = {b.voter: b.target for b in g.state.ballots if b.day == 2}
    assert all(target == 1 for voter, target in ballots.items() if voter not in (1, 2)), ballots
