"""How a bot hears a line: seer and medium claims and their results, retractions, stated
votes, questions put to it, a packmate's yes or no, in the ways people write them — and
as the bots' own lines say them, which are read the same way.

A text is read after NFKC normalisation (full-width Latin letters and digits become
half-width, half-width kana full-width) and case folding. Seats are found by their names:
as seated, without the bot mark, a bot by its English name too, each with or without an
honorific (さん, くん, …). A result is a name next to a word or a mark: 「アキラ●」
「●アキラ」「アキラさんは人狼でした」「アキラ黒」「アキラは白」「Akira is a werewolf」;
a mark counts wherever it is, a word only in a line that claims or reports (占いCO,
結果, でした, …) or from a speaker whose claim stands, and never in a line of opinion
(思う, 怪しい, ?, …). `claims` reads a whole log into who claims what.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from villages.engine.lobby import BOT_MARK

from .lines import NAMES

WOLF, HUMAN = "wolf", "human"
SEER, MEDIUM = "seer", "medium"

_EN_NAME = dict(NAMES)
_HON = r"(?:さん|さま|様|くん|君|ちゃん|氏|殿|-?san)?"
_MARKS = {"●": WOLF, "⚫": WOLF, "○": HUMAN, "◯": HUMAN, "〇": HUMAN, "⚪": HUMAN}
_WORDS = {
    "人狼": WOLF, "狼": WOLF, "黒": WOLF, "クロ": WOLF, "くろ": WOLF,
    "werewolf": WOLF, "wolf": WOLF, "black": WOLF,
    "人間": HUMAN, "村人": HUMAN, "白": HUMAN, "シロ": HUMAN, "しろ": HUMAN,
    "human": HUMAN, "white": HUMAN, "villager": HUMAN,
}  # fmt: skip
_RESULT = "|".join(re.escape(w) for w in sorted([*_MARKS, *_WORDS], key=len, reverse=True))
# What may stand between a name and its result: 「は」「の結果は」「を占ったら」「→」 "is" …
_LINK = (
    r"\s*(?:を占(?:った|って|い)(?:ら|結果|ところ)?|の(?:占い|霊能)?(?:結果|判定)は?"
    r"|は|が|って|:|→|->|=|is|was|came\s+out|turned\s+out)?\s*[、,]?\s*"
)
_SEER_CLAIM = re.compile(
    r"占い?師?\s*(?:co|カミングアウト)|占い師(?:です|だよ|だ)(?!か)"
    r"|i\s*(?:am|'m|’m)\s+(?:the\s+|a\s+|your\s+)?(?:real\s+|true\s+)?seer"
    r"|seer\s*(?:co\b|here|claim)|coming\s+out\s+as\s+(?:the\s+)?seer"
)
_MEDIUM_CLAIM = re.compile(
    r"(?:霊能者?|霊媒師?)\s*(?:co|カミングアウト)|(?:霊能者|霊媒師)(?:です|だよ|だ)(?!か)"
    r"|i\s*(?:am|'m|’m)\s+(?:the\s+|a\s+|your\s+)?(?:real\s+|true\s+)?medium"
    r"|medium\s*(?:co\b|here|claim)|coming\s+out\s+as\s+(?:the\s+)?medium"
)
_COUNTER = re.compile(r"対抗\s*co|counter[- ]?claim")
_SEER_WORD = re.compile(r"占|seer|reading|divin")
_MEDIUM_WORD = re.compile(r"霊能|霊媒|霊視|medium")
_REPORT = re.compile(
    r"結果|判定|報告|でした|だった|と出|result|report|reading|divined|came\s+out|\bwas\b"
)
_OPINION = re.compile(
    r"思|気が|かも|っぽ|ぽい|怪し|でしょ|だろ|\?|think|maybe|probably|suspect|seems|might|guess"
)
_RETRACT = re.compile(
    r"撤回|取り?消|嘘でした|うそでした|騙りでした|騙りです|騙って|retract|withdraw"
    r"|take\s+(?:it|that|my\s+claim)\s+back|i\s+lied"
)
_QUESTION = re.compile(
    r"\?|どう思|どうです|どうかな|誰が|誰を|だれが|だれを|教えて|意見"
    r"|what\s+do\s+you|who\s+do\s+you|your\s+thoughts|what\s+about\s+you"
)
_AGREE = re.compile(
    r"はい|うん|了解|りょ|おk|ok|いいよ|いいね|いいです|賛成|それで|そうしよ|そうしま|任せ|まかせ"
    r"|お願い|どうぞ|yes|sure|agree|go\s+ahead|sounds\s+good|fine"
)
_NO = r"(?:やめ|だめ|ダメ|なし|反対|嫌|いや|not\b|no\b)"
_DISAGREE = re.compile(r"いや|だめ|ダメ|待って|まって|反対|やめ|\bno\b|wait|don't|not\b")


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True, eq=False)
class Names:
    """The ways a village's seats are written: (normalised alias, seat number). One object
    per village's seats (`names_of` keeps it), compared by identity: cheap as a cache key."""

    aliases: tuple[tuple[str, int], ...]

    def seat(self, alias: str) -> int:
        return _lookup(self)[alias]


