"""The bots hear people (issue 39, item 2): seer and medium claims and results in the ways
people write them count as the bots' own do (villages/bots/hearing.py; pure)."""

from __future__ import annotations

import pytest

from villages.bots.hearing import HUMAN, MEDIUM, SEER, WOLF, Said, claims, hear, names_of
from villages.bots.lines import LINES, word

# Seats 1-3 are bots, 4-6 people (who write, in the table below).
SEATS = [(1, "アキラ(ボット)"), (2, "ユウキ(ボット)"), (3, "ハルカ(ボット)")]
SEATS += [(4, "たろう"), (5, "Alice"), (6, "はなこ")]
NAMES = names_of(SEATS)

# (what was said, in order: (speaker, text); seats executed before; what stands:
#  {claimer: (role, [(target, result), ...])})
CLAIMS = [
    ([(4, "占いCO アキラ●")], (), {4: (SEER, [(1, WOLF)])}),
    ([(4, "占いCO アキラ○")], (), {4: (SEER, [(1, HUMAN)])}),
    ([(4, "占いCOします。アキラさんは人狼でした")], (), {4: (SEER, [(1, WOLF)])}),
    ([(4, "占いCO ユウキさんは人間でした")], (), {4: (SEER, [(2, HUMAN)])}),
    ([(4, "占い師です。ハルカ黒")], (), {4: (SEER, [(3, WOLF)])}),
    ([(4, "占い師です。ハルカ白")], (), {4: (SEER, [(3, HUMAN)])}),
    ([(4, "占いＣＯ　ｱｷﾗ●")], (), {4: (SEER, [(1, WOLF)])}),  # full-width CO, half-width kana
    ([(4, "占いCO ユウキ(ボット)さん○")], (), {4: (SEER, [(2, HUMAN)])}),
    ([(4, "アキラさんを占ったら人狼でした")], (), {4: (SEER, [(1, WOLF)])}),
    ([(4, "アキラは人間でした")], (), {4: (SEER, [(1, HUMAN)])}),
    ([(4, "占いCO ●ユウキ")], (), {4: (SEER, [(2, WOLF)])}),
    ([(4, "占いCO アキラ● ユウキ○")], (), {4: (SEER, [(1, WOLF), (2, HUMAN)])}),
    ([(4, "占いCO ●アキラ ○ユウキ")], (), {4: (SEER, [(1, WOLF), (2, HUMAN)])}),
    ([(5, "I am the seer. Akira is a werewolf.")], (), {5: (SEER, [(1, WOLF)])}),
    ([(5, "Seer CO: Yuki is human")], (), {5: (SEER, [(2, HUMAN)])}),
    ([(5, "Seer CO. Haruka: black")], (), {5: (SEER, [(3, WOLF)])}),
    ([(6, "占いCO ユウキはクロ")], (), {6: (SEER, [(2, WOLF)])}),
    ([(6, "占い結果、アキラはシロでした")], (), {6: (SEER, [(1, HUMAN)])}),
    ([(6, "占いCO アキラさん→●")], (), {6: (SEER, [(1, WOLF)])}),
    ([(6, "占いCO Alice●")], (), {6: (SEER, [(5, WOLF)])}),
    ([(4, "占いCO アキラさんは人狼ではありませんでした")], (), {4: (SEER, [(1, HUMAN)])}),
    ([(5, "I'm the seer. Yuki is not a wolf.")], (), {5: (SEER, [(2, HUMAN)])}),
    ([(4, "霊能CO アキラは人狼でした")], (1,), {4: (MEDIUM, [(1, WOLF)])}),
    ([(4, "霊能CO ユウキ○")], (2,), {4: (MEDIUM, [(2, HUMAN)])}),
    ([(5, "I am the medium. Haruka was human.")], (3,), {5: (MEDIUM, [(3, HUMAN)])}),
    ([(4, "アキラ●")], (1,), {4: (MEDIUM, [(1, WOLF)])}),  # of the executed: a medium's
    # A claim stands: a later result in words counts, an opinion does not.
    ([(4, "占いCO"), (4, "アキラ黒")], (), {4: (SEER, [(1, WOLF)])}),
    ([(4, "占いCO ユウキ○"), (4, "アキラは黒だと思う")], (), {4: (SEER, [(2, HUMAN)])}),
    ([(4, "占いCO アキラ○"), (4, "占い結果 ユウキ●")], (), {4: (SEER, [(1, HUMAN), (2, WOLF)])}),
    # Words with no claim, opinions and questions are no claim.
    ([(4, "アキラさんが黒だと思う")], (), {}),
    ([(4, "ユウキ白")], (), {}),
    ([(4, "アキラさんは人狼？")], (), {}),
    ([(4, "アキラさんに投票します")], (), {}),
    ([(4, "占いCO たろう●")], (), {4: (SEER, [])}),  # a result of oneself tells nothing
    # Several claimers, counter-claims.
    (
        [(4, "占いCO アキラ●"), (5, "占いCO たろう●")],
        (),
        {4: (SEER, [(1, WOLF)]), 5: (SEER, [(4, WOLF)])},
    ),
    (
        [(4, "占いCO アキラ●"), (6, "対抗CO たろう●")],
        (),
        {4: (SEER, [(1, WOLF)]), 6: (SEER, [(4, WOLF)])},
    ),
    (
        [(4, "霊能CO アキラ●"), (6, "霊能対抗CO アキラ○")],
        (1,),
        {4: (MEDIUM, [(1, WOLF)]), 6: (MEDIUM, [(1, HUMAN)])},
    ),
    # Retractions.
    ([(4, "占いCO アキラ●"), (4, "すみません、占いCOは撤回します")], (), {}),
    (
        [(4, "占いCO アキラ●"), (4, "撤回"), (4, "霊能CO ユウキ○")],
        (2,),
        {4: (MEDIUM, [(2, HUMAN)])},
    ),
    ([(5, "Seer CO: Akira is a wolf"), (5, "I retract my claim")], (), {}),
]


