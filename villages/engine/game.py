"""The commands of a village: state in, (new state, events) out.

Every command copies the state it is given, checks the command (raising a
typed RuleError before anything changes), applies it and returns the copy
with the events it produced. Time is an argument; randomness comes from the
`random.Random` the caller passes.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from . import cast as cast_mod
from .cast import Cast, Options
from .errors import (
    AlreadyActed,
    AlreadyVoted,
    BadRequest,
    Dead,
    Forbidden,
    InvalidTarget,
    NameTaken,
    NoObjectionsLeft,
    NotSeated,
    NotYourAbility,
    TextEmpty,
    TooFewPlayers,
    VillageFull,
    WrongPhase,
)
from .events import (
    Alert,
    Dawn,
    Died,
    Event,
    GameOver,
    Kicked,
    MessageKind,
    ObjectionRaised,
    PhaseChanged,
    Post,
    Revote,
    Started,
    Volume,
)
from .outcome import winner_of
from .roles import ROLE_NAMES_JA, Role, SubRole, Winner
from .rules import Rules
from .speech import check_text, speech_units
from .state import (
    Ability,
    Ballot,
    DeathCause,
    GameState,
    NightAction,
    Phase,
    RoundResult,
    Seat,
    VoteRound,
)
from .texts import duration_ja, render


@dataclass(frozen=True)
class Step:
    state: GameState
    events: tuple[Event, ...]


class _Run:
    """One command's working copy and the events it collects."""

    def __init__(self, state: GameState, rules: Rules, now: datetime) -> None:
        self.state = state.clone()
        self.rules = rules
        self.now = now
        self.events: list[Event] = []

    def done(self) -> Step:
        return Step(self.state, tuple(self.events))

    def post(
        self,
        code: str,
        kind: MessageKind = MessageKind.SYSTEM,
        seat_no: int | None = None,
        **params: object,
    ) -> None:
        text_params = {k: str(v) for k, v in params.items()}
        self.events.append(
            Post(
                day=self.state.day,
                phase=self.state.phase,
                kind=kind,
                text=render(code, text_params),
                seat_no=seat_no,
                code=code,
                params=tuple(sorted(text_params.items())),
            )
        )


# ---------------------------------------------------------------------------
# Lookups and checks shared by the commands


def _seat(state: GameState, no: int) -> Seat:
    seat = state.seat(no)
    if seat is None:
        raise NotSeated()
    return seat


def _target(state: GameState, no: int) -> Seat:
    seat = state.seat(no)
    if seat is None or not seat.alive:
        raise InvalidTarget()
    return seat


def _acting_seat(state: GameState, no: int) -> Seat:
    """A seat that acts in the game: present, alive and not the dummy boy."""
    seat = _seat(state, no)
    if seat.dummy:
        raise NotYourAbility("身代わり君は行動しません。")
    if not seat.alive:
        raise Dead()
    return seat


def time_is_up(state: GameState, now: datetime) -> bool:
    """Talk is closed: the phase's virtual time is used up (SPEC §6)."""
    if state.clock.time_up_at is not None:
        return True
    deadline = phase_deadline(state)
    return deadline is not None and now >= deadline


def phase_deadline(state: GameState) -> datetime | None:
    """The real-time end of the phase, in real-time villages only."""
    time = state.in_force.time
    started = state.clock.phase_started_at
    if not time.realtime or started is None or state.phase not in (Phase.DAY, Phase.NIGHT):
        return None
    length = time.day_seconds if state.phase is Phase.DAY else time.night_seconds
    return started + timedelta(seconds=length)


def virtual_seconds_left(state: GameState, now: datetime, rules: Rules) -> int | None:
    if state.phase not in (Phase.DAY, Phase.NIGHT):
        return None
    if state.clock.time_up_at is not None:
        return 0
    deadline = phase_deadline(state)
    if deadline is None:
        return state.clock.virtual_left
    started = state.clock.phase_started_at
    assert started is not None
    total = rules.day_virtual_seconds if state.phase is Phase.DAY else rules.night_virtual_seconds
    length = (deadline - started).total_seconds()
    left = max(0.0, (deadline - now).total_seconds())
    return int(total * left / length) if length > 0 else 0


# ---------------------------------------------------------------------------
# Before the start: seats, start votes, kick votes, a fixed cast


