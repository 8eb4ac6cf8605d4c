"""SPEC §8: who sees what — one function, checked clause by clause and against the oracle."""

from __future__ import annotations

import pytest

from villages.engine import game
from villages.engine.cast import Options
from villages.engine.errors import Dead, Forbidden, WrongPhase
from villages.engine.events import MessageKind, Post, Volume
from villages.engine.roles import Role, SubRole
from villages.engine.state import Ability, DeathCause, Phase
from villages.engine.texts import HOWL_TEXT, WHISPER_TEXT
from villages.engine.visibility import (
    ability_results,
    me_view,
    message_audiences,
    partners,
    public_line,
    results_seen,
    seat_views,
    see_message,
)

from . import oracle
from .harness import Village, run, village

A, D, G, C = Ability.ATTACK, Ability.DIVINE, Ability.GUARD, Ability.CUPID
FOURTEEN = "wolf wolf fanatic fox seer medium guard common common villager*5"
# 1 2 wolves, 3 fanatic, 4 fox, 5 seer, 6 medium, 7 guard, 8 9 commons, 10-14 villagers


def post_of(step: game.Step) -> Post:
    [post] = [e for e in step.events if isinstance(e, Post) and e.seat_no is not None]
    return post


def seen(v: Village, viewer: int | None, post: Post) -> tuple[MessageKind, int | None, str] | None:
    view = see_message(v.state, viewer, post)
    return None if view is None else (view.kind, view.seat_no, view.text)


def agrees_with_oracle(v: Village) -> None:
    """Every viewer, every line, every seat: the engine says what the oracle says."""
    viewers = [*message_audiences(v.state), 99]
    for post in v.posts():
        for viewer in viewers:
            assert seen(v, viewer, post) == oracle.message_view(v.state, viewer, post), (
                viewer,
                post,
            )
    for viewer in viewers:
        for sv in seat_views(v.state, viewer):
            seat = v.seat(sv.no)
            assert sv.role == oracle.role_view(v.state, viewer, seat), (viewer, sv)
            assert (sv.sub_roles or frozenset()) == oracle.sub_roles_view(v.state, viewer, seat)
            if sv.death_cause is not None:
                assert oracle.role_view(v.state, viewer, seat) is not None


def night_talk(options: Options | None = None) -> tuple[Village, dict[str, Post]]:
    v = village(FOURTEEN, options=options)
    posts = {
        "wolf": post_of(v.talk(1, "狼の相談")),
        "common": post_of(v.talk(8, "共有の相談")),
        "monologue": post_of(v.talk(10, "村人の独り言")),
        "fanatic": post_of(v.talk(3, "狂信者の独り言")),
    }
    return v, posts


def test_day_talk_is_public_with_its_volume() -> None:
    """SPEC §8 day talk (volume strong/normal/weak) is public."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 11)])
    post = post_of(v.talk(12, "おはよう", Volume.STRONG))
    assert post.kind is MessageKind.TALK and post.volume is Volume.STRONG
    for viewer in (None, 1, 3, 10, 12):
        assert seen(v, viewer, post) == (MessageKind.TALK, 12, "おはよう")


def test_wolves_talk_is_a_howl_to_everyone_but_wolves() -> None:
    """SPEC §8 at night wolves talk to wolves; others see only a howl line."""
    v, posts = night_talk()
    wolf = posts["wolf"]
    assert seen(v, 2, wolf) == (MessageKind.WOLF, 1, "狼の相談")
    for viewer in (None, 3, 4, 5, 8, 10):
        assert seen(v, viewer, wolf) == (MessageKind.WOLF_HOWL, None, HOWL_TEXT)


def test_commons_talk_is_a_whisper_to_everyone_but_commons() -> None:
    """SPEC §8 commons whisper to each other; others see only a whisper line."""
    v, posts = night_talk()
    common = posts["common"]
    assert seen(v, 9, common) == (MessageKind.COMMON, 8, "共有の相談")
    for viewer in (None, 1, 3, 5, 10):
        assert seen(v, viewer, common) == (MessageKind.COMMON_WHISPER, None, WHISPER_TEXT)


def test_everyone_elses_night_talk_is_a_monologue_seen_by_the_speaker_only() -> None:
    """SPEC §8 everyone else's talk is a monologue (独り言) seen by its speaker only."""
    v, posts = night_talk()
    for key, speaker in (("monologue", 10), ("fanatic", 3)):
        post = posts[key]
        assert post.kind is MessageKind.MONOLOGUE
        assert seen(v, speaker, post) is not None
        for viewer in (None, 1, 2, 5, 8, 11):
            if viewer != speaker:
                assert seen(v, viewer, post) is None


