"""Before the start: seats, start votes, kick votes, a fixed cast, the deal."""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from . import cast as cast_mod
from .cast import Cast, Options
from .command import (
    Run,
    Step,
    begin_phase,
    get_seat,
)
from .errors import (
    AlreadyVoted,
    BadRequest,
    Forbidden,
    InvalidTarget,
    NameTaken,
    TextEmpty,
    TooFewPlayers,
    VillageFull,
    WrongPhase,
    _,
)
from .events import (
    Kicked,
    PhaseChanged,
    Started,
)
from .roles import Role, SubRole
from .rules import Rules
from .speech import has_controls
from .state import (
    GameState,
    Phase,
    Seat,
)


def new_village(*, capacity: int, options: Options, rules: Rules, now: datetime) -> GameState:
    """A waiting village; with the dummy boy option, seat 1 is the system's."""
    if not cast_mod.MIN_PLAYERS <= capacity <= cast_mod.MAX_PLAYERS:
        raise BadRequest(
            _("定員は{low}〜{high}人で指定してください。"),
            low=cast_mod.MIN_PLAYERS,
            high=cast_mod.MAX_PLAYERS,
        )
    time = options.time
    if time.realtime and min(time.day_seconds, time.night_seconds) < rules.min_phase_seconds:
        raise BadRequest(
            _("リアルタイム制の時間は{seconds}秒以上にしてください。"),
            seconds=rules.min_phase_seconds,
        )
    state = GameState(capacity=capacity, options=options)
    state.clock.last_activity_at = now
    if options.dummy_boy:
        state.seats.append(
            Seat(no=1, name="身代わり君", dummy=True, objections_left=0, start_voted=True)
        )
        state.last_seat_no = 1
    return state


BOT_MARK = "(ボット)"  # ends every bot seat's name; no person's name may carry it
AGENT_MARK = "(AI)"  # ends every AIWolf agent seat's name, as BOT_MARK a bot's
# The trip mark (◆, drawn by the site after a seat's name from the secret's hash) and the
# shapes that pass for it on a page: no handle name may carry one, so a trip is always
# the site's own.
TRIP_LOOKALIKES = frozenset("◆◇◈◊♦♢⬥⬦⬩⯁❖⋄⟐⧫💠🔶🔷🔸🔹")


def _fakes_a_trip(name: str) -> bool:
    return any(ch in TRIP_LOOKALIKES for ch in name + unicodedata.normalize("NFKC", name))


def sit(
    state: GameState,
    *,
    name: str,
    bot: bool = False,
    agent: bool = False,
    rules: Rules,
    now: datetime,
) -> tuple[Step, int]:
    """村人登録: a new seat with a handle name unique in the village.

    A bot's seat is named with BOT_MARK at its end, so that the mark stands wherever the
    name does (logs, votes, results, past logs); a person may not use the mark.
    """
    run = Run.during(Phase.WAITING, "ゲームが始まった村には入れません。", state, rules, now)
    s = run.state
    name = name.strip()
    if not name:
        raise TextEmpty(_("名前を入力してください。"))
    if BOT_MARK in name:
        raise BadRequest(_("{mark} はボットの印です。名前には使えません。"), mark=BOT_MARK)
    if AGENT_MARK in name:
        raise BadRequest(
            _("{mark} は人狼知能エージェントの印です。名前には使えません。"), mark=AGENT_MARK
        )
    if _fakes_a_trip(name):
        raise BadRequest(_("◆ などトリップに見える記号は名前に使えません。"))
    if has_controls(name, name=True):
        raise BadRequest(_("名前に使えない文字（制御文字）が含まれています。"))
    if bot:
        name = name[: 40 - len(BOT_MARK)] + BOT_MARK
    if agent:
        name = name[: 40 - len(AGENT_MARK)] + AGENT_MARK
    if len(name) > 40:
        raise BadRequest(_("名前は40文字までです。"))
    if len(s.seats) >= s.capacity:
        raise VillageFull()
    if any(seat.name == name for seat in s.seats):
        raise NameTaken()
    if agent:
        if not s.options.agents:
            raise Forbidden(_("この村は人狼知能エージェントを受け入れていません。"))
        agents = sum(seat.agent for seat in s.seats) + 1
        fit = cast_mod.agents_fit(s.capacity, s.options, rules, agents, s.dummy_seat is not None)
        if fit is not None:
            raise BadRequest(cast_mod.AGENTS_DO_NOT_FIT, agents=agents, fit=fit)
    no = max([s.last_seat_no, *(seat.no for seat in s.seats)]) + 1
    s.last_seat_no = no
    s.seats.append(
        Seat(
            no=no,
            name=name,
            objections_left=rules.objections_per_player,
            bot=bot,
            agent=agent,
            start_voted=agent,  # an agent's seat counts as having voted to start
        )
    )
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
    run = Run.during(Phase.WAITING, "ゲームが始まった後は村を出られません。", state, rules, now)
    s = run.state
    seat = get_seat(s, seat_no)
    if seat.dummy:
        raise Forbidden()
    _remove_seat(s, seat_no)
    s.clock.last_activity_at = now
    run.post("left", name=seat.name)
    if all(x.start_voted for x in s.seats) and len(s.seats) in cast_mod.CAST_TABLE:
        if rng is not None:
            start(run, rng)
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
    run = Run.during(Phase.WAITING, "キック投票はゲーム開始前だけです。", state, rules, now)
    s = run.state
    if voter is not None and get_seat(s, voter).dummy:
        raise Forbidden(_("身代わり君は投票しません。"))
    victim = s.seat(target)
    if victim is None or victim.dummy:
        raise InvalidTarget()
    voters = s.kick_votes.get(target, frozenset())
    if voter is not None and voter in voters:
        raise AlreadyVoted(_("すでにキック投票しています。"))
    if voter is not None:
        voters = voters | {voter}
    if voter is not None and voter != target:
        # A kick vote is public, as the reference makes it: who voted to kick whom (a
        # self-kick is a leave, which the kick's own line tells).
        run.post("kick_vote", voter=get_seat(s, voter).name, name=victim.name)
    s.kick_votes[target] = voters
    s.clock.last_activity_at = now
    kicked = staff or voter == target or len(voters - {target}) >= rules.kick_votes
    if kicked:
        _remove_seat(s, target)
        run.post("kicked", name=victim.name)
        cleared = any(seat.start_voted and not seat.dummy for seat in s.seats)
        for seat in s.seats:
            seat.start_voted = seat.dummy
        if cleared:
            run.post("start_votes_cleared")
        run.events.append(Kicked(target, by_staff=staff))
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
        agent_seats=[s.no for s in state.seats if s.agent],
    )
    new = state.clone()
    new.fixed_cast = cast
    return new


