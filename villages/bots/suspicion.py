"""Whom a bot suspects and why, from its view: the claims it heard (its own kind's and
people's alike, `hearing`), what it knows itself, and the village's lean — the votes
said aloud in the current round and, after a tie, the last round's ballots.

A bot of the village follows a lone seer it has no reason to doubt, votes a wolf it knows,
then a liar (a claim that calls it a wolf while it knows itself human, that contradicts
its own readings or a lone medium's, or a seer's claim made only after that seat was
called a wolf), then, among those it cannot clear, the one the village leans to — the
votes said this round, a contested seer's wolf result, ballots cast earlier against seats
it clears — so that the votes gather as a village's would; with nothing to go on, a hunch
(which spares a claimer). A wolf leans with the village while the lean is away from its
pack; when it is on a packmate, it goes along or votes the accuser; it pushes a contested
seer it knows to be true, and a seat its pack bit without killing (a fox would steal the
pack's win).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from villages.engine.events import MessageKind
from villages.engine.roles import Role
from villages.engine.state import Phase, RoundResult

from .hearing import MEDIUM, SEER, WOLF, Claim, Names, Said, claims, hear, names_of
from .lines import key_of
from .view import BotView, Line

WOLF_SIDE = frozenset({Role.WOLF, Role.FANATIC})  # those who know the pack and vote away from it
PACK_TARGET_LINES = frozenset({"pack_attack", "pack_follow", "pack_alone"})
BUS_CHANCE = 0.5  # a wolf's chance to vote with the village against a packmate it can't save
PUSH_SEER_CHANCE = 0.5  # a wolf's chance to lead the vote onto a contested seer it knows true
REVOTE_LINES = frozenset({"revote", "revote_last", "revote_after_sudden"})


@dataclass(frozen=True)
class Lean:
    target: int
    reason: str  # "black" | "mine" | "liar" | "votes" | "hunch": why, for the line that says it


@dataclass(frozen=True)
class Mind:
    """What a bot makes of the log."""

    names: Names
    claims: dict[int, Claim]
    liars: frozenset[int]
    trusted: frozenset[int]  # claimers it follows: a lone seer, a lone medium
    verdicts: dict[int, str]  # seat → "wolf" | "human", from its own results, then the trusted
    mine: frozenset[int]  # seats whose verdict is its own reading
    stated: dict[int, tuple[int, int]]  # seat → (votes said this round, the first line's index)
    last_round: Counter[int]  # after a tie today: the ballots of the round before
    picked: int | None  # whom it named itself today (an answer), for a hunch to keep to
    accused: Counter[int]  # wolf results of seers it neither follows nor takes for liars
    cleared: frozenset[int]  # whom it takes for human: results, the trusted, its fellow common
    suspected: Counter[int]  # ballots cast earlier against seats it clears, by voter
    survived: frozenset[int]  # a wolf's: living seats its pack attacked (a guard? a fox?)


def mind_of(view: BotView) -> Mind:
    names = names_of((s.no, s.name) for s in view.seats)
    talk = _talk(view.lines)
    executed = frozenset(
        s.no
        for line in view.lines
        if line.kind is MessageKind.SYSTEM and line.code == "executed"
        for s in view.seats
        if s.name == line.params.get("name")
    )
    book = claims(tuple(talk), names, executed)
    own = {
        r.target: r.result
        for r in view.me.results
        if r.ability in ("divine", "medium") and r.result is not None
    }
    liars = _liars(view, book, own)
    trusted = _lone(book, SEER, liars) | _lone(book, MEDIUM, liars)
    verdicts = dict(own)
    for seat in sorted(trusted):
        for r in book[seat].readings:
            verdicts.setdefault(r.target, r.result)
    cleared = {s for s, result in verdicts.items() if result != WOLF} | trusted
    if view.me.role is Role.COMMON:
        cleared |= set(view.me.partners)
    return Mind(
        names=names,
        claims=book,
        liars=frozenset(liars),
        trusted=frozenset(trusted),
        verdicts=verdicts,
        mine=frozenset(own),
        stated=_stated(view, talk, names),
        last_round=_last_round(view),
        picked=_picked(view),
        accused=Counter(
            r.target
            for c in book.values()
            if c.role == SEER and c.seat not in liars | trusted
            for r in c.readings
            if r.result == WOLF
        ),
        cleared=frozenset(cleared),
        survived=_survived(view),
        suspected=Counter(
            b.voter
            for r in view.rounds
            for b in r.ballots
            if b.target in cleared and b.voter not in cleared and b.voter != view.me.seat_no
        ),
    )


def _talk(lines: tuple[Line, ...]) -> list[Said]:
    return [
        Said(i, line.seat_no, line.text)
        for i, line in enumerate(lines)
        if line.kind is MessageKind.TALK and line.seat_no is not None and line.phase is Phase.DAY
    ]


def _lone(book: dict[int, Claim], role: str, liars: set[int]) -> set[int]:
    found = {c.seat for c in book.values() if c.role == role} - liars
    return found if len(found) == 1 else set()


def _liars(view: BotView, book: dict[int, Claim], own: dict[int, str]) -> set[int]:
    me = view.me
    if me.role is Role.WOLF:
        return set()
    mine = {Role.SEER: SEER, Role.MEDIUM: MEDIUM}.get(me.role) if me.role else None
    liars = set()
    for c in book.values():
        if c.seat == me.seat_no:
            continue
        if mine is not None and c.role == mine:  # the role is mine: any other claim is a lie
            liars.add(c.seat)
        for r in c.readings:
            if r.target == me.seat_no and r.result == WOLF:
                liars.add(c.seat)
            if r.target in own and own[r.target] != r.result:
                liars.add(c.seat)
    # A seer's claim made after another seer called the claimer a wolf: a wolf's answer.
    seers = [c for c in book.values() if c.role == SEER and c.seat not in liars]
    for late in seers:
        for early in seers:
            if any(r.target == late.seat and r.result == WOLF and r.at < late.at
                   for r in early.readings):  # fmt: skip
                liars.add(late.seat)
    mediums = _lone(book, MEDIUM, liars)
    for medium in mediums:
        said = {r.target: r.result for r in book[medium].readings}
        for c in book.values():
            if c.role == SEER and any(said.get(r.target, r.result) != r.result for r in c.readings):
                liars.add(c.seat)
    return liars


def _round_lines(view: BotView) -> list[int]:
    """Indexes of today's lines of the current vote round (after the latest revote)."""
    today = [i for i, line in enumerate(view.lines) if line.day == view.day]
    revotes = [
        i
        for i in today
        if view.lines[i].kind is MessageKind.SYSTEM and view.lines[i].code in REVOTE_LINES
    ]
    return [i for i in today if not revotes or i > revotes[-1]]