def test_the_dead_see_every_role_and_all_night_talk() -> None:
    """SPEC §8 the dead see everything — every role, all night talk and monologues."""
    v, posts = night_talk()
    run(v, [("attack", 1, 10), ("divine", 5, 11)])  # villager 10 is dead
    for post in posts.values():
        assert seen(v, 10, post) == (post.kind, post.seat_no, post.text)
    assert all(sv.role is not None for sv in seat_views(v.state, 10))
    agrees_with_oracle(v)


def test_heaven_talk_is_for_the_dead_only() -> None:
    """SPEC §8 the dead talk among themselves in heaven (霊話), which the living never see."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 11)])
    post = post_of(v.heaven(10, "天国より"))
    assert post.kind is MessageKind.HEAVEN
    for viewer in (None, 1, 2, 3, 5, 8, 11):
        assert seen(v, viewer, post) is None
    run(v, [("lynch", 11)])
    assert seen(v, 11, post) == (MessageKind.HEAVEN, 10, "天国より")
    run(
        v,
        [("raises", Forbidden, ("heaven", 12, "生者の霊話")), ("raises", Dead, ("talk", 10, "x"))],
    )


def test_hide_roles_in_heaven_shows_the_dead_only_public_information() -> None:
    """SPEC §8 hide roles in heaven: the dead see only public information..."""
    v, posts = night_talk(Options(hide_roles_in_heaven=True))
    run(v, [("attack", 1, 10), ("divine", 5, 11)])
    assert seen(v, 10, posts["wolf"]) == (MessageKind.WOLF_HOWL, None, HOWL_TEXT)
    assert seen(v, 10, posts["common"]) == (MessageKind.COMMON_WHISPER, None, WHISPER_TEXT)
    assert seen(v, 10, posts["fanatic"]) is None
    assert seen(v, 10, posts["monologue"]) is not None  # their own
    assert [sv.no for sv in seat_views(v.state, 10) if sv.role is not None] == [10]
    agrees_with_oracle(v)


def test_hide_roles_in_heaven_dead_wolves_and_commons_still_hear_their_own() -> None:
    """SPEC §8 ...except that dead wolves still see the living wolves' talk and dead commons
    the living commons'."""
    v = village(FOURTEEN, options=Options(hide_roles_in_heaven=True))
    run(v, [("attack", 1, 8), ("divine", 5, 11), ("lynch", 1)])  # common 8, wolf 1 dead
    wolf = post_of(v.talk(2, "ひとりぼっち"))
    common = post_of(v.talk(9, "相方がいない"))
    assert seen(v, 1, wolf) == (MessageKind.WOLF, 2, "ひとりぼっち")
    assert seen(v, 8, common) == (MessageKind.COMMON, 9, "相方がいない")
    assert seen(v, 8, wolf) == (MessageKind.WOLF_HOWL, None, HOWL_TEXT)
    assert seen(v, 1, common) == (MessageKind.COMMON_WHISPER, None, WHISPER_TEXT)
    agrees_with_oracle(v)


def test_spectators_see_only_public_information_until_the_end() -> None:
    """SPEC §8 spectators see only public information until the game ends."""
    v, posts = night_talk()
    assert all(sv.role is None and sv.sub_roles is None for sv in seat_views(v.state, None))
    assert me_view(v.state, None) is None
    assert seen(v, None, posts["monologue"]) is None
    agrees_with_oracle(v)


