"""A bot that reasons a little, as a beginner would, and plays with the people beside it.

It hears the seer and medium claims said in the log, people's as well as bots'
(`hearing`), and makes of them whom it suspects (`suspicion`): a lone seer it has no
reason to doubt is followed, a liar voted, and among those it cannot clear it leans to
the one the village leans to, so that the votes gather. A seer claims and gives its
readings, a medium its results; a wolf hides, votes with the village away from its pack,
sometimes claims seer falsely, and shares the night with a person of its pack (`pack`).
A madman and a fox sometimes claim seer too; a seer in a village with a fox divines its
rivals first (a fox melts); the guard mostly guards whom the village trusts.

Each day it says a few lines, one per look, each in a wording nobody has said that day
(`lines.fresh`); a person who names it in a question (「○○さんはどう思う？」) gets its
answer at its next look: whom it suspects and why. It votes as people do: not at dawn,
but once the others have voted (every person in the village, or half of the voters) or
the later part of the day has come (less than LATE_SHARE of its time left), and at once
when the time is up or short, so that it has heard the day's talk and never dies of
sudden death. While it keeps its vote it waits: for the village's next change, and in
real time for the moment the later part comes. When no person is left alive but bots, it
votes once it has had its say.
"""

from __future__ import annotations

import random

from villages.engine.events import MessageKind
from villages.engine.roles import Role
from villages.engine.state import Phase
from villages.engine.texts import DEATH_LINES
from villages.engine.visibility import SeatView

from .commands import Act, Command, Say, Vote, Wait
from .hearing import hear
from .legal import cupid_pair
from .lines import fresh, key_of
from .pack import shared_night
from .suspicion import Lean, Mind, lean, mind_of
from .view import BotView

NAME = "reasoning"
FALSE_CLAIM_CHANCE = 0.3  # a wolf's chance to claim seer on the first day nobody has
MADMAN_CLAIM_CHANCE = 0.6  # a madman's chance to claim seer on its first day, claimed or not
MADMAN_BLACK = 0.3  # a madman claiming seer calls its reading a wolf this often
FOX_CLAIM_CHANCE = 0.3  # a fox's chance to claim seer on its first day, to pass for one
COUNTER_CLAIM_CHANCE = 0.5  # a wolf's chance to claim seer when a seer calls it a wolf
CLAIMER_ATTACK_CHANCE = 0.6  # the wolves' chance to bite a seer that spoke up
GUARD_TRUSTED_CHANCE = 0.6  # the guard's chance to guard the claimer it trusts (else anyone)
HURRY_SECONDS = 60  # in real time, a bot with less left than this votes at once
LATE_SHARE = 0.4  # the later part of the day: less than this share of its time is left

CLAIM_KEYS = frozenset({"seer_claim", "seer_result"})
OPENING_KEYS = CLAIM_KEYS | {"greet", "greet_quiet", "medium_claim", "medium_result"}
VOTE_LINE = {  # why it votes (`suspicion.Lean.reason`) → the line that says so
    "black": "vote_black",
    "mine": "vote_black",
    "liar": "vote_doubt",
    "votes": "vote_follow",
    "hunch": "vote_hunch",
}


def decide(view: BotView, rng: random.Random) -> list[Command]:
    if not view.me.alive:
        return []
    if view.phase is Phase.NIGHT:
        return _night(view, rng)
    if view.phase is Phase.DAY:
        return _day(view, rng)
    return []


# --- Day ----------------------------------------------------------------------------------


def _day(view: BotView, rng: random.Random) -> list[Command]:
    """One line per look, from a plan that only grows through the day: an answer to a
    person who asked it, a claim (or a greeting), a word for the night's victim; then,
    when the time to vote has come (`_time_to_vote`), the lines not yet said, whom it
    votes for and why, and the vote; else a wait."""
    mind = mind_of(view)
    said_texts = {x.text for x in view.lines if x.day == view.day}
    plan = _plan(view, mind, rng)
    allowed = set(view.targets("vote"))
    if allowed and _time_to_vote(view):
        choice = lean(view, mind, allowed, rng)
        assert choice is not None
        if not _said_vote_this_round(view):
            plan.append(Say(VOTE_LINE[choice.reason], {"name": view.seat(choice.target).name}))
        return [*_worded(plan, said_texts, rng), Vote(choice.target)]
    out: list[Command] = [*_worded(plan, said_texts, rng)[:1]]
    if allowed:
        out.append(Wait(_until_late(view)))
    return out


