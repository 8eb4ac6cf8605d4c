"""The village's time: the real-time deadline, the virtual seconds left, talk closing."""

from __future__ import annotations

from datetime import datetime, timedelta

from .command import (
    Run,
)
from .rules import Rules
from .state import (
    GameState,
    Phase,
)


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


def time_up(run: Run) -> None:
    s, c = run.state, run.state.clock
    c.virtual_left = 0
    c.time_up_at = run.now
    c.sudden_death_at = run.now + timedelta(seconds=run.rules.sudden_death_grace)
    c.last_alert_at = None
    code = "time_up_day" if s.phase is Phase.DAY else "time_up_night"
    run.post(code, grace=run.rules.sudden_death_grace)  # seconds