@functools.lru_cache(maxsize=64)
def _lookup(names: Names) -> dict[str, int]:
    return dict(names.aliases)


def names_of(seats: Iterable[tuple[int, str]]) -> Names:
    return _names_of(tuple(seats))


@functools.lru_cache(maxsize=256)
def _names_of(seats: tuple[tuple[int, str], ...]) -> Names:
    found: dict[str, int] = {}
    for no, name in seats:
        base = name.removesuffix(BOT_MARK)
        ways = [name, base]
        if base != name and base in _EN_NAME:
            ways.append(_EN_NAME[base])
        for way in ways:
            alias = normalize(way).strip()
            if len(alias) >= 2 or alias != normalize(name):  # a one-letter name: as seated
                found.setdefault(alias, no)
    aliases = sorted(found.items(), key=lambda item: (-len(item[0]), item[0]))
    return Names(tuple((a, no) for a, no in aliases if a))


@dataclass(frozen=True)
class Result:
    seat: int
    result: str  # WOLF | HUMAN
    marked: bool  # said with a mark (●, ○), which counts wherever it is


@dataclass(frozen=True)
class Heard:
    """What one line says, before it is weighed against who said it."""

    claim: str | None  # SEER | MEDIUM: the line claims the role (占いCO, I am the seer …)
    hint: str | None  # SEER | MEDIUM: a word of the role (占, 霊能, reading …)
    results: tuple[Result, ...]
    report: bool  # worded as a report (結果, でした, was …)
    opinion: bool  # worded as an opinion or a question (思う, 怪しい, ? …)
    retracts: bool
    votes: tuple[int, ...]  # seats it says it votes for
    addressed: tuple[int, ...]  # seats spoken to (named, not as the object of the line)
    question: bool
    agrees: bool
    disagrees: bool
    named: tuple[int, ...]  # every seat named, in order
    refused: tuple[int, ...]  # seats named with a no right after (「○○さんはやめよう」)


@functools.lru_cache(maxsize=64)
def _patterns(names: Names) -> tuple[re.Pattern[str], ...]:
    alias = "|".join(re.escape(a) for a, _ in names.aliases) or r"(?!x)x"
    who = rf"(?<![a-z0-9])(?P<name>{alias})"
    return (
        re.compile(rf"{who}{_HON}{_LINK}(?P<not>not\s+)?(?:an?\s+)?(?P<res>{_RESULT})(?![a-z])"
                   r"(?P<neg>\s*(?:では|じゃ)(?:な|あり))?"),
        re.compile(rf"(?:^|(?<=[\s、,。]))(?P<res>[●⚫○◯〇⚪]){who}"),
        re.compile(rf"(?P<res>(?:黒|白|black|white)\s*[:→])\s*{who}"),
        re.compile(rf"{who}{_HON}\s*(?:に|へ)\s*(?:投票|入れ|一票|vote)"),
        re.compile(rf"{who}{_HON}\s*(?:を)?\s*吊"),
        re.compile(rf"vote\s+(?:for\s+|against\s+)?{who}"),
        re.compile(rf"(?:投票先|吊り先)\s*(?:は|:)?\s*{who}"),
        re.compile(rf"{who}(?P<after>{_HON}\s*(?:を|の)?)(?P<no>(?:は|が)?\s*{_NO})?"),
    )  # fmt: skip