def new_village(*, capacity: int, options: Options, rules: Rules, now: datetime) -> GameState:
    """A waiting village; with the dummy boy option, seat 1 is the system's."""
    if not cast_mod.MIN_PLAYERS <= capacity <= cast_mod.MAX_PLAYERS:
        raise BadRequest(
            f"定員は{cast_mod.MIN_PLAYERS}〜{cast_mod.MAX_PLAYERS}人で指定してください。"
        )
    time = options.time
    if time.realtime and min(time.day_seconds, time.night_seconds) < rules.min_phase_seconds:
        raise BadRequest(f"リアルタイム制の時間は{rules.min_phase_seconds}秒以上にしてください。")
    state = GameState(capacity=capacity, options=options)
    state.clock.last_activity_at = now
    if options.dummy_boy:
        state.seats.append(
            Seat(no=1, name="身代わり君", dummy=True, objections_left=0, start_voted=True)
        )
        state.last_seat_no = 1
    return state


def sit(state: GameState, *, name: str, rules: Rules, now: datetime) -> tuple[Step, int]:
    """村人登録: a new seat with a handle name unique in the village."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.WAITING:
        raise WrongPhase("ゲームが始まった村には入れません。")
    name = name.strip()
    if not name:
        raise TextEmpty("名前を入力してください。")
    if len(name) > 40:
        raise BadRequest("名前は40文字までです。")
    if len(s.seats) >= s.capacity:
        raise VillageFull()
    if any(seat.name == name for seat in s.seats):
        raise NameTaken()
    no = max([s.last_seat_no, *(seat.no for seat in s.seats)]) + 1
    s.last_seat_no = no
    s.seats.append(Seat(no=no, name=name, objections_left=rules.objections_per_player))
    s.fixed_cast = None
    s.clock.last_activity_at = now
    run.post("seated", name=name)
    return run.done(), no


def leave(
    state: GameState,
    *,
    seat_no: int,
    rules: Rules,
    now: datetime,
    rng: random.Random | None = None,
) -> Step:
    """A seated player leaves before the start.

    If everyone left has voted to start and their number has a row, the game starts at
    once (SPEC §2.3) — which needs `rng` for the deal. Without `rng` the start votes are
    cleared instead, so the next vote starts it; keeping them would leave a village where
    all have voted and nobody can vote again.
    """
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.WAITING:
        raise WrongPhase("ゲームが始まった後は村を出られません。")
    seat = _seat(s, seat_no)
    if seat.dummy:
        raise Forbidden()
    _remove_seat(s, seat_no)
    s.clock.last_activity_at = now
    run.post("left", name=seat.name)
    if all(x.start_voted for x in s.seats) and len(s.seats) in cast_mod.CAST_TABLE:
        if rng is not None:
            _start(run, rng)
        else:
            for x in s.seats:
                x.start_voted = x.dummy
    return run.done()


def _remove_seat(s: GameState, seat_no: int) -> None:
    s.seats = [seat for seat in s.seats if seat.no != seat_no]
    s.kick_votes = {
        target: voters - {seat_no} for target, voters in s.kick_votes.items() if target != seat_no
    }
    s.fixed_cast = None


def kick_vote(
    state: GameState,
    *,
    voter: int | None,
    target: int,
    rules: Rules,
    now: datetime,
    staff: bool = False,
) -> tuple[Step, bool]:
    """キック投票. `voter` is None for staff, who kick at once; a self-kick is at once too."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.WAITING:
        raise WrongPhase("キック投票はゲーム開始前だけです。")
    if voter is not None and _seat(s, voter).dummy:
        raise Forbidden("身代わり君は投票しません。")
    victim = s.seat(target)
    if victim is None or victim.dummy:
        raise InvalidTarget()
    voters = s.kick_votes.get(target, frozenset())
    if voter is not None and voter in voters:
        raise AlreadyVoted("すでにキック投票しています。")
    if voter is not None:
        voters = voters | {voter}
    s.kick_votes[target] = voters
    s.clock.last_activity_at = now
    kicked = staff or voter == target or len(voters - {target}) >= rules.kick_votes
    if kicked:
        _remove_seat(s, target)
        for seat in s.seats:
            seat.start_voted = seat.dummy
        run.post("kicked", name=victim.name)
        run.events.append(Kicked(target))
    return run.done(), kicked