def _stated(view: BotView, talk: list[Said], names: Names) -> dict[int, tuple[int, int]]:
    """Votes said aloud this round: each speaker's latest counts once."""
    current = set(_round_lines(view))
    latest: dict[int, tuple[int, int]] = {}
    for line in talk:
        if line.at in current:
            votes = hear(line.text, names).votes
            if votes and votes[-1] != line.seat:
                latest[line.seat] = (votes[-1], line.at)
    counted: dict[int, tuple[int, int]] = {}
    for target, at in latest.values():
        n, first = counted.get(target, (0, at))
        counted[target] = (n + 1, min(first, at))
    return counted


def _last_round(view: BotView) -> Counter[int]:
    """After a tie today, the ballots of the tied round (the tally everyone saw)."""
    rounds = [r for r in view.rounds if r.day == view.day]
    found: Counter[int] = Counter()
    if rounds and rounds[-1].result is RoundResult.TIE:
        for b in rounds[-1].ballots:
            found[b.target] += b.weight
    return found


def _survived(view: BotView) -> frozenset[int]:
    """Living seats the pack's lines name as a night's target (a wolf's view only)."""
    if view.me.role is not Role.WOLF:
        return frozenset()
    named = {
        line.params.get("name", "")
        for line in view.lines
        if line.kind is MessageKind.WOLF
        and line.day < view.day
        and key_of(line.code) in PACK_TARGET_LINES
    }
    return frozenset(s.no for s in view.living if s.name in named)