def test_public_line_says_which_kinds_a_spectator_sees_while_the_game_is_played() -> None:
    """The numbering of lines (villages.line_numbers) counts these apart: it must agree
    with see_message for every kind, whoever speaks."""
    v = village(FOURTEEN)
    stand_ins = (MessageKind.WOLF_HOWL, MessageKind.COMMON_WHISPER)  # views, never stored
    for kind in set(MessageKind) - set(stand_ins):
        for speaker in (None, 1, 10):
            line = Post(1, Phase.NIGHT, kind, "x", speaker, Volume.NORMAL)
            assert public_line(kind.value) == (see_message(v.state, None, line) is not None)
    assert not public_line("heaven") and not public_line("monologue") and public_line("wolf")


def test_after_the_end_everyone_sees_everything() -> None:
    """SPEC §8 after the end, everyone sees everything."""
    v, _posts = night_talk()
    run(v, [("attack", 1, 10), ("divine", 5, 11), ("heaven", 10, "天国")])
    run(v, [("lynch", 1), ("attack", 2, 11), ("divine", 5, 2), ("guard", 7, 5), ("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    for viewer in (None, 3, 12, 99):
        for post in v.posts():
            assert seen(v, viewer, post) == (post.kind, post.seat_no, post.text)
        assert all(sv.role is not None for sv in seat_views(v.state, viewer))
    agrees_with_oracle(v)


def test_partners_wolves_fanatic_commons() -> None:
    """SPEC §4/§8 partners: wolves ↔ wolves, fanatic → wolves (wolves not told the fanatic),
    commons ↔ commons; nobody else knows anybody."""
    v = village(FOURTEEN)
    expected = {1: [2], 2: [1], 3: [1, 2], 8: [9], 9: [8]}
    for x in v.state.seats:
        assert partners(v.state, x.no) == expected.get(x.no, [])
        assert partners(v.state, x.no) == oracle.partners_of(v.state, x.no)
    views = {sv.no: sv.role for sv in seat_views(v.state, 3)}
    assert views[1] is Role.WOLF and views[2] is Role.WOLF and views[4] is None
    views = {sv.no: sv.role for sv in seat_views(v.state, 1)}
    assert views[3] is None and views[2] is Role.WOLF


def test_partners_lovers_and_cupid() -> None:
    """SPEC §4/§8 lovers ↔ lovers, cupid → lovers; nobody else sees the lovers."""
    v = village(
        "wolf*3 madman fox fox seer medium guard common common cupid villager*6",
        options=Options(cupid=True),
    )
    run(v, [("cupid", 12, 2, 14), ("attack", 1, 15), ("divine", 7, 5)])
    assert partners(v.state, 14) == [2] and partners(v.state, 12) == [2, 14]
    assert partners(v.state, 2) == [1, 3, 14]
    for viewer, sees_lovers in ((12, True), (14, True), (2, True), (1, False), (None, False)):
        subs = {sv.no: sv.sub_roles for sv in seat_views(v.state, viewer)}
        assert (SubRole.LOVERS in (subs[14] or frozenset())) is sees_lovers
    cupid_view = {sv.no: sv.role for sv in seat_views(v.state, 12)}
    assert cupid_view[14] is None  # the cupid knows the lovers, not their roles
    agrees_with_oracle(v)


def test_decider_is_never_told_nor_shown_to_the_living() -> None:
    """SPEC §3/§8 the decider is not told; no living player sees it."""
    v = village(
        "wolf*3 madman fox seer medium guard common common villager*6",
        subs={11: "decider", 12: "authority"},
        options=Options(decider=True, authority=True),
    )
    for viewer in [None, *range(1, 17)]:
        subs = {sv.no: sv.sub_roles or frozenset() for sv in seat_views(v.state, viewer)}
        assert SubRole.DECIDER not in subs[11]
        if viewer not in (12,):
            assert SubRole.AUTHORITY not in subs[12]
    assert me_view(v.state, 12).sub_roles == {SubRole.AUTHORITY}  # type: ignore[union-attr]
    assert me_view(v.state, 11).sub_roles == frozenset()  # type: ignore[union-attr]
    agrees_with_oracle(v)


def test_a_seer_bitten_the_night_it_divines_sees_no_result_for_that_night() -> None:
    """SPEC §4/§5/§8 own results: a seer killed by the wolves that night divines nothing, so
    its own view (dead, seeing everything else) holds no result for that night, then or
    after the end; the results of the nights before stay."""
    v = village(FOURTEEN)
    run(v, [("divine", 5, 1), ("attack", 1, 10), ("lynch", 3)])
    assert [(r.day, r.target, r.result) for r in ability_results(v.state, 5)] == [(1, 1, "wolf")]
    v.act(5, D, 2)
    v.act(7, G, 6)
    assert [(r.day, r.target) for r in ability_results(v.state, 5)] == [(1, 1)]
    v.act(1, A, 5)
    assert not v.seat(5).alive
    me = me_view(v.state, 5)
    assert me is not None and [(r.day, r.target) for r in me.results] == [(1, 1)]
    assert me.results == ability_results(v.state, 5)
    run(v, [("lynch", 1), ("attack", 2, 11), ("guard", 7, 6), ("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    assert [(r.day, r.target) for r in ability_results(v.state, 5)] == [(1, 1)]


def test_medium_results_from_day_two_about_that_days_executed() -> None:
    """SPEC §4/§8 the medium, from day 2, about that day's executed, the next morning."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 11), ("lynch", 2)])
    assert ability_results(v.state, 6) == []
    run(v, [("attack", 1, 12), ("divine", 5, 13), ("guard", 7, 5)])
    assert [(r.day, r.ability, r.target, r.result) for r in ability_results(v.state, 6)] == [
        (2, "medium", 2, "wolf")
    ]


def test_others_never_see_a_players_results() -> None:
    """SPEC §8 results are one's own: me_view carries only the viewer's."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 1)])
    for viewer in (1, 6, 7, 12):
        assert me_view(v.state, viewer).results == []  # type: ignore[union-attr]


def test_guard_is_told_the_next_morning_whether_its_guard_held() -> None:
    """SPEC §4/§8 own results (guard): the next morning, "guarded" when the wolves attacked
    the player it guarded, else only whom it guarded; nothing for a night the wolves
    attacked the guard itself."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 11), ("lynch", 12)])

    def told() -> list[tuple[int, str, int, str | None]]:
        me = me_view(v.state, 7)
        assert me is not None and me.results == ability_results(v.state, 7)
        return [(r.day, r.ability, r.target, r.result) for r in me.results]

    run(v, [("guard", 7, 5), ("divine", 5, 13)])
    assert told() == [], "not before the morning"
    run(v, [("attack", 1, 5)])
    assert v.seat(5).alive and told() == [(2, "guard", 5, "guarded")]
    run(v, [("lynch", 13), ("guard", 7, 6), ("divine", 5, 14), ("attack", 1, 11)])
    assert told() == [(2, "guard", 5, "guarded"), (3, "guard", 6, None)]
    run(v, [("lynch", 14), ("guard", 7, 5), ("divine", 5, 2), ("attack", 1, 7)])
    assert v.seat(7).death_cause is DeathCause.ATTACKED
    assert told() == [(2, "guard", 5, "guarded"), (3, "guard", 6, None)]
    for viewer in (5, 6, None):
        me = me_view(v.state, viewer)
        assert me is None or all(r.ability != "guard" for r in me.results)


def test_everyones_results_are_seen_only_after_the_end() -> None:
    """SPEC §8/§11d: a result is its seat's own while the game is played (spectators and
    the dead see no one else's); once it has ended everyone sees every seat's, in order of
    the night or day it is of, then of the seat (what the log and the replay carry)."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 1), ("lynch", 1)])
    run(v, [("guard", 7, 5), ("divine", 5, 3), ("attack", 2, 5)])
    assert results_seen(v.state, None) == [] and results_seen(v.state, 99) == []
    assert results_seen(v.state, 10) == [], "the dead see everything but others' results"
    for seat in (5, 6, 7):
        assert results_seen(v.state, seat) == ability_results(v.state, seat)
        assert {r.seat_no for r in results_seen(v.state, seat)} == {seat}
    run(v, [("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    every = [(r.day, r.seat_no, r.ability, r.target, r.result) for r in results_seen(v.state, None)]
    assert every == [
        (1, 5, "divine", 1, "wolf"),
        (2, 5, "divine", 3, "human"),
        (2, 6, "medium", 1, "wolf"),
        (2, 7, "guard", 5, "guarded"),
    ]
    assert all(
        results_seen(v.state, viewer) == results_seen(v.state, None) for viewer in (3, 5, 99)
    )


def test_wills_are_published_the_morning_after_the_death() -> None:
    """SPEC §8 wills: set or replaced while alive; a single space clears it; published on
    the morning after the death."""
    v = village(FOURTEEN)
    v.will(10, "最初の遺言")
    v.will(10, "書き直した遺言")
    v.will(11, "消す遺言")
    v.will(11, " ")
    assert v.seat(11).will == ""
    run(v, [("attack", 1, 10), ("divine", 5, 11)])
    wills = [p for p in v.posts() if p.kind is MessageKind.WILL]
    assert [(p.seat_no, p.text, p.day) for p in wills] == [(10, "書き直した遺言", 2)]
    v.will(12, "処刑の遺言")
    run(v, [("lynch", 12)])
    assert not [p for p in v.posts() if p.kind is MessageKind.WILL and p.seat_no == 12]
    run(v, [("attack", 1, 13), ("divine", 5, 14), ("guard", 7, 5)])
    assert [p.day for p in v.posts() if p.kind is MessageKind.WILL and p.seat_no == 12] == [3]
    run(v, [("raises", Dead, ("will", 10, "死後の遺言"))])


def test_the_dummy_boy_eaten_on_night_one_leaves_the_sites_will() -> None:
    """SPEC §3/§8 (issue 39, item 20) the dummy boy writes no will, but eaten on night 1 it
    leaves one, as the reference's does: a will line of its seat, published that morning
    with the others', whose words the site gives (`dummy_will`: a code, no text). Everyone
    sees it, as every will."""
    v = village("villager wolf wolf seer villager*4", options=Options(dummy_boy=True))
    v.will(5, "5の遺言")
    run(v, [("raises", Forbidden, ("will", 1, "書けない")), ("attack", 2, 1), ("divine", 4, 5)])
    wills = [p for p in v.posts() if p.kind is MessageKind.WILL]
    assert [(p.seat_no, p.day, p.code, p.text) for p in wills] == [(1, 2, "dummy_will", "")]
    for viewer in (None, 2, 5):
        assert seen(v, viewer, wills[0]) == (MessageKind.WILL, 1, "")
    run(v, [("lynch", 6), ("attack", 2, 5), ("divine", 4, 7)])  # 5's will, and no second
    wills = [p for p in v.posts() if p.kind is MessageKind.WILL]
    assert [(p.seat_no, p.code) for p in wills] == [(1, "dummy_will"), (5, "")]


def test_wills_cannot_be_written_after_the_end() -> None:
    """SPEC §8 a will is for the living during the game."""
    v = village(FOURTEEN)
    run(v, [("attack", 1, 10), ("divine", 5, 11), ("lynch", 1)])
    run(v, [("attack", 2, 11), ("divine", 5, 2), ("guard", 7, 5), ("lynch", 2)])
    assert v.state.phase is Phase.ENDED
    run(v, [("raises", WrongPhase, ("will", 12, "終わった後"))])


@pytest.mark.parametrize("hide", [False, True])
def test_every_view_agrees_with_the_oracle_through_a_game(hide: bool) -> None:
    """SPEC §8: one function decides; it agrees with an independent reading of §8."""
    v = village(
        "wolf*3 madman fox fox seer medium guard common common cupid villager*6",
        options=Options(cupid=True, hide_roles_in_heaven=hide),
    )
    steps = [
        ("talk", 1, "襲撃先"),
        ("talk", 10, "共有"),
        ("talk", 13, "独り言"),
        ("cupid", 12, 3, 13),
        ("attack", 1, 13),
        ("divine", 7, 5),
        ("heaven", 13, "霊界から"),
        ("lynch", 1),
        ("talk", 2, "残り二匹"),
        ("attack", 2, 10),
        ("divine", 7, 6),
        ("guard", 9, 7),
        ("lynch", 2),
    ]
    for step in steps:
        run(v, [step])
        agrees_with_oracle(v)
        for x in v.state.seats:
            if not x.dummy:
                got = {
                    (r.day, r.ability, r.target, r.result) for r in ability_results(v.state, x.no)
                }
                assert got == oracle.results_of(v.state, x.no)
                assert partners(v.state, x.no) == oracle.partners_of(v.state, x.no)