def open_to_agents(state: GameState, *, open_: bool, rules: Rules, now: datetime) -> Step:
    """The host opens the waiting village to AIWolf agents, or closes it (seated agents
    stay; the host may remove them)."""
    run = Run.during(
        Phase.WAITING,
        "人狼知能エージェントの受け入れはゲーム開始前にだけ変えられます。",
        state,
        rules,
        now,
    )
    s = run.state
    if s.options.agents != open_:
        s.options = replace(s.options, agents=open_)
        s.clock.last_activity_at = now
        run.post("agents_opened" if open_ else "agents_closed")
    return run.done()


def vote_start(
    state: GameState, *, seat_no: int, rules: Rules, rng: random.Random, now: datetime
) -> tuple[Step, bool]:
    """ゲーム開始 vote; the game starts when all have voted and the count has a table row."""
    run = Run.during(Phase.WAITING, "ゲームはすでに始まっています。", state, rules, now)
    s = run.state
    seat = get_seat(s, seat_no)
    if seat.start_voted:
        raise AlreadyVoted(_("すでに開始に投票しています。"))
    seat.start_voted = True
    s.clock.last_activity_at = now
    if all(x.start_voted for x in s.seats) and len(s.seats) in cast_mod.CAST_TABLE:
        start(run, rng)
        return run.done(), True
    return run.done(), False


def can_start(state: GameState) -> bool:
    return len(state.seats) in cast_mod.CAST_TABLE


def start(run: Run, rng: random.Random) -> None:
    s = run.state
    n = len(s.seats)
    if n not in cast_mod.CAST_TABLE:
        raise TooFewPlayers()
    s.active = s.options.active(n, run.rules)
    dummy = s.dummy_seat
    dealt = s.fixed_cast or cast_mod.deal(
        [seat.no for seat in s.seats],
        s.options,
        run.rules,
        rng,
        dummy.no if dummy else None,
        agent_seats=[seat.no for seat in s.seats if seat.agent],
    )
    for seat in s.seats:
        seat.role = dealt.roles[seat.no]
        seat.sub_roles = frozenset(dealt.sub_roles.get(seat.no, frozenset()))
    s.kick_votes = {}
    counts = Counter(seat.role for seat in s.seats if seat.role is not None)
    summary = " ".join(f"{r.value}={counts[r]}" for r in Role if counts.get(r))  # codes
    s.day = 1
    begin_phase(run, Phase.NIGHT)
    run.events.append(Started())
    run.post("game_start", cast=summary)
    run.post("night", day=s.day)
    run.events.append(PhaseChanged(s.day, s.phase))


def start_now(state: GameState, *, rules: Rules, rng: random.Random, now: datetime) -> Step:
    """Start a village whose every seat has voted (used by staff and tests)."""
    run = Run.during(Phase.WAITING, None, state, rules, now)
    start(run, rng)
    return run.done()


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
        raise BadRequest(_("役職コードが正しくありません。")) from exc
