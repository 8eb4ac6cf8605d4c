"""Random legal play of whole villages, for property tests and the benchmark.

What is legal is written here from SPEC §5 (targets) and §7 (who owes what), not read
from the engine, so a move this module deems legal and the engine refuses is a finding.
Pure Python, no pytest: `bench/engine_games.py` imports it too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from villages.engine import game
from villages.engine.cast import MAX_PLAYERS, MIN_PLAYERS, Options, TimeOptions
from villages.engine.events import Event
from villages.engine.roles import Role
from villages.engine.rules import Rules
from villages.engine.state import Ability, GameState, Phase, Seat

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TEXTS = ("おはよう", "a" * 150, "占い師COします。" * 10, "x" * 450, "ｱｲｳ" * 40, "・・・")


@dataclass(frozen=True)
class Move:
    verb: str  # act, vote, talk, heaven, will, object, tick
    seat: int = 0
    ability: Ability | None = None
    targets: tuple[int, ...] = ()
    text: str = ""
    seconds: float = 0


@dataclass
class Game:
    state: GameState
    rules: Rules
    rng: random.Random  # the engine's
    now: datetime
    events: list[Event] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    lazy: frozenset[int] = frozenset()  # seats that never act: the sweep deals with them


def random_options(r: random.Random) -> Options:
    realtime = r.random() < 0.3
    return Options(
        time=TimeOptions(
            realtime=realtime,
            day_seconds=r.choice([60, 120, 300, 600]) if realtime else 0,
            night_seconds=r.choice([60, 90, 180]) if realtime else 0,
        ),
        cupid=r.random() < 0.5,
        poison=r.random() < 0.5,
        decider=r.random() < 0.5,
        authority=r.random() < 0.5,
        hide_roles_in_heaven=r.random() < 0.5,
        dummy_boy=r.random() < 0.5,
    )


def start(n: int, options: Options, seed: int, rules: Rules | None = None) -> Game:
    """Seat `n` players (the dummy boy among them), everyone votes to start: night 1."""
    assert MIN_PLAYERS <= n <= MAX_PLAYERS
    rules = rules or Rules()
    rng = random.Random(seed)
    state = game.new_village(capacity=n, options=options, rules=rules, now=T0)
    while len(state.seats) < n:
        state = game.sit(state, name=f"p{len(state.seats) + 1}", rules=rules, now=T0)[0].state
    events: list[Event] = []
    for x in state.seats:
        if not x.start_voted:
            step, _ = game.vote_start(state, seat_no=x.no, rules=rules, rng=rng, now=T0)
            state = step.state
            events.extend(step.events)
    assert state.phase is Phase.NIGHT
    return Game(state=state, rules=rules, rng=rng, now=T0, events=events)


# ---------------------------------------------------------------------------
# What SPEC says is owed and legal


def owes_at_night(state: GameState, x: Seat) -> Ability | None:
    """SPEC §7: the seer, the guard from night 2, the cupid on night 1, wolves if none chose."""
    if not x.alive or x.dummy:
        return None
    d = state.day
    mine = {a.ability for a in state.actions if a.day == d and a.seat_no == x.no}
    if x.role is Role.WOLF:
        chose = any(a.day == d and a.ability is Ability.ATTACK for a in state.actions)
        return None if chose else Ability.ATTACK
    duty = {Role.SEER: Ability.DIVINE, Role.GUARD: Ability.GUARD, Role.CUPID: Ability.CUPID}
    ability = duty.get(x.role) if x.role else None
    if (ability is Ability.GUARD and d < 2) or (ability is Ability.CUPID and d != 1):
        return None
    return None if ability is None or ability in mine else ability


def legal_targets(state: GameState, x: Seat, ability: Ability) -> list[tuple[int, ...]]:
    """SPEC §5 targets."""
    living = [y for y in state.living]
    others = [y.no for y in living if y.no != x.no]
    if ability is Ability.ATTACK:
        dummy = next((y for y in living if y.dummy), None)
        if state.day == 1 and dummy is not None:
            return [(dummy.no,)]
        return [(y.no,) for y in living if y.role is not Role.WOLF]
    if ability is Ability.CUPID:  # never the dummy boy
        lovable = [y.no for y in living if not y.dummy]
        if len(state.seats) < 18:
            return [(x.no, o) for o in lovable if o != x.no]
        return [(a, b) for a in lovable for b in lovable if a < b]
    return [(o,) for o in others]


def voters_owing(state: GameState) -> list[Seat]:
    voted = {b.voter for b in state.ballots if b.day == state.day and b.round == state.vote_round}
    return [x for x in state.living if not x.dummy and x.no not in voted]


def choose_move(g: Game, r: random.Random) -> Move:
    """A random legal move; sometimes a tick (to the next deadline or past it)."""
    s = g.state
    roll = r.random()
    if roll < 0.12 or (_talk_closed(g) and roll < 0.3):
        due = game.next_deadline(s, g.rules)
        gap = (due - g.now).total_seconds() if due else 60.0
        doom = s.clock.sudden_death_at
        # Past a due sudden death by more than OUTAGE_SECONDS: the server "was down".
        late = (doom - g.now).total_seconds() + 95.0 if doom else gap + 95.0
        gap = max(0.0, gap)
        seconds = late if r.random() < 0.03 else r.choice([1.0, 7.0, 60.0, gap, gap])
        return Move("tick", seconds=max(0.0, seconds))
    if roll < 0.25:
        speakers = [x for x in s.seats if not x.dummy]
        x = r.choice(speakers)
        text = r.choice(TEXTS)
        if not x.alive:
            return Move("heaven", x.no, text=text)
        if roll < 0.16:
            return Move("will", x.no, text=r.choice([text, " "]))
        if roll < 0.17 and s.phase is Phase.DAY and x.objections_left > 0:
            return Move("object", x.no)
        if not _talk_closed(g):
            return Move("talk", x.no, text=text)
        return Move("tick", seconds=1.0)
    if s.phase is Phase.NIGHT:
        owing = [
            (x, a)
            for x in s.living
            if x.no not in g.lazy and (a := owes_at_night(s, x)) is not None
        ]
        if not owing or r.random() < 0.08:  # leave someone to the sweep now and then
            return Move("tick", seconds=r.choice([30.0, 60.0]))
        x, ability = r.choice(owing)
        return Move("act", x.no, ability, r.choice(legal_targets(s, x, ability)))
    owing_votes = [x for x in voters_owing(s) if x.no not in g.lazy]
    if not owing_votes or r.random() < 0.05:
        return Move("tick", seconds=r.choice([30.0, 60.0]))
    x = r.choice(owing_votes)
    living = [y.no for y in s.living if y.no != x.no]
    # Ties now and then: vote among a few so that revotes and draws happen.
    pool = living[:2] if r.random() < 0.5 and len(living) >= 2 else living
    return Move("vote", x.no, targets=(r.choice(pool),))


def _talk_closed(g: Game) -> bool:
    return g.state.phase in (Phase.DAY, Phase.NIGHT) and game.time_is_up(g.state, g.now)


def apply(g: Game, move: Move) -> game.Step:
    """Run one move through the engine; a RuleError here means engine and SPEC disagree."""
    s, rules, now = g.state, g.rules, g.now
    if move.verb == "tick":
        g.now = now = now + timedelta(seconds=move.seconds)
        step = game.tick(s, rules=rules, rng=g.rng, now=now)
    elif move.verb == "act":
        assert move.ability is not None
        step, _ = game.night_action(
            s,
            seat_no=move.seat,
            ability=move.ability,
            targets=list(move.targets),
            rules=rules,
            rng=g.rng,
            now=now,
        )
    elif move.verb == "vote":
        step, _ = game.vote(
            s, voter=move.seat, target=move.targets[0], rules=rules, rng=g.rng, now=now
        )
    elif move.verb == "talk":
        step = game.talk(s, seat_no=move.seat, text=move.text, rules=rules, now=now)
    elif move.verb == "heaven":
        step = game.talk(s, seat_no=move.seat, text=move.text, heaven=True, rules=rules, now=now)
    elif move.verb == "will":
        step = game.Step(game.set_will(s, seat_no=move.seat, text=move.text, rules=rules), ())
    elif move.verb == "object":
        step = game.object_(s, seat_no=move.seat, rules=rules, now=now)
    else:
        raise ValueError(move.verb)
    g.state = step.state
    g.events.extend(step.events)
    g.moves.append(move)
    return step


def play(
    g: Game,
    r: random.Random,
    *,
    max_steps: int = 5000,
    on_step: Callable[[GameState, Move, game.Step], None] | None = None,
) -> int:
    """Play random legal moves until the game ends (or `max_steps`); the number of moves."""
    steps = 0
    while g.state.phase is not Phase.ENDED and steps < max_steps:
        before = g.state
        move = choose_move(g, r)
        step = apply(g, move)
        if on_step is not None:
            on_step(before, move, step)
        steps += 1
    return steps


def random_game(seed: int, *, n: int | None = None, options: Options | None = None) -> Game:
    """A random village at night 1; in some games a pack, a night role or a player never
    acts, for the sweep to deal with."""
    r = random.Random(seed)
    n = n if n is not None else r.randint(MIN_PLAYERS, MAX_PLAYERS)
    g = start(n, options if options is not None else random_options(r), seed)
    players = [x for x in g.state.seats if not x.dummy]
    night_roles = [x.no for x in players if x.role in (Role.SEER, Role.GUARD, Role.CUPID)]
    roll = r.random()
    if roll < 0.1:
        g.lazy = frozenset(x.no for x in players if x.role is Role.WOLF)
    elif roll < 0.25 and night_roles:
        g.lazy = frozenset({r.choice(night_roles)})
    elif roll < 0.4:
        g.lazy = frozenset({r.choice(players).no})
    return g
