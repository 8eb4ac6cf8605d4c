"""What to send an agent next, and what its answer means: one agent's dialogue, pure.

The door asks `Dialogue.next(look)` at every change of the village and whenever the
last `Sleep` runs out; the answer is a packet to send (`Tell`), a packet that waits for
the agent's line (`Ask`), or a time to look again (`Sleep`). `answered` turns the line
into a command for the services (`Say`, `Vote`, `Act`) or nothing.

The classic rules keep time (docs/aiwolf.md):
* Talk comes in rounds. Round k of a phase starts `round_seconds` × k after the phase
  began; in it every living agent is asked once, in an order drawn from the village's
  seed for that round, spread over the round. `Over` ends an agent's talk for the phase,
  `Skip` passes a round; an agent is asked at most `talks_per_day` times a day.
* The vote is asked once the agent has no more to say (`Over`, or its talks used up),
  when the day's time is nearly or wholly spent, or when every other living seat has
  voted: always before the sudden-death grace runs out.
* At night the seer and the guard are asked at once; wolves whisper first (where two or
  more of them live), then the one whose turn it is attacks.
* A refused target is asked again at once (up to `TRIES` times), as a person would try
  again, then once a round until the deadline: an agent that keeps naming a seat the
  rules refuse is left to the sudden-death deadline only if it never names a good one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from villages.engine.state import Phase

from .packets import Look, last_heard, packet

OVER = "Over"
SKIP = "Skip"
FORCE_SKIP = "ForceSkip"
TRIES = 3  # quick asks for a target; after them, one ask a round
VOTE_WHEN_SHARE_LEFT = 0.3  # the day's time left at which every agent is asked to vote
ATTACK_WHEN_SHARE_LEFT = 0.5
LONGEST_SLEEP = 2.0  # seconds: real time passes without changes (a real-time village)

NIGHT_ASKS = {"divine": "DIVINE", "guard": "GUARD", "attack": "ATTACK"}


@dataclass(frozen=True)
class Tell:
    packet: dict[str, Any]


@dataclass(frozen=True)
class Ask:
    request: str
    packet: dict[str, Any]


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class Vote:
    target: int


@dataclass(frozen=True)
class Act:
    ability: str
    target: int


Step = Tell | Ask | Sleep
Command = Say | Vote | Act


class Dialogue:
    """One connection's dialogue with one agent seat (a reconnection starts a new one,
    which tells the agent the game from `INITIALIZE` again)."""

    def __init__(self) -> None:
        self.initialized = False
        self.finished = False
        self.opened_day: int | None = None  # the day DAILY_INITIALIZE was sent for
        self.closed_day: int | None = None  # the day DAILY_FINISH was sent for
        self.sent_up_to = 0  # the last line id the agent has been sent
        self.phase_key: tuple[int, Phase] | None = None
        self._reset()

    def _reset(self) -> None:
        self.talks = 0
        self.skips = 0
        self.over = False
        self.asked_round = -1
        self.tries: dict[str, int] = {}
        self.asked_for: dict[str, int] = {}  # the round of the last ask for a target, by duty

    # -- what to send -----------------------------------------------------------------------

    def next(self, look: Look) -> Step:
        view = look.view
        if view.phase is Phase.WAITING:
            return Sleep(LONGEST_SLEEP * 5)
        if not self.initialized:
            self.initialized = True
            return self._tell("INITIALIZE", look, with_setting=True)
        if view.phase is Phase.ENDED:
            if self.finished:
                return Sleep(LONGEST_SLEEP * 5)
            self.finished = True
            return self._tell("FINISH", look)
        if view.phase is Phase.DAY and self.opened_day != view.day:
            self.opened_day = view.day
            return self._tell("DAILY_INITIALIZE", look, with_setting=True)
        if view.phase is Phase.NIGHT and self.opened_day == view.day != self.closed_day:
            self.closed_day = view.day
            return self._tell("DAILY_FINISH", look)
        if self.phase_key != (view.day, view.phase):
            self.phase_key = (view.day, view.phase)
            self._reset()
        if not view.me.alive:
            return Sleep(LONGEST_SLEEP * 5)
        if view.phase is Phase.DAY:
            return self._day(look)
        return self._night(look)

    def _day(self, look: Look) -> Step:
        view = look.view
        if view.me.vote is not None:
            self.tries.pop("vote", None)  # a revote asks again
            self.asked_for.pop("vote", None)
        done_talking = self.over or self.talks >= look.limits.talks_per_day
        if "vote" in view.duties and self._may_try("vote", look):
            others_voted = all(
                s.has_voted for s in view.seats if s.alive and s.no != view.me.seat_no
            )
            late = view.time_up or (view.share_left or 0.0) <= VOTE_WHEN_SHARE_LEFT
            if done_talking or late or others_voted:
                return self._ask_target("vote", look)
        if done_talking or view.time_up:
            return Sleep(LONGEST_SLEEP)
        return self._talk_turn("TALK", look, look.limits.talks_per_day)

    def _night(self, look: Look) -> Step:
        view = look.view
        for duty in view.duties:
            request = NIGHT_ASKS.get(duty)
            if request is None or not self._may_try(duty, look):
                continue
            if duty == "attack" and not self._ready_to_attack(look):
                return self._talk_turn("WHISPER", look, look.limits.whispers_per_night)
            return self._ask_target(duty, look)
        return Sleep(LONGEST_SLEEP)

    def _ready_to_attack(self, look: Look) -> bool:
        view = look.view
        if look.living_wolves_known < 2 or view.time_up:
            return True
        done = self.over or self.talks >= look.limits.whispers_per_night
        return done or (view.share_left or 0.0) <= ATTACK_WHEN_SHARE_LEFT

    def _talk_turn(self, request: str, look: Look, limit: int) -> Step:
        """The agent's turn in the current round, or a sleep until it comes."""
        if self.over or self.talks >= limit:
            return Sleep(LONGEST_SLEEP)
        period, elapsed = self._clock(look)
        round_no = int(elapsed // period)
        if round_no <= self.asked_round:
            return Sleep(min(period * (round_no + 1) - elapsed, LONGEST_SLEEP))
        speakers = sorted(look.living_wolf_agents if request == "WHISPER" else look.living_agents)
        random.Random(f"{look.seed}:{look.view.day}:{look.view.phase}:{round_no}").shuffle(speakers)
        place = speakers.index(look.view.me.seat_no) if look.view.me.seat_no in speakers else 0
        turn_at = period * (round_no + place / max(len(speakers), 1))
        if elapsed < turn_at:
            return Sleep(min(turn_at - elapsed, LONGEST_SLEEP))
        self.asked_round = round_no
        remain = {
            "remain_count": limit - self.talks,
            "remain_length": None,
            "remain_skip": max(look.limits.skips - self.skips, 0),
        }
        return self._ask(request, look, remain=remain)

    @staticmethod
    def _clock(look: Look) -> tuple[float, float]:
        """The round's length and the seconds since the phase began."""
        started = look.phase_started_at or look.now
        return max(look.limits.round_seconds, 0.1), max((look.now - started).total_seconds(), 0.0)

    def _round(self, look: Look) -> int:
        period, elapsed = self._clock(look)
        return int(elapsed // period)

    def _may_try(self, duty: str, look: Look) -> bool:
        """Quick tries first, then one a round."""
        if self.tries.get(duty, 0) < TRIES:
            return True
        return self._round(look) > self.asked_for.get(duty, -1)

    def _ask_target(self, duty: str, look: Look) -> Ask:
        self.asked_for[duty] = self._round(look)
        request = "VOTE" if duty == "vote" else NIGHT_ASKS[duty]
        return self._ask(request, look)

    # -- packets -----------------------------------------------------------------------------

    def _tell(self, request: str, look: Look, *, with_setting: bool = False) -> Tell:
        built = packet(request, look, after=self.sent_up_to, with_setting=with_setting)
        self.sent_up_to = last_heard(look)
        return Tell(built)

    def _ask(self, request: str, look: Look, *, remain: dict[str, int | None] | None = None) -> Ask:
        built = packet(request, look, after=self.sent_up_to, remain=remain)
        self.sent_up_to = last_heard(look)
        return Ask(request, built)

    # -- what the answer means -------------------------------------------------------------

    def answered(self, ask: Ask, text: str | None, look: Look) -> Command | None:
        """The command the agent's answer to `ask` makes (None: no answer, a pass, or
        `Over`); a target the agent names that is no seat counts as a refused try."""
        line = (text or "").strip()
        if ask.request in ("TALK", "WHISPER"):
            return self._talked(line, look)
        duty = "vote" if ask.request == "VOTE" else ask.request.lower()
        target = look.seat_named(line) if line else None
        if target is None:
            self.refused(duty)
            return None
        return Vote(target) if duty == "vote" else Act(duty, target)

    def _talked(self, line: str, look: Look) -> Command | None:
        if not line or line == OVER:
            self.over = True
            return None
        if line in (SKIP, FORCE_SKIP):
            self.skips += 1
            if self.skips > look.limits.skips:
                self.over = True
            return None
        self.talks += 1
        self.skips = 0
        return Say(line[: look.limits.chars_per_talk])

    def refused(self, duty: str) -> None:
        """The rules refused the agent's target (or it named none): one try spent."""
        self.tries[duty] = self.tries.get(duty, 0) + 1

    def timed_out(self, ask: Ask) -> None:
        """No answer within `timeout.action`: a talk is a pass, a target a spent try."""
        if ask.request in ("TALK", "WHISPER"):
            self.skips += 1
        else:
            self.refused("vote" if ask.request == "VOTE" else ask.request.lower())