def fix_cast(state: GameState, *, cast: Cast, rules: Rules) -> GameState:
    """Staff fix the cast of a waiting village (tutorials, reproducing disputes)."""
    if state.phase is not Phase.WAITING:
        raise WrongPhase()
    dummy = state.dummy_seat
    cast_mod.validate_cast(
        [s.no for s in state.seats],
        cast,
        state.options,
        rules,
        dummy.no if dummy else None,
    )
    new = state.clone()
    new.fixed_cast = cast
    return new


def vote_start(
    state: GameState, *, seat_no: int, rules: Rules, rng: random.Random, now: datetime
) -> tuple[Step, bool]:
    """ゲーム開始 vote; the game starts when all have voted and the count has a table row."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.WAITING:
        raise WrongPhase("ゲームはすでに始まっています。")
    seat = _seat(s, seat_no)
    if seat.start_voted:
        raise AlreadyVoted("すでに開始に投票しています。")
    seat.start_voted = True
    s.clock.last_activity_at = now
    if all(x.start_voted for x in s.seats) and len(s.seats) in cast_mod.CAST_TABLE:
        _start(run, rng)
        return run.done(), True
    return run.done(), False


def can_start(state: GameState) -> bool:
    return len(state.seats) in cast_mod.CAST_TABLE


def _start(run: _Run, rng: random.Random) -> None:
    s = run.state
    n = len(s.seats)
    if n not in cast_mod.CAST_TABLE:
        raise TooFewPlayers()
    s.active = s.options.active(n, run.rules)
    dummy = s.dummy_seat
    dealt = s.fixed_cast or cast_mod.deal(
        [seat.no for seat in s.seats], s.options, run.rules, rng, dummy.no if dummy else None
    )
    for seat in s.seats:
        seat.role = dealt.roles[seat.no]
        seat.sub_roles = frozenset(dealt.sub_roles.get(seat.no, frozenset()))
    s.kick_votes = {}
    counts = Counter(seat.role for seat in s.seats if seat.role is not None)
    summary = " ".join(f"{ROLE_NAMES_JA[r]}{counts[r]}" for r in Role if counts.get(r))
    s.day = 1
    _begin_phase(run, Phase.NIGHT)
    run.events.append(Started())
    run.post("game_start", cast=summary)
    run.post("night", day=s.day)
    run.events.append(PhaseChanged(s.day, s.phase))


def _begin_phase(run: _Run, phase: Phase) -> None:
    s, rules = run.state, run.rules
    s.phase = phase
    c = s.clock
    c.phase_started_at = run.now
    c.virtual_left = (
        rules.day_virtual_seconds if phase is Phase.DAY else rules.night_virtual_seconds
    )
    c.silence_ref = run.now
    c.time_up_at = None
    c.sudden_death_at = None
    c.last_alert_at = None


# ---------------------------------------------------------------------------
# Talk, wills, heaven, objections


def talk(
    state: GameState,
    *,
    seat_no: int,
    text: str,
    volume: Volume = Volume.NORMAL,
    rules: Rules,
    now: datetime,
) -> Step:
    """発言: public by day and before/after the game; at night the speaker's night kind."""
    run = _Run(state, rules, now)
    s = run.state
    seat = _seat(s, seat_no)
    if seat.dummy:
        raise Forbidden("身代わり君は発言しません。")
    text = check_text(text, rules)
    kind = MessageKind.TALK
    cost = 0
    if s.phase in (Phase.DAY, Phase.NIGHT):
        if not seat.alive:
            raise Dead("死者は霊話でのみ発言できます。")
        if time_is_up(s, now):
            raise WrongPhase("時間切れのため発言できません。投票してください。")
        kind = night_kind(seat) if s.phase is Phase.NIGHT else MessageKind.TALK
        cost = _speech_cost(s, kind, text, rules)
    elif s.phase is Phase.WAITING:
        s.clock.last_activity_at = now
    run.events.append(
        Post(
            day=s.day,
            phase=s.phase,
            kind=kind,
            text=text,
            seat_no=seat_no,
            volume=volume,
            cost=cost,
        )
    )
    if cost:
        s.clock.virtual_left = max(0, s.clock.virtual_left - cost)
        s.clock.silence_ref = now
        if s.clock.virtual_left == 0:
            _time_up(run)
    return run.done()


