"""Whole villages played by the site's bots through the rules engine alone (no Django): the
site's pacing in miniature, for the bots' tests and `bench/bot_games.py`.

As on the site, a bot looks again after each change of its village, or at the alarm its
`Wait` asked for; what it asks for goes through the engine's commands (its lines with
their code and params, as the services keep them). Here the looks of a change come one
after another in a random order (as the sweep takes due bots one by one, each seeing the
lines of those before). When no look changes anything, time passes to the next moment
something is due — a bot's alarm or the clock's next deadline (a silent minute in
virtual time, the end of a real-time phase, the sudden-death grace) — and the clock ticks.
A person is stood in for by a `Person`: a function given the game, its seat and the
seat's view at each of its looks, which acts through `say` and `do` and returns whether
it changed anything.

Pure Python, no pytest: `bench/bot_games.py` imports it too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from villages import bots
from villages.bots import Act, BotView, Command, Say, Vote, Wait, bot_view
from villages.bots.lines import NAMES, code_of, word
from villages.engine import game
from villages.engine.cast import Cast, Options
from villages.engine.errors import RuleError
from villages.engine.events import Post
from villages.engine.roles import Role
from villages.engine.rules import Rules
from villages.engine.state import Ability, GameState, Phase

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
Person = Callable[["Game", int, BotView], bool]
PERSON_NAMES = ("たろう", "はなこ", "じろう", "さくら")


@dataclass
class Game:
    state: GameState
    rules: Rules
    rng: random.Random  # the engine's, and the order of looks
    seed: int
    now: datetime = T0
    posts: list[Post] = field(default_factory=list)
    people: dict[int, Person] = field(default_factory=dict)
    strategy: str = bots.DEFAULT
    language: str = "ja"
    version: int = 0  # every change of the village
    seen: dict[int, int] = field(default_factory=dict)  # seat → the version of its last look
    alarms: dict[int, datetime] = field(default_factory=dict)
    looks: int = 0

    def seat_of(self, name: str) -> int:
        return next(s.no for s in self.state.seats if s.name == name)


def new_game(
    players: int,
    seed: int,
    *,
    options: Options | None = None,
    cast: dict[int, Role] | None = None,
    people: dict[int, Person] | None = None,
    rules: Rules | None = None,
    language: str = "ja",
) -> Game:
    """A village of `players` seats started at night 1: bots, but the seats of `people`
    (seat numbers), with a random cast or `cast`."""
    rules = rules or Rules()
    options = options or Options()
    people = people or {}
    state = game.new_village(capacity=players, options=options, rules=rules, now=T0)
    person_names = iter(PERSON_NAMES)
    while len(state.seats) < players:
        no = len(state.seats) + 1
        bot = no not in people
        name = NAMES[no - 1][0] if bot else next(person_names)
        step, _ = game.sit(state, name=name, bot=bot, rules=rules, now=T0)
        state = step.state
    if cast is not None:
        state = game.fix_cast(state, cast=Cast(roles=cast, sub_roles={}), rules=rules)
    g = Game(state, rules, random.Random(seed), seed, people=people, language=language)
    for seat in list(state.seats):
        if not seat.start_voted:
            step, _ = game.vote_start(g.state, seat_no=seat.no, rules=rules, rng=g.rng, now=T0)
            g.state = step.state
            g.posts += [e for e in step.events if isinstance(e, Post)]
    assert g.state.phase is Phase.NIGHT
    return g


def play(g: Game, *, until: Callable[[Game], bool] | None = None, max_steps: int = 5000) -> None:
    """Looks and time until the village ends (or `until` says so)."""
    for _ in range(max_steps):
        if g.state.phase is Phase.ENDED or (until is not None and until(g)):
            return
        if not look_round(g):
            pass_time(g)
    raise AssertionError(f"game {g.seed} never ended: {g.state.phase} {g.state.day}")


def look_round(g: Game) -> bool:
    """Every living seat whose village changed since its last look (or whose alarm came)
    looks, in a random order; whether anything changed."""
    order = [s.no for s in g.state.seats if s.alive and not s.dummy]
    g.rng.shuffle(order)
    order.sort(key=lambda no: no not in g.people)  # a person is at the screen: first
    changed = False
    phase = (g.state.day, g.state.phase)
    for no in order:
        if (g.state.day, g.state.phase) != phase:
            break  # a new phase: everyone looks again, people first
        due = g.alarms.get(no)
        if g.seen.get(no) == g.version and (due is None or due > g.now):
            continue
        g.alarms.pop(no, None)
        if g.state.phase is Phase.NIGHT and no not in g.people and not game.duties(g.state, no):
            g.seen[no] = g.version  # a bot owing nothing at night does nothing: its look is cut
            continue
        changed |= look(g, no)
    return changed


def look(g: Game, no: int) -> bool:
    g.seen[no] = g.version
    g.looks += 1
    view = bot_view(g.state, no, g.posts, g.rules, g.now)
    if view is None:
        return False
    if no in g.people:
        return g.people[no](g, no, view)
    decide = bots.STRATEGIES[g.strategy]
    commands = decide(view, random.Random(f"{g.seed}:{no}:{g.version}"))
    changed = False
    for command in commands:
        if isinstance(command, Wait):
            if command.seconds is not None:
                g.alarms[no] = g.now + timedelta(seconds=command.seconds)
            continue
        changed |= do(g, no, command)
    return changed


def do(g: Game, no: int, command: Command) -> bool:
    """One command of seat `no` through the engine; False if the rules refused it (the
    village moved on since the look)."""
    try:
        if isinstance(command, Say):
            text = word(command.key, command.params, g.language)
            wording = (code_of(command.key), tuple(command.params.items()))
            step = game.talk(
                g.state, seat_no=no, text=text, rules=g.rules, now=g.now, wording=wording
            )
        elif isinstance(command, Vote):
            step, _ = game.vote(
                g.state, voter=no, target=command.target, rules=g.rules, rng=g.rng, now=g.now
            )
        elif isinstance(command, Act):
            step, _ = game.night_action(
                g.state,
                seat_no=no,
                ability=Ability(command.ability),
                targets=list(command.targets),
                rules=g.rules,
                rng=g.rng,
                now=g.now,
            )
        else:
            return False
    except RuleError:
        return False
    apply(g, step)
    return True


def say(g: Game, no: int, text: str) -> None:
    """A person's own words (no code)."""
    apply(g, game.talk(g.state, seat_no=no, text=text, rules=g.rules, now=g.now))