def _picked(view: BotView) -> int | None:
    for line in reversed(view.my_lines_today()):
        key = key_of(line.code) or ""
        if key.startswith("answer_") and "name" in line.params:
            seat = view.seat_named(line.params["name"])
            return seat.no if seat else None
    return None


# --- Leaning ------------------------------------------------------------------------------


def lean(view: BotView, mind: Mind, allowed: set[int], rng: random.Random) -> Lean | None:
    """Whom the bot would vote for among `allowed`, and why; None if nobody is allowed."""
    if not allowed:
        return None
    if view.me.role in WOLF_SIDE:
        return _wolf_lean(view, mind, allowed, rng)
    known = sorted(s for s, result in mind.verdicts.items() if result == WOLF and s in allowed)
    if known:
        target = _most_stated(mind, known)
        return Lean(target, "mine" if target in mind.mine else "black")
    liars = sorted(mind.liars & allowed)
    if liars:
        return Lean(_most_stated(mind, liars), "liar")
    grey = sorted(allowed - mind.cleared) or sorted(allowed)
    return _with_the_village(mind, grey, rng)


def _wolf_lean(view: BotView, mind: Mind, allowed: set[int], rng: random.Random) -> Lean:
    pack = {*view.me.partners, view.me.seat_no}
    humans = sorted(allowed - pack) or sorted(allowed)
    accusers = sorted(
        c.seat
        for c in mind.claims.values()
        if c.seat in humans and any(r.target in pack and r.result == WOLF for r in c.readings)
    )
    leaning = _ranked(mind, sorted(allowed))
    if leaning and leaning[0] in pack and rng.random() < BUS_CHANCE:
        return Lean(leaning[0], "votes")  # not seen trying to save a packmate
    survived = sorted(mind.survived & set(humans))
    if survived:  # bitten and alive: a fox, perhaps, who would steal the pack's win
        return Lean(_most_stated(mind, survived), "liar")
    if leaning and leaning[0] in pack and accusers:
        return Lean(_most_stated(mind, accusers), "liar")
    others = [s for s in leaning if s not in pack]
    if others:
        return Lean(others[0], "votes")
    if accusers:
        return Lean(_most_stated(mind, accusers), "liar")
    seers = [c for c in mind.claims.values() if c.role == SEER]
    true = [
        c.seat
        for c in seers
        if c.seat in humans and all((r.result == WOLF) == (r.target in pack) for r in c.readings)
    ]
    if len(seers) > 1 and true and rng.random() < PUSH_SEER_CHANCE:
        return Lean(rng.choice(sorted(true)), "liar")  # a contested seer the pack knows true
    claimers = [s for s in humans if s in mind.claims]
    quiet = [s for s in humans if s not in claimers] or humans
    return Lean(mind.picked if mind.picked in quiet else rng.choice(quiet), "hunch")


def _with_the_village(mind: Mind, grey: list[int], rng: random.Random) -> Lean:
    leaning = _ranked(mind, grey)
    if leaning:
        accused = leaning[0] not in mind.stated and (
            leaning[0] in mind.accused or leaning[0] in mind.suspected
        )
        return Lean(leaning[0], "liar" if accused else "votes")
    # A hunch spares a claimer: sending a seer to the gallows needs more than a hunch.
    quiet = [s for s in grey if s not in mind.claims] or grey
    return Lean(mind.picked if mind.picked in quiet else rng.choice(quiet), "hunch")


def _ranked(mind: Mind, seats: list[int]) -> list[int]:
    """`seats` the village leans to, most first: votes said this round and a wolf result of
    a seer whose claim is contested, then the last round's ballots; ties go to the one
    named first, as everyone sees it."""
    big = 1 << 30

    def key(s: int) -> tuple[int, int, int]:
        n, first = mind.stated.get(s, (0, big))
        said = n + mind.accused.get(s, 0) + mind.suspected.get(s, 0)
        return (-said, -mind.last_round.get(s, 0), first)

    leaning = (
        s
        for s in seats
        if s in mind.stated or mind.last_round.get(s) or s in mind.accused or s in mind.suspected
    )
    return sorted(leaning, key=key)


def _most_stated(mind: Mind, seats: list[int]) -> int:
    ranked = _ranked(mind, seats)
    return ranked[0] if ranked else seats[0]