def night_kind(seat: Seat) -> MessageKind:
    """What a living player's talk becomes at night."""
    if seat.role is Role.WOLF:
        return MessageKind.WOLF
    if seat.role is Role.COMMON:
        return MessageKind.COMMON
    return MessageKind.MONOLOGUE


def _speech_cost(s: GameState, kind: MessageKind, text: str, rules: Rules) -> int:
    """Virtual seconds an utterance consumes: none in real time, only wolves' at night."""
    if s.in_force.time.realtime:
        return 0
    if s.phase is Phase.DAY:
        return speech_units(text, rules) * rules.day_seconds_per_unit
    if kind is MessageKind.WOLF:
        return speech_units(text, rules) * rules.night_seconds_per_unit
    return 0


def heaven_talk(
    state: GameState,
    *,
    seat_no: int,
    text: str,
    volume: Volume = Volume.NORMAL,
    rules: Rules,
    now: datetime,
) -> Step:
    """霊話: the dead talk among themselves; it never costs time."""
    run = _Run(state, rules, now)
    s = run.state
    seat = _seat(s, seat_no)
    if seat.dummy:
        raise Forbidden("身代わり君は発言しません。")
    if s.phase not in (Phase.DAY, Phase.NIGHT):
        raise WrongPhase("霊話はゲーム中だけです。")
    if seat.alive:
        raise Forbidden("霊話は死者だけのものです。")
    text = check_text(text, rules)
    run.events.append(
        Post(
            day=s.day,
            phase=s.phase,
            kind=MessageKind.HEAVEN,
            text=text,
            seat_no=seat_no,
            volume=volume,
        )
    )
    return run.done()


def set_will(state: GameState, *, seat_no: int, text: str, rules: Rules) -> GameState:
    """遺言を残す: one will, replaced at any time while alive; a lone space clears it."""
    seat = _seat(state, seat_no)
    if seat.dummy:
        raise Forbidden("身代わり君は遺言を残しません。")
    if state.phase is Phase.ENDED:
        raise WrongPhase("ゲームは終わっています。")
    if not seat.alive:
        raise Dead("死んだ後は遺言を書けません。")
    will = "" if text == " " else check_text(text, rules)
    new = state.clone()
    new_seat = new.seat(seat_no)
    assert new_seat is not None
    new_seat.will = will
    return new


def object_(state: GameState, *, seat_no: int, rules: Rules, now: datetime) -> Step:
    """異議あり: before the start, and by day by the living; five per player per village."""
    run = _Run(state, rules, now)
    s = run.state
    seat = _seat(s, seat_no)
    if seat.dummy:
        raise Forbidden()
    if s.phase not in (Phase.WAITING, Phase.DAY):
        raise WrongPhase("異議ありは開始前と昼だけ使えます。")
    if not seat.alive:
        raise Dead()
    if seat.objections_left <= 0:
        raise NoObjectionsLeft()
    seat.objections_left -= 1
    if s.phase is Phase.WAITING:
        s.clock.last_activity_at = now
    run.post("objection", kind=MessageKind.OBJECTION, seat_no=seat_no, name=seat.name)
    run.events.append(ObjectionRaised(seat_no, seat.objections_left))
    return run.done()


# ---------------------------------------------------------------------------
# The day's execution vote