def _plan(view: BotView, mind: Mind, rng: random.Random) -> list[Say]:
    """What it still means to say today, in order (a line it said is done)."""
    keys = {key_of(x.code) for x in view.my_lines_today()}
    plan = []
    asker = _asked_by(view, mind)
    if asker is not None:
        plan.append(_answer(view, mind, asker, rng))
    if not keys & OPENING_KEYS:
        plan += _claim_lines(view, mind, rng) or [Say("greet")]
    if "mourn" not in keys:
        found = _found_dead_today(view)
        plan += [
            Say("mourn", {"name": s.name})
            for s in view.seats
            if not s.alive and not s.dummy and s.no != view.me.seat_no and s.name in found
        ][:1]
    return plan


def _worded(plan: list[Say], said: set[str], rng: random.Random) -> list[Say]:
    """Each line of `plan` in a wording nobody said today (a line with none left is not
    said: a bot never repeats a sentence of the day)."""
    out = []
    for line in plan:
        params = fresh(line.key, line.params, said, rng)
        if params is not None:
            out.append(Say(line.key, params))
    return out


def _said_vote_this_round(view: BotView) -> bool:
    """It said whom it votes for since the day's last revote began."""
    revote = max(
        (i for i, x in enumerate(view.lines) if x.day == view.day and x.code.startswith("revote")),
        default=-1,
    )
    return any(
        (key_of(x.code) or "").startswith("vote_")
        for i, x in enumerate(view.lines)
        if i > revote
        and x.day == view.day
        and x.phase is Phase.DAY
        and x.seat_no == view.me.seat_no
    )


def _asked_by(view: BotView, mind: Mind) -> int | None:
    """A person who, since the bot last spoke today, named it in a question."""
    me = view.me.seat_no
    asker = None
    for line in view.lines:
        if line.day != view.day or line.phase is not Phase.DAY or line.kind is not MessageKind.TALK:
            continue
        if line.seat_no == me:
            asker = None
        elif line.seat_no is not None and not view.seat(line.seat_no).bot:
            heard = hear(line.text, mind.names)
            if heard.question and me in heard.addressed:
                asker = line.seat_no
    return asker


def _answer(view: BotView, mind: Mind, asker: int, rng: random.Random) -> Say:
    allowed = {s.no for s in view.living if s.no not in (view.me.seat_no, asker) and not s.dummy}
    if view.me.vote is not None:
        allowed = {view.me.vote}
    choice = lean(view, mind, allowed, rng)
    who = {"asker": view.seat(asker).name}
    if choice is None:
        return Say("answer_none", who)
    return Say(f"answer_{choice.reason}", {**who, "name": view.seat(choice.target).name})


def _claim_lines(view: BotView, mind: Mind, rng: random.Random) -> list[Say]:
    me = view.me
    said_before = any(key_of(x.code) in CLAIM_KEYS for x in view.lines if x.seat_no == me.seat_no)
    if me.role is Role.SEER:
        latest = [r for r in me.results if r.ability == "divine" and r.result]
        if latest:
            r = latest[-1]
            key = "seer_result" if said_before else "seer_claim"
            return [Say(key, {"name": view.seat(r.target).name, "result": r.result or ""})]
    if me.role is Role.MEDIUM:
        latest = [r for r in me.results if r.ability == "medium" and r.day == view.day - 1]
        if latest:
            r = latest[-1]
            claimed = any(
                key_of(x.code) == "medium_claim" for x in view.lines if x.seat_no == me.seat_no
            )
            key = "medium_result" if claimed else "medium_claim"
            return [Say(key, {"name": view.seat(r.target).name, "result": r.result or ""})]
    if me.role in (Role.WOLF, Role.MADMAN, Role.FOX):
        return _false_claim(view, mind, rng, said_before)
    return []


def _false_claim(view: BotView, mind: Mind, rng: random.Random, said_before: bool) -> list[Say]:
    me = view.me
    pack = set(me.partners) | {me.seat_no}
    accused = any(
        r.target == me.seat_no and r.result == "wolf"
        for c in mind.claims.values()
        for r in c.readings
    )
    nobody_claimed = not mind.claims
    if not (
        said_before
        or (me.role is Role.MADMAN and rng.random() < MADMAN_CLAIM_CHANCE)
        or (me.role is Role.FOX and rng.random() < FOX_CLAIM_CHANCE)
        or (nobody_claimed and rng.random() < FALSE_CLAIM_CHANCE)
        or (accused and rng.random() < COUNTER_CLAIM_CHANCE)
    ):
        return []
    others = [s for s in view.living if s.no not in pack and not s.dummy]
    if not others:
        return []
    accusers = [s for s in others if s.no in mind.claims]
    if accused and accusers:
        target, result = rng.choice(accusers), "wolf"
    elif me.role is Role.MADMAN:  # it knows nobody: a black here and there, at random
        target, result = rng.choice(others), "wolf" if rng.random() < MADMAN_BLACK else "human"
    else:
        target, result = rng.choice(others), "human"
    key = "seer_result" if said_before else "seer_claim"
    return [Say(key, {"name": target.name, "result": result})]


