"""A bot wolf's night beside a person of its pack: the attack is the pack's, so the bot
does not settle it before the person has had a fair chance.

The first living bot of the pack greets the pack in a whisper and proposes a target
(every bot of the pack follows that proposal); a target a person names in a whisper
tonight is followed at once, and so is a person's yes to the proposal; the bot attacks
alone only when the person has let the time go: in a real-time village once half the
night's real time is gone (it sets its alarm for that moment), in virtual time once a
silence has passed since the person's last whisper and the proposal (the silence line
wakes it), and in any village when the night's time is up. A person who attacks from the
screen settles it too (the bot then owes nothing).

Only the wolves' attack is shared by several seats among the rules' abilities (SPEC §4):
the seer, the guard and the cupid act alone, and the commons share talk, not an action.
"""

from __future__ import annotations

import random

from villages.engine.events import MessageKind
from villages.engine.state import Phase

from .commands import Act, Command, Say, Wait
from .hearing import hear, names_of
from .lines import fresh, key_of
from .view import BotView, Line

HALF = 0.5  # the share of a real-time night the bot leaves to the person


def people_in_pack(view: BotView) -> list[int]:
    """The living people (no bot) of the bot's pack."""
    return [s.no for s in view.seats if s.no in view.me.partners and s.alive and not s.bot]


def shared_night(view: BotView, rng: random.Random, choose: int) -> list[Command] | None:
    """The bot's commands tonight when a person shares the pack's attack, or None when no
    person does (the bot then attacks as it would alone). `choose` is the target the bot
    would pick by itself."""
    if view.phase is not Phase.NIGHT or "attack" not in view.duties:
        return None
    people = people_in_pack(view)
    if not people:
        return None
    targets = view.targets("attack")
    if not targets:
        return []
    tonight = [(i, x) for i, x in enumerate(view.lines) if _tonight(view, x)]
    proposed, proposed_at = _proposal(view, tonight, targets)
    names = names_of((s.no, s.name) for s in view.seats)
    last_person, chosen = -1, None
    for i, line in tonight:
        if line.seat_no not in people or line.kind is not MessageKind.WOLF:
            continue
        last_person = i
        heard = hear(line.text, names)
        named = [no for no in heard.named if no in targets and no not in heard.refused]
        if named:
            proposed, proposed_at, chosen = named[-1], i, named[-1]
        elif heard.agrees and proposed is not None and i > proposed_at:
            chosen = proposed
    said = {x.text for x in view.lines if x.day == view.day}
    if chosen is not None:
        return [*_say("pack_follow", chosen, view, said, rng), Act("attack", (chosen,))]
    target = proposed if proposed is not None else choose
    if _time_is_gone(view, tonight, after=max(last_person, proposed_at)):
        return [*_say("pack_alone", target, view, said, rng), Act("attack", (target,))]
    if proposed is None and _leads(view):
        return [*_say("pack_propose", target, view, said, rng), Wait(_until_half(view))]
    return [Wait(_until_half(view))]


def _tonight(view: BotView, line: Line) -> bool:
    return line.day == view.day and line.phase is Phase.NIGHT


def _leads(view: BotView) -> bool:
    """The first living bot of the pack speaks for the bots."""
    bots = [s.no for s in view.seats if s.alive and s.bot and s.no in view.me.partners]
    return all(view.me.seat_no < no for no in bots)


def _proposal(
    view: BotView, tonight: list[tuple[int, Line]], targets: list[int]
) -> tuple[int | None, int]:
    """The target a bot of the pack proposed tonight (its line's name), and when."""
    for i, line in reversed(tonight):
        if key_of(line.code) == "pack_propose":
            seat = view.seat_named(line.params.get("name", ""))
            if seat is not None and seat.no in targets:
                return seat.no, i
    return None, -1


def _say(key: str, target: int, view: BotView, said: set[str], rng: random.Random) -> list[Command]:
    params = fresh(key, {"name": view.seat(target).name}, said, rng)
    return [Say(key, params)] if params is not None else []


def _time_is_gone(view: BotView, tonight: list[tuple[int, Line]], *, after: int) -> bool:
    """The person has let the time go: half of a real-time night, a silence since `after`
    in virtual time, or the night's time is up."""
    if view.time_up:
        return True
    if view.seconds_left is not None:
        return view.share_left is not None and view.share_left <= HALF
    return any(
        i > after and line.kind is MessageKind.SYSTEM and line.code == "silence_night"
        for i, line in tonight
    )


def _until_half(view: BotView) -> float | None:
    """Real seconds until half the real-time night is gone (a second into it, so that the
    look at the alarm finds it gone); None in virtual time (the silence line wakes it)."""
    left, share = view.seconds_left, view.share_left
    if left is None or not share:
        return None
    return max(0.0, left - HALF * (left / share)) + 1.0