@pytest.mark.parametrize(("said", "executed", "expected"), CLAIMS)
def test_people_s_claims_and_results_count_as_the_bots_own(said, executed, expected):
    lines = tuple(Said(i, seat, text) for i, (seat, text) in enumerate(said))
    got = claims(lines, NAMES, frozenset(executed))
    assert {
        seat: (c.role, [(r.target, r.result) for r in c.readings]) for seat, c in got.items()
    } == expected


def test_the_table_holds_at_least_thirty_phrasings_of_every_sort():
    assert len(CLAIMS) >= 30
    said = [text for lines, _, _ in CLAIMS for _, text in lines]
    assert any("●" in t for t in said) and any("○" in t for t in said)
    assert any("撤回" in t for t in said) and any("対抗" in t for t in said)
    assert sum(1 for _, _, expected in CLAIMS if len(expected) > 1) >= 3


@pytest.mark.parametrize("key", ["seer_claim", "seer_result", "medium_claim", "medium_result"])
@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("result", [WOLF, HUMAN])
def test_every_wording_of_the_bots_claims_reads_back(key, language, result):
    role = MEDIUM if key.startswith("medium") else SEER
    for w in range(len(LINES[key])):
        text = word(key, {"name": "アキラ(ボット)", "result": result, "w": str(w)}, language)
        got = claims((Said(0, 2, text),), NAMES, frozenset({1}))
        assert got[2].role == role, text
        assert [(r.target, r.result) for r in got[2].readings] == [(1, result)], text


@pytest.mark.parametrize("key", [k for k in LINES if k.startswith(("vote_", "mourn", "answer_"))])
def test_no_other_line_of_a_bot_reads_as_a_claim(key):
    for language in ("ja", "en"):
        for w in range(len(LINES[key])):
            params = {"name": "アキラ(ボット)", "asker": "たろう", "w": str(w)}
            text = word(key, params, language)
            assert claims((Said(0, 2, text),), NAMES, frozenset({1})) == {}, text


@pytest.mark.parametrize(
    ("text", "votes"),
    [
        ("アキラさんに投票します", (1,)),
        ("アキラ吊りで", (1,)),
        ("今日はユウキに入れます", (2,)),
        ("vote for Alice", (5,)),
        ("I vote for Yuki.", (2,)),
        ("投票先: はなこ", (6,)),
        ("アキラさんが怪しい", ()),
    ],
)
def test_a_vote_said_aloud_is_heard(text, votes):
    assert hear(text, NAMES).votes == votes


def test_every_vote_line_of_a_bot_says_whom_it_votes_for():
    for key in [k for k in LINES if k.startswith("vote_")]:
        for w in range(len(LINES[key])):
            for language in ("ja", "en"):
                text = word(key, {"name": "ユウキ(ボット)", "w": str(w)}, language)
                assert hear(text, NAMES).votes[-1:] == (2,), text


@pytest.mark.parametrize(
    ("text", "addressed"),
    [
        ("アキラさんはどう思う？", (1,)),
        ("ユウキ、誰が怪しいと思う?", (2,)),
        ("アキラさん、ハルカさんをどう思う？", (1,)),
        ("Akira, what do you think?", (1,)),
    ],
)
def test_a_question_is_put_to_whom_it_names(text, addressed):
    heard = hear(text, NAMES)
    assert heard.question and heard.addressed == addressed