def _time_to_vote(view: BotView) -> bool:
    """People vote late in the day, or once the others have: so does the bot; at once
    when the time is up or nearly up. Among bots only (no person left alive to talk
    with), it votes once it has had its say."""
    short = view.seconds_left is not None and view.seconds_left < HURRY_SECONDS
    late = view.share_left is not None and view.share_left < LATE_SHARE
    others = [
        s
        for s in view.living
        if s.no != view.me.seat_no and not s.dummy and s.has_voted is not None
    ]
    people = [s for s in others if not s.bot]
    if not people and view.my_lines_today():
        return True
    return view.time_up or short or late or _others_voted(others, people)


def _others_voted(others: list[SeatView], people: list[SeatView]) -> bool:
    """Every other person (a seat no bot plays) has voted, or half of the other voters."""
    if people and all(s.has_voted for s in people):
        return True
    return bool(others) and 2 * sum(1 for s in others if s.has_voted) >= len(others)


def _until_late(view: BotView) -> float | None:
    """Real seconds until the later part of a real-time day has come (or its time is
    short); None with virtual time, which only talk and silence spend (changes that wake
    the bot)."""
    left, share = view.seconds_left, view.share_left
    if left is None or not share:
        return None
    length = left / share
    # A second into it, so that the look at the alarm finds it come.
    return max(0.0, min(left - LATE_SHARE * length, left - HURRY_SECONDS)) + 1.0


def _found_dead_today(view: BotView) -> set[str]:
    """The names today's death lines give (the night's victims, found this morning), read
    by the lines' code."""
    return {
        line.params.get("name", "")
        for line in view.lines
        if line.kind is MessageKind.SYSTEM and line.day == view.day and line.code in DEATH_LINES
    }


# --- Night --------------------------------------------------------------------------------


def _night(view: BotView, rng: random.Random) -> list[Command]:
    for ability in view.duties:
        if ability == "cupid":
            pair = cupid_pair(view, rng)
            return [Act(ability, pair)] if pair else []
        targets = view.targets(ability)
        if not targets:
            continue
        target = _night_target(view, ability, targets, rng)
        if ability == "attack":
            shared = shared_night(view, rng, target)
            if shared is not None:
                return shared
            said = {x.text for x in view.lines if x.day == view.day}
            words = _worded([Say("pack_attack", {"name": view.seat(target).name})], said, rng)
            return [*words, Act(ability, (target,))]
        return [Act(ability, (target,))]
    return []


def _night_target(view: BotView, ability: str, targets: list[int], rng: random.Random) -> int:
    mind = mind_of(view)
    claimers = sorted(set(mind.claims) & set(targets))
    if ability == "attack":  # a claimer whose readings the pack knows false is no threat
        pack = {*view.me.partners, view.me.seat_no}
        claimers = [
            c
            for c in claimers
            if all((r.result == "wolf") == (r.target in pack) for r in mind.claims[c].readings)
        ]
    if ability == "attack" and claimers and rng.random() < CLAIMER_ATTACK_CHANCE:
        return rng.choice(claimers)  # a seer that spoke up is in danger
    if ability == "attack":  # not again whom the pack's bite did not kill (a fox?)
        return rng.choice([no for no in targets if no not in mind.survived] or targets)
    if ability == "guard":  # mostly whom the village trusts, a seer first
        trusted = sorted(mind.trusted & set(targets), key=lambda no: mind.claims[no].role != "seer")
        if trusted and rng.random() < GUARD_TRUSTED_CHANCE:
            return trusted[0]
    if ability == "divine":
        known = {r.target for r in view.me.results if r.ability == "divine"}
        cleared = {s for s, result in mind.verdicts.items() if result == "human"}
        fresh_ = [no for no in targets if no not in known and no not in cleared]
        rivals = [no for no in fresh_ if no in mind.claims]
        if rivals and _cast_has(view, "fox"):  # a fox may be hiding behind a claim: it melts
            return rng.choice(rivals)
        return rng.choice(fresh_ or [no for no in targets if no not in known] or targets)
    return rng.choice(targets)


def _cast_has(view: BotView, role: str) -> bool:
    """Whether the cast told at the start (its line's params) has `role`."""
    told = [line.params.get("cast", "") for line in view.lines if line.code == "game_start"]
    return any(f"{role}=" in cast for cast in told)


__all__ = ["NAME", "Lean", "decide"]
