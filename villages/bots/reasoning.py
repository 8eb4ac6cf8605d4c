"""A bot that reasons a little, as a beginner would.

It reads the seer claims and readings said in the log, trusts a lone seer it has no
reason to doubt (a claim that calls it a wolf while it knows itself human, or that
contradicts its own readings, is a lie), and votes for a wolf it knows, then for a liar,
then at random among those it cannot clear. A seer claims and gives its readings, a
medium its results; a wolf hides, votes with the village's suspicion away from its
pack, and sometimes claims seer falsely. Each day it says a few lines, one per look,
and votes as people do: not at dawn, but once the others have voted (every person in
the village, or half of the voters) or the later part of the day has come (less than
LATE_SHARE of its time left), and at once when the time is up or short, so that it has
heard the day's talk and never dies of sudden death. While it keeps its vote it waits:
for the village's next change, and in real time for the moment the later part comes.
When no person is left alive but bots, it votes once it has had its say.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from villages.engine.events import MessageKind
from villages.engine.roles import Role
from villages.engine.state import Phase
from villages.engine.texts import DEATH_LINES
from villages.engine.visibility import SeatView

from .commands import Act, Command, Say, Vote, Wait
from .legal import cupid_pair
from .lines import seer_readings
from .view import BotView

NAME = "reasoning"
FALSE_CLAIM_CHANCE = 0.3  # a wolf's chance to claim seer on the first day nobody has
CLAIMER_ATTACK_CHANCE = 0.6  # the wolves' chance to bite a seer that spoke up
HURRY_SECONDS = 60  # in real time, a bot with less left than this votes at once
LATE_SHARE = 0.4  # the later part of the day: less than this share of its time is left


@dataclass(frozen=True)
class Reading:
    claimer: int
    target: int
    result: str  # "wolf" | "human"


def decide(view: BotView, rng: random.Random) -> list[Command]:
    if not view.me.alive:
        return []
    if view.phase is Phase.NIGHT:
        return _night(view, rng)
    if view.phase is Phase.DAY:
        return _day(view, rng)
    return []


# --- What the log says ------------------------------------------------------------------


def _readings(view: BotView) -> list[Reading]:
    found = []
    for line in view.lines:
        if line.kind is not MessageKind.TALK or line.seat_no is None:
            continue
        for name, result in seer_readings([line.text]):
            target = view.seat_named(name)
            if target is not None and target.no != line.seat_no:
                found.append(Reading(line.seat_no, target.no, result))
    return found


def _own_readings(view: BotView) -> dict[int, str]:
    """Seat → "wolf" | "human" from the bot's own divinations and medium results (a guard's
    "guarded" is no reading)."""
    return {
        r.target: r.result
        for r in view.me.results
        if r.ability in ("divine", "medium") and r.result is not None
    }


def _liars(view: BotView, readings: list[Reading]) -> set[int]:
    me, mine = view.me, _own_readings(view)
    liars = set()
    for r in readings:
        if r.claimer == me.seat_no:
            continue
        wrong_about_me = r.target == me.seat_no and r.result == "wolf" and me.role is not Role.WOLF
        against_mine = r.target in mine and mine[r.target] != r.result
        if wrong_about_me or against_mine or (me.role is Role.SEER and r.claimer != me.seat_no):
            liars.add(r.claimer)
    return liars


def _trusted(view: BotView, readings: list[Reading], liars: set[int]) -> set[int]:
    """A lone claimer not known to lie is followed; two or more, none."""
    claimers = {r.claimer for r in readings if r.claimer != view.me.seat_no} - liars
    return claimers if len(claimers) == 1 else set()


# --- Day ----------------------------------------------------------------------------------


def _suspects(view: BotView) -> list[tuple[str, list[int]]]:
    """Whom the bot would vote for, best first: (the line that says why, the seats)."""
    me = view.me
    allowed = set(view.targets("vote")) | ({me.vote} if me.vote is not None else set())
    if me.role is Role.WOLF:
        pack = set(me.partners)
        claimers = {r.claimer for r in _readings(view)} & allowed - pack
        accusers = {r.claimer for r in _readings(view) if r.target in pack | {me.seat_no}}
        doubted = sorted((accusers & allowed) - pack) or sorted(claimers)
        return [("vote_doubt", doubted), ("vote_hunch", sorted(allowed - pack) or sorted(allowed))]
    readings = _readings(view)
    liars = _liars(view, readings)
    trusted = _trusted(view, readings, liars)
    verdicts = dict(_own_readings(view))
    for r in readings:
        if r.claimer in trusted:
            verdicts.setdefault(r.target, r.result)
    wolves = sorted(no for no, result in verdicts.items() if result == "wolf" and no in allowed)
    cleared = {no for no, result in verdicts.items() if result == "human"} | trusted
    unknown = sorted(allowed - cleared)
    return [
        ("vote_black", wolves),
        ("vote_doubt", sorted(liars & allowed)),
        ("vote_hunch", unknown or sorted(allowed)),
    ]


def _vote_choice(view: BotView, rng: random.Random) -> tuple[int, str]:
    """(target, the line that says why)."""
    allowed = set(view.targets("vote"))
    for reason, seats in _suspects(view):
        pick = [no for no in seats if no in allowed]
        if pick:
            return rng.choice(pick), reason
    return rng.choice(sorted(allowed)), "vote_hunch"


def _reason_of(view: BotView, target: int) -> str:
    """Why the bot voted for `target` (a vote of an earlier look)."""
    return next((reason for reason, seats in _suspects(view) if target in seats), "vote_hunch")


def _claim_lines(view: BotView, rng: random.Random) -> list[Say]:
    me = view.me
    said_before = any(
        line.seat_no == me.seat_no and seer_readings([line.text]) for line in view.lines
    )
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
            return [
                Say("medium_result", {"name": view.seat(r.target).name, "result": r.result or ""})
            ]
    if me.role is Role.WOLF:
        nobody_claimed = not _readings(view)
        if said_before or (nobody_claimed and rng.random() < FALSE_CLAIM_CHANCE):
            pack = set(me.partners) | {me.seat_no}
            others = [s for s in view.living if s.no not in pack]
            if others:
                target = rng.choice(others)
                key = "seer_result" if said_before else "seer_claim"
                return [Say(key, {"name": target.name, "result": "human"})]
    return []


def _day(view: BotView, rng: random.Random) -> list[Command]:
    """One line per look, in a plan that only grows through the day: a claim (or a
    greeting), a word for the night's victim, then whom it votes for and why; the vote
    itself when the time to vote has come (`_time_to_vote`), with the plan's lines not yet
    said (the day may end with the vote), else a wait."""
    me = view.me
    said = len(view.my_lines_today())
    plan = _claim_lines(view, rng) or [Say("greet" if rng.random() < 0.5 else "greet_quiet")]
    plan += [
        Say("mourn", {"name": s.name})
        for s in view.seats
        if not s.alive and not s.dummy and s.no != me.seat_no and _died_last_night(view, s.no)
    ][:1]
    target = None
    if view.targets("vote") and _time_to_vote(view):
        target, reason = _vote_choice(view, rng)
        plan.append(Say(reason, {"name": view.seat(target).name}))
    elif me.vote is not None:
        plan.append(Say(_reason_of(view, me.vote), {"name": view.seat(me.vote).name}))
    if target is not None:  # what it has not said yet, why it votes last, and the vote
        return [*plan[said:], Vote(target)]
    out: list[Command] = [*plan[said : said + 1]]
    if view.targets("vote"):
        out.append(Wait(_until_late(view)))
    return out


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


def _died_last_night(view: BotView, no: int) -> bool:
    """A dead seat that a line of today tells the death of (the night's victims, found
    this morning), read by the line's code and the name it gives."""
    name = view.seat(no).name
    return any(
        line.kind is MessageKind.SYSTEM
        and line.day == view.day
        and line.code in DEATH_LINES
        and line.params.get("name") == name
        for line in view.lines
    )


# --- Night --------------------------------------------------------------------------------


def _night(view: BotView, rng: random.Random) -> list[Command]:
    for ability in view.duties:
        if ability == "cupid":
            pair = cupid_pair(view, rng)
            return [Act(ability, pair)] if pair else []
        targets = view.targets(ability)
        if not targets:
            continue
        return [Act(ability, (_night_target(view, ability, targets, rng),))]
    return []


def _night_target(view: BotView, ability: str, targets: list[int], rng: random.Random) -> int:
    readings = _readings(view)
    claimers = sorted({r.claimer for r in readings} & set(targets))
    if ability == "attack" and claimers and rng.random() < CLAIMER_ATTACK_CHANCE:
        return rng.choice(claimers)  # a seer that spoke up is in danger
    if ability == "guard":
        trusted = sorted(_trusted(view, readings, _liars(view, readings)) & set(targets))
        if trusted:
            return trusted[0]
    if ability == "divine":
        known = set(_own_readings(view))
        fresh = [no for no in targets if no not in known]
        return rng.choice(fresh or targets)
    return rng.choice(targets)