def _result_of(word: str) -> str:
    word = word.rstrip(":→ ")
    return _MARKS.get(word) or _WORDS.get(word) or (WOLF if word in ("黒", "black") else HUMAN)


@functools.lru_cache(maxsize=8192)
def hear(text: str, names: Names) -> Heard:
    t = normalize(text)
    results_re, marked_re, worded_re, *votes_re, named_re = _patterns(names)
    # A mark stuck to the name after it (「●アキラ」) is that name's; any other, the name's before.
    results: list[Result] = []
    before: set[int] = set()
    for m in [*marked_re.finditer(t), *worded_re.finditer(t)]:
        before.add(m.start("res"))
        results.append(Result(names.seat(m["name"]), _result_of(m["res"]), m["res"] in _MARKS))
    for m in results_re.finditer(t):
        if m.start("res") in before:
            continue
        result = _result_of(m["res"])
        if m["not"] or m["neg"]:
            result = HUMAN if result == WOLF else WOLF
        results.append(Result(names.seat(m["name"]), result, m["res"] in _MARKS))
    votes = [names.seat(m["name"]) for p in votes_re for m in p.finditer(t)]
    named = list(named_re.finditer(t))
    claim = (
        MEDIUM
        if _MEDIUM_CLAIM.search(t) or (_COUNTER.search(t) and _MEDIUM_WORD.search(t))
        else SEER
        if _SEER_CLAIM.search(t) or _COUNTER.search(t)
        else None
    )
    hint = MEDIUM if _MEDIUM_WORD.search(t) else SEER if _SEER_WORD.search(t) else None
    disagrees = bool(_DISAGREE.search(t))
    return Heard(
        claim=claim,
        hint=hint,
        results=tuple(results),
        report=bool(_REPORT.search(t)),
        opinion=bool(_OPINION.search(t)),
        retracts=bool(_RETRACT.search(t)),
        votes=tuple(votes),
        addressed=tuple(
            names.seat(m["name"]) for m in named if not m["after"].rstrip().endswith(("を", "の"))
        ),
        question=bool(_QUESTION.search(t)),
        agrees=bool(_AGREE.search(t)) and not disagrees,
        disagrees=disagrees,
        named=tuple(names.seat(m["name"]) for m in named),
        refused=tuple(names.seat(m["name"]) for m in named if m["no"]),
    )


# --- A whole log: who claims what -------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    target: int
    result: str
    at: int  # the index of the line that said it


@dataclass(frozen=True)
class Claim:
    seat: int
    role: str  # SEER | MEDIUM
    at: int  # the index of the line that made the claim
    readings: tuple[Reading, ...]


class Said(NamedTuple):
    """A line as `claims` needs it: its index in the log, its speaker, its text."""

    at: int
    seat: int
    text: str


@functools.lru_cache(maxsize=256)  # the bots of a village hear the same talk
def claims(lines: tuple[Said, ...], names: Names, executed: frozenset[int]) -> dict[int, Claim]:
    """Each seat's standing claim, from the talk `lines` in order: a claim stands until its
    speaker retracts it; a result said with no claim before it claims seer (medium when
    it is of a seat executed earlier); a result of oneself tells nothing."""
    standing: dict[int, Claim] = {}
    for line in lines:
        heard = hear(line.text, names)
        mine = standing.get(line.seat)
        if heard.retracts:
            standing.pop(line.seat, None)
            continue
        worded = heard.claim is not None or heard.report or mine is not None
        found = [
            Reading(r.seat, r.result, line.at)
            for r in heard.results
            if r.seat != line.seat and (r.marked or (worded and not heard.opinion))
        ]
        role = heard.claim or (heard.hint if found else None)
        if role is None and found:
            dead = all(r.target in executed for r in found)
            role = mine.role if mine else MEDIUM if dead else SEER
        if role is None:
            continue
        if mine is None or mine.role != role:
            standing[line.seat] = Claim(line.seat, role, line.at, tuple(found))
        elif found:
            kept = tuple(r for r in mine.readings if r.target not in {f.target for f in found})
            standing[line.seat] = Claim(line.seat, role, mine.at, kept + tuple(found))
    return standing