def vote(
    state: GameState,
    *,
    voter: int,
    target: int,
    rules: Rules,
    rng: random.Random,
    now: datetime,
) -> tuple[Step, bool]:
    """処刑投票: one ballot per round, never changed. Returns whether the tally ran."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.DAY:
        raise WrongPhase("処刑の投票は昼だけです。")
    seat = _acting_seat(s, voter)
    victim = _target(s, target)
    if victim.no == seat.no:
        raise InvalidTarget("自分には投票できません。")
    if any(b.voter == voter for b in s.current_ballots()):
        raise AlreadyVoted()
    weight = 2 if seat.has(SubRole.AUTHORITY) else 1
    s.ballots.append(Ballot(s.day, s.vote_round, voter, target, weight))
    if owed_votes(s):
        return run.done(), False
    _tally(run, rng)
    return run.done(), True


def owed_votes(state: GameState) -> list[Seat]:
    """Living players (but the dummy boy) who have not voted in this round."""
    voted = {b.voter for b in state.current_ballots()}
    return [x for x in state.living if not x.dummy and x.no not in voted]


def _tally(run: _Run, rng: random.Random) -> None:
    s, rules = run.state, run.rules
    ballots = s.current_ballots()
    totals: Counter[int] = Counter()
    for b in ballots:
        totals[b.target] += b.weight
    top = max(totals.values())
    tied = sorted(no for no, n in totals.items() if n == top)
    executed = tied[0] if len(tied) == 1 else _decider_choice(s, ballots, tied)
    if executed is None:
        s.ties += 1
        if s.ties >= rules.max_revotes:
            s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.DRAW))
            run.post("tie_draw", ties=s.ties)
            _end(run, Winner.DRAW)
            return
        s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.TIE))
        s.vote_round += 1
        last_chance = s.ties == rules.max_revotes - 1
        run.post("revote_last" if last_chance else "revote", round=s.vote_round)
        run.events.append(Revote(s.day, s.vote_round, last_chance))
        if s.clock.time_up_at is not None:
            # Talk stays closed, but everybody votes again: a fresh grace, as after a
            # sudden death, not the seconds left of the old one.
            _time_up(run)
        return
    s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.EXECUTED, executed))
    _execute(run, executed, rng)


def _decider_choice(s: GameState, ballots: Sequence[Ballot], tied: list[int]) -> int | None:
    """決定者: the decider's ballot breaks a tie when it is for one of the tied."""
    for b in ballots:
        voter = s.seat(b.voter)
        if voter is not None and voter.has(SubRole.DECIDER) and b.target in tied:
            return b.target
    return None


def _execute(run: _Run, seat_no: int, rng: random.Random) -> None:
    s = run.state
    victim = s.seat(seat_no)
    assert victim is not None
    _kill(run, victim, DeathCause.EXECUTED)
    run.post("executed", name=victim.name)
    if victim.role is Role.POISON:
        others = [x for x in s.living]
        if others:
            taken = rng.choice(others)
            _kill(run, taken, DeathCause.POISONED)
            run.post("poison_victim", name=taken.name)
    for follower in _lovers_follow(run):
        run.post("lovers_suicide", name=follower.name)
    if _finish_if_over(run):
        return
    _nightfall(run)


def _nightfall(run: _Run) -> None:
    s = run.state
    _begin_phase(run, Phase.NIGHT)
    run.post("night", day=s.day)
    run.events.append(PhaseChanged(s.day, s.phase))


# ---------------------------------------------------------------------------
# The night's actions and the dawn


