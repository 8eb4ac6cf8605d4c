"""The contest's packets, built from what the agent's seat may see.

A `Look` is the seat's view at one moment (`villages.bots.view.BotView`, from the one
visibility module) with the lines it hears, numbered, and the public tallies. Every
field of every packet comes from it: `role_map` holds the roles the seat knows (its own;
a wolf's pack; everything once the game is over, or for the dead where SPEC §8 shows
them), the talk and whispers are the lines as the seat hears them, the results its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from villages.bots.view import BotView
from villages.engine.events import MessageKind
from villages.engine.roles import Role
from villages.engine.state import Phase
from villages.engine.visibility import AbilityResult, VoteRoundView

# Our roles as the protocol names them; an agent's seat is dealt only these
# (`villages.engine.cast.AGENT_ROLES`). Roles the protocol has no name for are left out
# of `role_map` and `role_num_map`.
ROLE_NAMES: dict[Role, str] = {
    Role.VILLAGER: "VILLAGER",
    Role.SEER: "SEER",
    Role.MEDIUM: "MEDIUM",
    Role.GUARD: "BODYGUARD",
    Role.WOLF: "WEREWOLF",
    Role.MADMAN: "POSSESSED",
}


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def game_ulid(millis: int, entropy: int) -> str:
    """The game's id as the contest server gives it: a ULID (48 bits of milliseconds, 80
    of entropy, in Crockford's base 32). Agents read it as one (the contest's sample agent
    names its log folder by its time); ours is the village's, the same on every packet."""
    value = ((millis & (2**48 - 1)) << 80) | (entropy & (2**80 - 1))
    return "".join(_CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def protocol_day(day: int) -> int:
    """The contest counts from day 0 (a day, then night 0); the classic game from night 1,
    then day 2. Our night 1 is the contest's night 0, our day 2 its day 1, and so on."""
    return max(day - 1, 0)


@dataclass(frozen=True)
class Heard:
    """A line as the seat hears it (`see_message`), with its id and, for a system line,
    its code and params."""

    id: int
    day: int
    phase: Phase
    kind: MessageKind
    seat_no: int | None
    text: str
    code: str = ""
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Limits:
    """What the site applies to an agent, told in `setting`."""

    talks_per_day: int
    whispers_per_night: int
    skips: int
    chars_per_talk: int
    timeout_ms: int
    round_seconds: float
    revotes: int


@dataclass(frozen=True)
class Look:
    game_id: str
    seed: int
    view: BotView
    heard: tuple[Heard, ...]
    rounds: tuple[VoteRoundView, ...]  # every vote round (public), voided ones without ballots
    cast: Mapping[Role, int]  # the public cast of the game (the start line tells it)
    limits: Limits
    now: datetime
    phase_started_at: datetime | None = None

    def name(self, seat_no: int | None) -> str:
        found = next((s.name for s in self.view.seats if s.no == seat_no), None)
        return found or ""

    def seat_named(self, name: str) -> int | None:
        found = self.view.seat_named(name.strip())
        return found.no if found is not None else None

    @property
    def living_agents(self) -> list[int]:
        return [s.no for s in self.view.seats if s.alive and s.agent]

    @property
    def living_wolf_agents(self) -> list[int]:
        """The living agents the seat knows as wolves (its pack, for a wolf)."""
        return [s.no for s in self.view.seats if s.alive and s.agent and s.role is Role.WOLF]

    @property
    def living_wolves_known(self) -> int:
        return sum(1 for s in self.view.seats if s.alive and s.role is Role.WOLF)


def _judge(look: Look, result: AbilityResult | None) -> dict[str, Any] | None:
    if result is None or result.result not in ("human", "wolf"):
        return None
    return {
        "day": protocol_day(result.day),
        "agent": look.name(result.seat_no),
        "target": look.name(result.target),
        "result": "WEREWOLF" if result.result == "wolf" else "HUMAN",
    }


def _latest(results: Sequence[AbilityResult], ability: str) -> AbilityResult | None:
    mine = [r for r in results if r.ability == ability]
    return mine[-1] if mine else None


def _votes(look: Look) -> list[dict[str, Any]] | None:
    """The ballots of the latest counted round (開票 is public)."""
    counted = [r for r in look.rounds if r.ballots]
    if not counted:
        return None
    last = counted[-1]
    return [
        {"day": protocol_day(b.day), "agent": look.name(b.voter), "target": look.name(b.target)}
        for b in last.ballots
    ]


def _executed(look: Look) -> str | None:
    """Who was executed on the day before this one (our days: today - 1)."""
    day = look.view.day - (1 if look.view.phase is Phase.DAY else 0)
    for r in reversed(look.rounds):
        if r.day == day and r.executed is not None:
            return look.name(r.executed)
    return None


def _attacked(look: Look) -> str | None:
    """Who was found dead this morning (the dawn's line, public)."""
    if look.view.phase is not Phase.DAY:
        return None
    for line in look.heard:
        if line.day == look.view.day and line.code == "found_dead":
            return line.params.get("name") or None
    return None


def info(look: Look, **remain: int | None) -> dict[str, Any]:
    view = look.view
    me = view.me
    return {
        "game_id": look.game_id,
        "day": protocol_day(view.day),
        "agent": look.name(me.seat_no),
        "profile": None,
        "medium_result": _judge(look, _latest(me.results, "medium")),
        "divine_result": _judge(look, _latest(me.results, "divine")),
        "executed_agent": _executed(look),
        "attacked_agent": _attacked(look),
        "vote_list": _votes(look),
        "attack_vote_list": None,
        "status_map": {s.name: "ALIVE" if s.alive else "DEAD" for s in view.seats},
        "role_map": {
            s.name: ROLE_NAMES[s.role]
            for s in view.seats
            if s.role is not None and s.role in ROLE_NAMES
        },
        **remain,
    }


def _talk_settings(per_agent: int, agents: int, limits: Limits) -> dict[str, Any]:
    return {
        "max_count": {"per_agent": per_agent, "per_day": per_agent * max(agents, 1)},
        "max_length": {
            "count_in_word": False,
            "count_spaces": True,
            "per_talk": limits.chars_per_talk,
            "mention_length": None,
            "per_agent": None,
            "base_length": None,
        },
        "max_skip": limits.skips,
    }


def setting(look: Look) -> dict[str, Any]:
    limits = look.limits
    agents = sum(1 for s in look.view.seats if s.agent)
    return {
        "agent_count": len(look.view.seats),
        "max_day": None,
        "role_num_map": {ROLE_NAMES[r]: n for r, n in look.cast.items() if r in ROLE_NAMES},
        "vote_visibility": True,
        "talk_on_first_day": False,
        "talk": _talk_settings(limits.talks_per_day, agents, limits),
        "whisper": _talk_settings(limits.whispers_per_night, agents, limits),
        "vote": {"max_count": limits.revotes, "allow_self_vote": False},
        "attack_vote": {"max_count": 0, "allow_self_vote": False, "allow_no_target": False},
        "timeout": {"action": limits.timeout_ms, "response": limits.timeout_ms},
    }


def histories(look: Look, after: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(talk, whispers) heard after line `after`: the day's talk, and the wolves' night
    talk as a seat that hears it whole hears it (a wolf; the dead, where they see all).
    Howls, monologues, heaven and system lines are not the protocol's talk."""
    talk: list[dict[str, Any]] = []
    whispers: list[dict[str, Any]] = []
    counts: dict[tuple[int, str], int] = {}
    for line in look.heard:
        if line.seat_no is None:
            continue
        if line.kind is MessageKind.TALK and line.phase is Phase.DAY:
            kind, into = "talk", talk
        elif line.kind is MessageKind.WOLF:
            kind, into = "whisper", whispers
        else:
            continue
        day = protocol_day(line.day)
        idx = counts.get((day, kind), 0)
        counts[(day, kind)] = idx + 1
        if line.id > after:
            into.append(
                {
                    "idx": idx,
                    "day": day,
                    "turn": idx,
                    "agent": look.name(line.seat_no),
                    "text": line.text,
                    "skip": False,
                    "over": False,
                }
            )
    return talk, whispers


def packet(
    request: str,
    look: Look,
    *,
    after: int,
    with_setting: bool = False,
    remain: Mapping[str, int | None] | None = None,
) -> dict[str, Any]:
    """One packet: `info` (with `remain_*` for TALK and WHISPER), `setting` when asked,
    and the talk and whispers heard since line `after` (None when there are none)."""
    talk, whispers = histories(look, after)
    return {
        "request": request,
        "info": info(look, **(remain or {})),
        "setting": setting(look) if with_setting else None,
        "talk_history": talk or None,
        "whisper_history": whispers or None,
    }


def last_heard(look: Look) -> int:
    return look.heard[-1].id if look.heard else 0