def apply(g: Game, step: game.Step) -> None:
    g.state = step.state
    g.posts += [e for e in step.events if isinstance(e, Post)]
    g.version += 1


def pass_time(g: Game) -> None:
    """To the next moment something is due: a bot's alarm or the clock's deadline."""
    due = [t for t in g.alarms.values() if t > g.now]
    deadline = game.next_deadline(g.state, g.rules)
    if deadline is not None:
        due.append(deadline)
    g.now = max(g.now + timedelta(seconds=1), min(due, default=g.now + timedelta(seconds=60)))
    step = game.tick(g.state, rules=g.rules, rng=g.rng, now=g.now)
    if step.events or step.state != g.state:
        apply(g, step)


# --- What the benchmark measures ------------------------------------------------------------

# How a person who divined a wolf may say so on day 2 ({name}: the wolf's name as people
# write it, without the bot mark).
SEER_CLAIMS = (
    "占いCO {name}●",
    "占いCO　{name}さん●",
    "占いCOします。{name}さんは人狼でした",
    "占い師です。{name}黒",
    "占いＣＯ {name}は黒でした",
    "{name}さんを占ったら人狼でした",
    "占い師CO！ {name}さん黒です",
    "占いCO ●{name}",
)


@dataclass(frozen=True)
class Figures:
    """What one village showed: its winner, and its days with a vote and with a revote."""

    winner: str
    vote_days: int
    revote_days: int


def all_bots(players: int, seed: int) -> Figures:
    g = new_game(players, seed)
    play(g)
    days: dict[int, list[str]] = {}
    for r in g.state.rounds:
        days.setdefault(r.day, []).append(r.result.value)
    revotes = sum(1 for results in days.values() if "tie" in results)
    return Figures(str(g.state.winner), len(days), revotes)


def lone_seer(seed: int) -> bool | None:
    """An 8-seat village where a person is the seer, divines a wolf on night 1, claims it
    on day 2 in one of SEER_CLAIMS and votes for it: whether that wolf was executed on
    day 2 (None when the wolves bit the seer on night 1: no such village)."""
    r = random.Random(seed)
    roles = [Role.WOLF, Role.WOLF, Role.SEER] + [Role.VILLAGER] * 5
    r.shuffle(roles)
    cast = {no: role for no, role in enumerate(roles, start=1)}
    seer = roles.index(Role.SEER) + 1
    wolf = r.choice([no for no, role in cast.items() if role is Role.WOLF])
    claim = r.choice(SEER_CLAIMS)

    def person(g: Game, no: int, view: BotView) -> bool:
        if view.phase is Phase.NIGHT and view.duties:
            return do(g, no, Act("divine", (wolf,)))
        if view.phase is not Phase.DAY or view.day != 2:
            return False
        if not view.my_lines_today():
            name = view.seat(wolf).name.removesuffix(game.BOT_MARK)
            say(g, no, claim.format(name=name))
            return True
        return bool(view.duties) and do(g, no, Vote(wolf))

    g = new_game(8, seed, cast=cast, people={seer: person})
    play(g, until=lambda g: g.state.day >= 2)
    if g.state.phase is Phase.ENDED or not g.state.seats[seer - 1].alive:
        return None
    play(g, until=lambda g: g.state.day >= 3)
    executed = [x.executed for x in g.state.rounds if x.day == 2 and x.executed is not None]
    return executed == [wolf]