def night_action(
    state: GameState,
    *,
    seat_no: int,
    ability: Ability,
    targets: Sequence[int],
    rules: Rules,
    rng: random.Random,
    now: datetime,
) -> tuple[Step, bool]:
    """Attack, divine, guard or cupid. Returns whether the dawn came."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is not Phase.NIGHT:
        raise WrongPhase("夜の行動は夜だけです。")
    seat = _acting_seat(s, seat_no)
    _check_action(s, seat, ability, list(targets), rules)
    s.actions.append(NightAction(s.day, seat_no, ability, tuple(targets)))
    if owed_actions(s):
        return run.done(), False
    _dawn(run, rng)
    return run.done(), True


_ABILITY_ROLE = {
    Ability.ATTACK: Role.WOLF,
    Ability.DIVINE: Role.SEER,
    Ability.GUARD: Role.GUARD,
    Ability.CUPID: Role.CUPID,
}


def _check_action(
    s: GameState, seat: Seat, ability: Ability, targets: list[int], rules: Rules
) -> None:
    if seat.role is not _ABILITY_ROLE[ability]:
        raise NotYourAbility()
    if not _duty_applies(ability, s.day):
        raise WrongPhase(
            "狩人の護衛は2日目の夜からです。"
            if ability is Ability.GUARD
            else "愛の矢は1日目の夜だけです。"
        )
    done = (
        s.pack_attack(s.day) if ability is Ability.ATTACK else s.action_of(s.day, seat.no, ability)
    )
    if done is not None:
        raise AlreadyActed()
    wanted = 2 if ability is Ability.CUPID else 1
    if len(targets) != wanted or len(set(targets)) != wanted:
        raise InvalidTarget(f"対象を{wanted}人選んでください。")
    chosen = [_target(s, no) for no in targets]
    if ability is Ability.CUPID:
        if len(s.seats) < rules.cupid_self_below and seat.no not in targets:
            raise InvalidTarget(
                f"{rules.cupid_self_below}人未満の村では、自分と誰か一人を選んでください。"
            )
        return
    target = chosen[0]
    if target.no == seat.no:
        raise InvalidTarget("自分は選べません。")
    if ability is Ability.ATTACK:
        if target.role is Role.WOLF:
            raise InvalidTarget("人狼は人狼を襲えません。")
        dummy = s.dummy_seat
        if s.day == 1 and dummy is not None and dummy.alive and target.no != dummy.no:
            raise InvalidTarget("1日目の夜は身代わり君を襲ってください。")


def owed_actions(state: GameState) -> list[Seat]:
    """Who still owes a night action; every living wolf while the pack has not chosen."""
    d = state.day
    pack_chose = state.pack_attack(d) is not None
    owed: list[Seat] = []
    for x in state.living:
        if x.dummy:
            continue
        if x.role is Role.WOLF:
            owes = not pack_chose
        else:
            ability = _NIGHTLY_DUTY.get(x.role) if x.role is not None else None
            owes = (
                ability is not None
                and _duty_applies(ability, d)
                and state.action_of(d, x.no, ability) is None
            )
        if owes:
            owed.append(x)
    return owed


_NIGHTLY_DUTY = {Role.SEER: Ability.DIVINE, Role.GUARD: Ability.GUARD, Role.CUPID: Ability.CUPID}


def duties(state: GameState, seat_no: int) -> tuple[str, ...]:
    """What the seat still owes now: ("vote",) by day, its night ability at night, or ().

    Every action of the game is a duty, so this is also what the seat may do now; the
    screens offer these actions and the bots act on them.
    """
    if state.phase is Phase.DAY:
        return ("vote",) if any(x.no == seat_no for x in owed_votes(state)) else ()
    if state.phase is not Phase.NIGHT:
        return ()
    for x in owed_actions(state):
        if x.no == seat_no:
            if x.role is Role.WOLF:
                return (Ability.ATTACK.value,)
            if x.role is not None and x.role in _NIGHTLY_DUTY:
                return (_NIGHTLY_DUTY[x.role].value,)
    return ()


def _duty_applies(ability: Ability, day: int) -> bool:
    """The guard acts from night 2, the cupid on night 1 only."""
    if ability is Ability.GUARD:
        return day >= 2
    if ability is Ability.CUPID:
        return day == 1
    return True


def _dawn(run: _Run, rng: random.Random) -> None:
    """Resolve the night in SPEC §5's order, then morning or the end."""
    s = run.state
    d = s.day
    actions = s.actions_of_night(d)
    ordinary: list[Seat] = []
    for a in actions:
        if a.ability is Ability.CUPID:
            for no in a.targets:
                lover = s.seat(no)
                assert lover is not None
                lover.sub_roles = lover.sub_roles | {SubRole.LOVERS}
    guarded = {a.targets[0] for a in actions if a.ability is Ability.GUARD}
    attack = s.pack_attack(d)
    if attack is not None:
        prey = s.seat(attack.targets[0])
        assert prey is not None
        if prey.alive and prey.no not in guarded and prey.role is not Role.FOX:
            _kill(run, prey, DeathCause.ATTACKED)
            ordinary.append(prey)
            wolves = [x for x in s.living if x.role is Role.WOLF]
            if prey.role is Role.POISON and wolves:
                taken = rng.choice(wolves)
                _kill(run, taken, DeathCause.POISONED)
                ordinary.append(taken)
    for a in actions:
        if a.ability is Ability.DIVINE:
            divined = s.seat(a.targets[0])
            assert divined is not None
            if divined.alive and divined.role is Role.FOX:
                _kill(run, divined, DeathCause.DIVINED)
                ordinary.append(divined)
    followers = _lovers_follow(run)
    s.day = d + 1
    _begin_phase(run, Phase.DAY)
    s.vote_round = 1
    s.ties = 0
    run.post("morning", day=s.day)
    for victim in sorted(ordinary, key=lambda x: x.no):
        run.post("found_dead", name=victim.name)
    for follower in followers:
        run.post("lovers_suicide", name=follower.name)
    if not ordinary and not followers and not _died_at_night(s, d):
        run.post("peaceful")
    _publish_wills(run)
    run.events.append(Dawn(s.day))
    if _finish_if_over(run):
        return
    run.events.append(PhaseChanged(s.day, s.phase))


