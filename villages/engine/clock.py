"""The clock: silence, time-up, alerts, sudden death, abandoning, and when it next has
something to do.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from .command import (
    Run,
    Step,
    finish_if_over,
    kill,
    lovers_follow,
)
from .day import (
    owed_votes,
)
from .errors import (
    WrongPhase,
    _,
)
from .events import (
    Alert,
    GameOver,
    PhaseChanged,
    Revote,
)
from .night import (
    dawn,
    owed_actions,
)
from .rules import Rules
from .state import (
    DeathCause,
    GameState,
    Phase,
    RoundResult,
    VoteRound,
)
from .timing import (
    phase_deadline,
    time_up,
)


def tick(state: GameState, *, rules: Rules, rng: random.Random, now: datetime) -> Step:
    """Advance the village's clock to `now`. Idempotent: a second call at `now` does nothing."""
    run = Run(state, rules, now)
    s = run.state
    if s.phase is Phase.WAITING:
        last = s.clock.last_activity_at
        if last is not None and now - last >= timedelta(seconds=rules.abandon_seconds):
            _abandon(run, "abandoned")
        return run.done()
    if s.phase is Phase.ENDED:
        return run.done()
    c = s.clock
    if c.time_up_at is None:
        deadline = phase_deadline(s)
        if deadline is not None:
            if now >= deadline:
                time_up(run)
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
            run.post("outage", grace=rules.sudden_death_grace)
        else:
            _sudden_death(run, rng)
        return run.done()
    alert_from = c.sudden_death_at - timedelta(seconds=rules.alert_from)
    due = c.last_alert_at is None or now - c.last_alert_at >= timedelta(seconds=rules.alert_every)
    if now >= alert_from and due:
        c.last_alert_at = now
        run.events.append(Alert(int((c.sudden_death_at - now).total_seconds())))
    return run.done()


def _silence(run: Run) -> None:
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
        time_up(run)


def _hours(seconds: int) -> str:
    hours = seconds / 3600
    return str(int(hours)) if hours == int(hours) else f"{hours:.1f}"


def _sudden_death(run: Run, rng: random.Random) -> None:
    """突然死: whoever still owes the phase's action dies, with no poison revenge."""
    s = run.state
    owed = owed_votes(s) if s.phase is Phase.DAY else owed_actions(s)
    for x in owed:
        kill(run, x, DeathCause.SUDDEN)
        run.post("sudden_death", name=x.name)
    for follower in lovers_follow(run):
        run.post("lovers_suicide", name=follower.name)
    if s.phase is Phase.NIGHT:
        dawn(run, rng)
        return
    if finish_if_over(run):
        return
    # By day the ballots are cleared and voting starts again, with a new grace.
    s.rounds.append(VoteRound(s.day, s.vote_round, RoundResult.VOID))
    s.vote_round += 1
    run.post("revote_after_sudden")
    # Told as loudly as a tie's revote (the cue, the sound, the `revote` frame): everyone
    # who had voted must vote again.
    last_chance = s.ties == run.rules.max_revotes - 1
    run.events.append(Revote(s.day, s.vote_round, last_chance, reason="sudden_death"))
    time_up(run)


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


def abandon(state: GameState, *, rules: Rules, now: datetime) -> Step:
    """廃村: staff close a village, whatever its phase; nobody wins. Its line says so
    (a waiting village that nobody moved closes with a line of its own)."""
    if state.phase is Phase.ENDED:
        raise WrongPhase(_("この村はすでに終わっています。"))
    run = Run(state, rules, now)
    _abandon(run, "abandoned_by_staff")
    return run.done()


def _abandon(run: Run, code: str) -> None:
    s = run.state
    s.abandoned = True
    s.phase = Phase.ENDED
    c = s.clock
    c.time_up_at = c.sudden_death_at = c.last_alert_at = None
    run.post(code)
    run.events.append(GameOver(None))
    run.events.append(PhaseChanged(s.day, s.phase))
