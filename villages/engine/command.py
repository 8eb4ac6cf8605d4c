"""The toolkit of every command: its working copy and what befalls seats (deaths, a
phase's beginning, the end of the game), shared by the commands' modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .errors import (
    Dead,
    InvalidTarget,
    NotSeated,
    NotYourAbility,
    SceneChanged,
    WrongPhase,
    _,
)
from .events import (
    Died,
    Event,
    GameOver,
    MessageKind,
    PhaseChanged,
    Post,
)
from .outcome import winner_of
from .roles import Winner
from .rules import Rules
from .state import (
    DeathCause,
    GameState,
    Phase,
    Seat,
)


@dataclass(frozen=True)
class Step:
    state: GameState
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Scene:
    """Where a command was made: the day and phase its form or request showed and, for a
    ballot, the vote round. A part left None is not checked."""

    day: int | None = None
    phase: Phase | None = None
    round: int | None = None


def check_scene(state: GameState, at: Scene | None, refusal: str | None = None) -> None:
    """Refuse a command made in a scene the village has left (a line written at night
    and sent after the dawn, a ballot from before a revote): it is taken in no other."""
    if at is None:
        return
    if (at.day is not None and at.day != state.day) or (
        at.phase is not None and at.phase is not state.phase
    ):
        raise SceneChanged(refusal)
    if at.round is not None and state.phase is Phase.DAY and at.round != state.vote_round:
        raise SceneChanged(_("再投票になりました。もう一度投票してください。"))


class Run:
    """One command's working copy and the events it collects."""

    def __init__(self, state: GameState, rules: Rules, now: datetime) -> None:
        self.state = state.clone()
        self.rules = rules
        self.now = now
        self.events: list[Event] = []

    @classmethod
    def during(
        cls, phase: Phase, refusal: str | None, state: GameState, rules: Rules, now: datetime
    ) -> Run:
        """A run of a command that only `phase` allows; any other phase is refused."""
        if state.phase is not phase:
            raise WrongPhase(refusal)
        return cls(state, rules, now)

    def done(self) -> Step:
        return Step(self.state, tuple(self.events))

    def post(
        self,
        code: str,
        kind: MessageKind = MessageKind.SYSTEM,
        seat_no: int | None = None,
        **params: object,
    ) -> None:
        # No sentence here: the site words the line from its code and params.
        text_params = {k: str(v) for k, v in params.items()}
        self.events.append(
            Post(
                day=self.state.day,
                phase=self.state.phase,
                kind=kind,
                text="",
                seat_no=seat_no,
                code=code,
                params=tuple(sorted(text_params.items())),
            )
        )


def get_seat(state: GameState, no: int) -> Seat:
    seat = state.seat(no)
    if seat is None:
        raise NotSeated()
    return seat


def live_target(state: GameState, no: int) -> Seat:
    seat = state.seat(no)
    if seat is None or not seat.alive:
        raise InvalidTarget()
    return seat


def acting_seat(state: GameState, no: int) -> Seat:
    """A seat that acts in the game: present, alive and not the dummy boy."""
    seat = get_seat(state, no)
    if seat.dummy:
        raise NotYourAbility(_("身代わり君は行動しません。"))
    if not seat.alive:
        raise Dead()
    return seat


def begin_phase(run: Run, phase: Phase) -> None:
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


def kill(run: Run, seat: Seat, cause: DeathCause) -> None:
    s = run.state
    seat.alive = False
    seat.death_cause = cause
    seat.death_day = s.day
    seat.death_phase = s.phase
    run.events.append(Died(seat.no, cause))


def lovers_follow(run: Run) -> list[Seat]:
    """後追い: a lover whose beloved is dead follows at once."""
    followers: list[Seat] = []
    lovers = run.state.lovers()
    if any(not x.alive for x in lovers):
        for x in lovers:
            if x.alive:
                kill(run, x, DeathCause.LOVERS)
                followers.append(x)
    return followers


def publish_wills(run: Run) -> None:
    """Wills of those who died since the last morning. The dummy boy writes none: its will
    is the site's own line (`dummy_will`, worded by the site), as the reference gives it
    one of its own."""
    for x in run.state.seats:
        if not x.alive and not x.will_published:
            x.will_published = True
            if x.dummy or x.will:
                run.events.append(
                    Post(
                        day=run.state.day,
                        phase=run.state.phase,
                        kind=MessageKind.WILL,
                        text="" if x.dummy else x.will,
                        seat_no=x.no,
                        code="dummy_will" if x.dummy else "",
                    )
                )


def finish_if_over(run: Run) -> bool:
    winner = winner_of(run.state)
    if winner is None:
        return False
    end_game(run, winner)
    return True


def end_game(run: Run, winner: Winner) -> None:
    s = run.state
    publish_wills(run)
    s.winner = winner
    s.phase = Phase.ENDED
    c = s.clock
    c.time_up_at = c.sudden_death_at = c.last_alert_at = None
    # A draw by revotes leaves people alive: "nobody remained" would be false.
    revotes = winner is Winner.DRAW and bool(s.living)
    run.post("win_draw_revotes" if revotes else f"win_{winner.value}")
    run.events.append(GameOver(winner))
    run.events.append(PhaseChanged(s.day, s.phase))