def _died_at_night(s: GameState, d: int) -> bool:
    return any(x.death_day == d and x.death_phase is Phase.NIGHT for x in s.seats if not x.alive)


# ---------------------------------------------------------------------------
# Deaths and the end


def _kill(run: _Run, seat: Seat, cause: DeathCause) -> None:
    s = run.state
    seat.alive = False
    seat.death_cause = cause
    seat.death_day = s.day
    seat.death_phase = s.phase
    run.events.append(Died(seat.no, cause))


def _lovers_follow(run: _Run) -> list[Seat]:
    """後追い: a lover whose beloved is dead follows at once."""
    followers: list[Seat] = []
    lovers = run.state.lovers()
    if any(not x.alive for x in lovers):
        for x in lovers:
            if x.alive:
                _kill(run, x, DeathCause.LOVERS)
                followers.append(x)
    return followers


def _publish_wills(run: _Run) -> None:
    """Wills of those who died since the last morning (never the dummy boy's)."""
    for x in run.state.seats:
        if not x.alive and not x.will_published:
            x.will_published = True
            if x.will and not x.dummy:
                run.events.append(
                    Post(
                        day=run.state.day,
                        phase=run.state.phase,
                        kind=MessageKind.WILL,
                        text=x.will,
                        seat_no=x.no,
                    )
                )


def _finish_if_over(run: _Run) -> bool:
    winner = winner_of(run.state)
    if winner is None:
        return False
    _end(run, winner)
    return True


def _end(run: _Run, winner: Winner) -> None:
    s = run.state
    _publish_wills(run)
    s.winner = winner
    s.phase = Phase.ENDED
    c = s.clock
    c.time_up_at = c.sudden_death_at = c.last_alert_at = None
    # A draw by revotes leaves people alive: "nobody remained" would be false.
    revotes = winner is Winner.DRAW and bool(s.living)
    run.post("win_draw_revotes" if revotes else f"win_{winner.value}")
    run.events.append(GameOver(winner))
    run.events.append(PhaseChanged(s.day, s.phase))


# ---------------------------------------------------------------------------
# The clock: silence, time-up, alerts, sudden death, abandoning


def tick(state: GameState, *, rules: Rules, rng: random.Random, now: datetime) -> Step:
    """Advance the village's clock to `now`. Idempotent: a second call at `now` does nothing."""
    run = _Run(state, rules, now)
    s = run.state
    if s.phase is Phase.WAITING:
        last = s.clock.last_activity_at
        if last is not None and now - last >= timedelta(seconds=rules.abandon_seconds):
            _abandon(run)
        return run.done()
    if s.phase is Phase.ENDED:
        return run.done()
    c = s.clock
    if c.time_up_at is None:
        deadline = phase_deadline(s)
        if deadline is not None:
            if now >= deadline:
                _time_up(run)
        else:
            _silence(run)
        if c.time_up_at is None:
            return run.done()
    assert c.sudden_death_at is not None
    if now >= c.sudden_death_at:
        if now - c.sudden_death_at > timedelta(seconds=rules.outage_seconds):
            # The server was down: nobody dies for it; the grace starts again.
            c.sudden_death_at = now + timedelta(seconds=rules.sudden_death_grace)
            c.last_alert_at = None
            run.post("outage", grace=duration_ja(rules.sudden_death_grace))
        else:
            _sudden_death(run, rng)
        return run.done()
    alert_from = c.sudden_death_at - timedelta(seconds=rules.alert_from)
    due = c.last_alert_at is None or now - c.last_alert_at >= timedelta(seconds=rules.alert_every)
    if now >= alert_from and due:
        c.last_alert_at = now
        run.events.append(Alert(int((c.sudden_death_at - now).total_seconds())))
    return run.done()


def _silence(run: _Run) -> None:
    """Virtual time: a silent real minute costs an hour by day, two at night."""
    s, rules, c = run.state, run.rules, run.state.clock
    assert c.silence_ref is not None
    if run.now - c.silence_ref < timedelta(seconds=rules.silence_real_seconds):
        return
    penalty = rules.silence_day_penalty if s.phase is Phase.DAY else rules.silence_night_penalty
    c.virtual_left = max(0, c.virtual_left - penalty)
    c.silence_ref = run.now
    code = "silence_day" if s.phase is Phase.DAY else "silence_night"
    run.post(code, hours=_hours(penalty))
    if c.virtual_left == 0:
        _time_up(run)


def _hours(seconds: int) -> str:
    hours = seconds / 3600
    return str(int(hours)) if hours == int(hours) else f"{hours:.1f}"


def _time_up(run: _Run) -> None:
    s, c = run.state, run.state.clock
    c.virtual_left = 0
    c.time_up_at = run.now
    c.sudden_death_at = run.now + timedelta(seconds=run.rules.sudden_death_grace)
    c.last_alert_at = None
    code = "time_up_day" if s.phase is Phase.DAY else "time_up_night"
    run.post(code, grace=duration_ja(run.rules.sudden_death_grace))


def _sudden_death(run: _Run, rng: random.Random) -> None:
    """突然死: whoever still owes the phase's action dies, with no poison revenge."""
    s = run.state
    owed = owed_votes(s) if s.phase is Phase.DAY else owed_actions(s)
    for x in owed:
        _kill(run, x, DeathCause.SUDDEN)
        run.post("sudden_death", name=x.name)
    for follower in _lovers_follow(run):
        run.post("lovers_suicide", name=follower.name)
    if s.phase is Phase.NIGHT:
        _dawn(run, rng)
        return
    if _finish_if_over(run):
        return
    # By day the ballots are cleared and voting starts again, with a new grace.
    s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.VOID))
    s.vote_round += 1
    run.post("revote_after_sudden")
    _time_up(run)


def next_deadline(state: GameState, rules: Rules) -> datetime | None:
    """When `tick` next has something to do (the sweep's indexed `deadline_at`)."""
    c = state.clock
    if state.phase is Phase.WAITING:
        if c.last_activity_at is None:
            return None
        return c.last_activity_at + timedelta(seconds=rules.abandon_seconds)
    if state.phase is Phase.ENDED:
        return None
    if c.time_up_at is None:
        deadline = phase_deadline(state)
        if deadline is not None:
            return deadline
        assert c.silence_ref is not None
        return c.silence_ref + timedelta(seconds=rules.silence_real_seconds)
    assert c.sudden_death_at is not None
    alert_from = c.sudden_death_at - timedelta(seconds=rules.alert_from)
    if c.last_alert_at is None:
        next_alert = alert_from
    else:
        next_alert = max(alert_from, c.last_alert_at + timedelta(seconds=rules.alert_every))
    return min(next_alert, c.sudden_death_at)


def cast_from_codes(roles: Mapping[int, str], sub_roles: Mapping[int, Sequence[str]]) -> Cast:
    """A staff-fixed cast from the API's role codes, or BadRequest."""
    try:
        return Cast(
            roles={int(no): Role(code) for no, code in roles.items()},
            sub_roles={
                int(no): frozenset(SubRole(c) for c in codes) for no, codes in sub_roles.items()
            },
        )
    except ValueError as exc:
        raise BadRequest("役職コードが正しくありません。") from exc


def start_now(state: GameState, *, rules: Rules, rng: random.Random, now: datetime) -> Step:
    """Start a village whose every seat has voted (used by staff and tests)."""
    run = _Run(state, rules, now)
    if run.state.phase is not Phase.WAITING:
        raise WrongPhase()
    _start(run, rng)
    return run.done()


def abandon(state: GameState, *, rules: Rules, now: datetime) -> Step:
    """廃村: staff close a village, whatever its phase; nobody wins."""
    if state.phase is Phase.ENDED:
        raise WrongPhase("この村はすでに終わっています。")
    run = _Run(state, rules, now)
    _abandon(run)
    return run.done()


def _abandon(run: _Run) -> None:
    s = run.state
    s.abandoned = True
    s.phase = Phase.ENDED
    c = s.clock
    c.time_up_at = c.sudden_death_at = c.last_alert_at = None
    run.post("abandoned")
    run.events.append(GameOver(None))
    run.events.append(PhaseChanged(s.day, s.phase))
