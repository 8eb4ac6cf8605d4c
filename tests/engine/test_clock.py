"""SPEC §6–§7: speech costs, silence, real time, time-up, grace, alerts, sudden death, outage,
and the sweep's `next_deadline`."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from villages.engine import game
from villages.engine.cast import Options, TimeOptions
from villages.engine.errors import TextEmpty, TextTooLong, WrongPhase
from villages.engine.events import Alert, Died, MessageKind, Post, Revote
from villages.engine.roles import Role
from villages.engine.rules import Rules
from villages.engine.speech import check_text, speech_units, width
from villages.engine.state import Ability, DeathCause, Phase, RoundResult

from .harness import T0, Village, expect_error, run, seated, unchanged, village

RULES = Rules()
A, D = Ability.ATTACK, Ability.DIVINE
EIGHT = "wolf wolf seer villager*5"
FOURTEEN = "wolf wolf fanatic fox seer medium guard common common villager*5"
REAL = Options(time=TimeOptions(realtime=True, day_seconds=600, night_seconds=300))


def day_two(roles: str = EIGHT, **kwargs: object) -> Village:
    v = village(roles, **kwargs)  # type: ignore[arg-type]
    v.act(1, A, 4)
    v.act(3 if roles == EIGHT else 5, D, 5 if roles == EIGHT else 10)
    assert v.state.phase is Phase.DAY
    return v


def cost_of(step: game.Step) -> int:
    [post] = [e for e in step.events if isinstance(e, Post) and e.seat_no is not None]
    return post.cost


# -- §6 speech units ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("a", 1),
        ("a" * 99, 1),
        ("a" * 199, 1),
        ("a" * 200, 2),
        ("a" * 399, 3),
        ("a" * 400, 4),
        ("a" * 2000, 4),
        ("あ" * 49, 1),
        ("あ" * 100, 2),
        ("あ" * 150, 3),
        ("あ" * 199 + "a", 3),
        ("あ" * 200, 4),
        ("ｱ" * 200, 2),  # half-width katakana is half-width
    ],
)
def test_speech_units_are_width_floor_100_min_1_cap_4(text: str, units: int) -> None:
    """SPEC §6 units: width (full-width = 2) / 100 rounded down, at least 1, at most 4."""
    assert speech_units(text, RULES) == units


def test_full_width_characters_count_two() -> None:
    """SPEC §6 a full-width character counts 2."""
    assert width("あア漢Ａ") == 8 and width("abc ｱ") == 5


def test_utterance_limits_chars_and_lines() -> None:
    """SPEC §6 at most SPEECH_MAX_CHARS = 2000 characters and SPEECH_MAX_LINES = 50 lines."""
    assert check_text("a" * 2000, RULES) == "a" * 2000
    with pytest.raises(TextTooLong):
        check_text("a" * 2001, RULES)
    assert check_text("\n".join("a" * 50), RULES).count("\n") == 49
    with pytest.raises(TextTooLong):
        check_text("\n".join("a" * 51), RULES)
    with pytest.raises(TextEmpty):
        check_text(" \n　", RULES)


def test_a_browsers_line_breaks_are_kept_as_lf_and_counted_once() -> None:
    """A form sends CRLF: kept as it came, it stayed in the text, and 50 lines of 1,999
    characters in all counted 2,048 against the 2,000 limit."""
    assert check_text("おはよう\r\nみんな\rまたね", RULES) == "おはよう\nみんな\nまたね"
    lines = "\r\n".join(["ab"] * 40)  # 80 letters and 39 line breaks
    assert check_text(lines, RULES) == "\n".join(["ab"] * 40)
    assert len(check_text("\r\n".join(["a" * 39] * 50), RULES)) == 50 * 39 + 49


def test_day_speech_costs_units_of_seven_and_a_half_minutes() -> None:
    """SPEC §6 one unit is DAY_SECONDS_PER_UNIT = 7 min 30 s by day."""
    v = day_two()
    step = v.talk(2, "a" * 250)
    assert cost_of(step) == 2 * 450
    assert v.state.clock.virtual_left == 12 * 3600 - 900


def test_night_wolf_speech_costs_units_of_fifteen_minutes() -> None:
    """SPEC §6 NIGHT_SECONDS_PER_UNIT = 15 min at night."""
    v = village(EIGHT)
    assert cost_of(v.talk(1, "a" * 1000)) == 4 * 900
    assert v.state.clock.virtual_left == 6 * 3600 - 3600


@pytest.mark.parametrize("seat", [3, 4, 8, 9, 6])
def test_at_night_only_the_wolves_talk_costs_time(seat: int) -> None:
    """SPEC §6 at night only the wolves' talk consumes time (commons, monologues: none)."""
    v = village(FOURTEEN)
    before = v.state.clock.virtual_left
    assert cost_of(v.talk(seat, "x" * 400)) == 0
    assert v.state.clock.virtual_left == before


def test_wills_and_heaven_talk_never_cost_time() -> None:
    """SPEC §6 wills and heaven talk never consume time."""
    v = day_two()
    v.will(2, "遺言" * 300)
    step = v.heaven(4, "霊話" * 300)
    assert cost_of(step) == 0
    assert v.state.clock.virtual_left == 12 * 3600


def test_speech_reaching_zero_closes_talk() -> None:
    """SPEC §6 when the virtual time reaches 0, talk closes; only voting remains."""
    v = day_two()
    for _ in range(24):  # 24 × 4 units × 7.5 min = 12 h
        v.talk(2, "a" * 400)
    assert v.state.clock.virtual_left == 0 and v.codes()[-1] == "time_up_day"
    run(v, [("raises", WrongPhase, ("talk", 3, "a")), ("vote", {3: 2})])


# -- §6 silence ------------------------------------------------------------------------


def test_silence_costs_an_hour_by_day_once_per_silent_period() -> None:
    """SPEC §6 nobody speaks for SILENCE_REAL_SECONDS = 60 → a line and 1 h consumed; again
    after each further silent period, and only once per period."""
    v = day_two()
    v.tick(59)
    assert v.state.clock.virtual_left == 12 * 3600 and v.codes()[-1] != "silence_day"
    v.tick(1)
    assert v.state.clock.virtual_left == 11 * 3600
    line = v.posts()[-1]
    assert line.code == "silence_day" and dict(line.params)["hours"] == "1"
    assert v.tick(0).events == ()  # the same moment again: nothing more
    v.tick(59)
    assert v.state.clock.virtual_left == 11 * 3600
    v.tick(1)
    assert v.state.clock.virtual_left == 10 * 3600


def test_silence_costs_two_hours_at_night() -> None:
    """SPEC §6 SILENCE_NIGHT_PENALTY = 2 h at night."""
    v = village(EIGHT)
    v.tick(60)
    assert v.state.clock.virtual_left == 4 * 3600
    line = v.posts()[-1]
    assert line.code == "silence_night" and dict(line.params)["hours"] == "2"


def test_time_consuming_speech_restarts_the_silent_period() -> None:
    """SPEC §6 'nobody speaks': a time-consuming utterance restarts the silence timer
    (design: only time-consuming speech counts)."""
    v = day_two()
    v.tick(50)
    v.talk(2, "a")
    v.tick(50)
    assert "silence_day" not in v.codes()
    v.tick(10)
    assert v.codes()[-1] == "silence_day"
    w = village(FOURTEEN)
    w.tick(50)
    w.talk(8, "共有の会話")  # costs nothing at night
    w.tick(10)
    assert w.codes()[-1] == "silence_night"


def test_silence_can_run_the_day_out() -> None:
    """SPEC §6 silence consumes the day: twelve silent minutes end the talk."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    assert v.codes()[-2:] == ["silence_day", "time_up_day"]
    assert v.state.clock.time_up_at == v.now


# -- §6 real time ----------------------------------------------------------------------


def test_real_time_runs_virtual_time_down_in_proportion() -> None:
    """SPEC §6 real time: virtual time runs down in proportion so both reach 0 together."""
    v = village(EIGHT, options=REAL)
    start = v.now
    for elapsed, left in [(0, 6 * 3600), (75, 4.5 * 3600), (150, 3 * 3600), (299, 72), (300, 0)]:
        at = start + timedelta(seconds=elapsed)
        assert game.virtual_seconds_left(v.state, at, RULES) == left
    assert game.phase_deadline(v.state) == start + timedelta(seconds=300)


def test_real_time_speech_is_free_and_silence_costs_nothing() -> None:
    """SPEC §6 real time: speech costs nothing and there is no silence penalty."""
    v = village(EIGHT, options=REAL)
    assert cost_of(v.talk(1, "a" * 400)) == 0
    v.tick(120)
    assert "silence_night" not in v.codes() and v.state.clock.virtual_left == 6 * 3600


def test_real_time_deadline_closes_talk_even_before_the_sweep() -> None:
    """SPEC §6 when the time reaches 0, talk closes."""
    v = village(EIGHT, options=REAL)
    v.advance(300)
    run(v, [("raises", WrongPhase, ("talk", 1, "まだ"))])


def test_real_time_day_uses_the_day_length() -> None:
    """SPEC §6 the host's day and night lengths."""
    v = village(EIGHT, options=REAL)
    v.act(1, A, 4)
    v.act(3, D, 5)
    assert game.phase_deadline(v.state) == v.now + timedelta(seconds=600)
    v.tick(599)
    assert v.state.clock.time_up_at is None
    v.tick(1)
    assert v.codes()[-1] == "time_up_day"


# -- §7 sudden death -------------------------------------------------------------------


def test_time_up_posts_a_warning_and_gives_a_grace() -> None:
    """SPEC §7 when the time is used up, a warning is posted and each owing player has
    SUDDEN_DEATH_GRACE = 180 real seconds."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    warning = v.posts()[-1]
    assert warning.code == "time_up_day" and dict(warning.params) == {"grace": "180"}
    assert v.state.clock.sudden_death_at == v.now + timedelta(seconds=180)
    v.tick(179)
    assert not v.of_type(Died)[1:]
    v.tick(1)
    assert {e.seat_no for e in v.of_type(Died)} == {4, 1, 2, 3, 5, 6, 7, 8}


def test_alerts_every_six_seconds_in_the_last_ninety() -> None:
    """SPEC §7 a sound every ALERT_EVERY = 6 s during the last ALERT_FROM = 90 s."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    deadline = v.state.clock.sudden_death_at
    alerts: list[tuple[int, int]] = []
    for _ in range(179):
        step = v.tick(1)
        alerts += [
            (int((deadline - v.now).total_seconds()), e.seconds_left)  # type: ignore[operator]
            for e in step.events
            if isinstance(e, Alert)
        ]
    assert alerts == [(s, s) for s in range(90, 0, -6)]


def test_owing_voters_die_with_lovers_and_ballots_clear_and_a_fresh_grace() -> None:
    """SPEC §7 by day: whoever has not voted dies (lovers follow, shown to all), the
    ballots are cleared, voting starts again (a voided round), with a fresh grace."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    run(v, [("cupid", 4, 4, 8), ("attack", 1, 5), ("divine", 3, 6)])
    run(v, [("vote", {1: 3, 2: 3, 3: 1, 4: 3, 6: 3, 7: 3})])  # 8 owes
    for _ in range(12):
        v.tick(60)
    step = v.tick(180)
    assert v.deaths() == {
        5: DeathCause.ATTACKED,
        8: DeathCause.SUDDEN,
        4: DeathCause.LOVERS,
    }
    # Said as loudly as a tie's revote: the `revote` frame, cue and sound (issue 32, item 1).
    revotes = [e for e in step.events if isinstance(e, Revote)]
    assert revotes == [Revote(day=2, round=2, last_chance=False, reason="sudden_death")]
    s = v.state
    assert s.phase is Phase.DAY and s.current_ballots() == [] and s.vote_round == 2
    assert s.rounds[-1].result is RoundResult.VOID
    assert s.clock.sudden_death_at == v.now + timedelta(seconds=180)
    assert v.codes()[-3:] == ["lovers_suicide", "revote_after_sudden", "time_up_day"]
    sudden = [p for p in v.posts() if p.code == "sudden_death"]
    assert all(p.kind is MessageKind.SYSTEM for p in sudden)  # shown to all


def test_sudden_death_of_a_poison_takes_nobody() -> None:
    """SPEC §7 sudden death comes with no poison revenge."""
    roles = "wolf*4 madman fox seer medium guard common common poison villager*8"
    v = village(roles, options=Options(poison=True))
    run(v, [("attack", 1, 13), ("divine", 7, 14)])
    run(v, [("vote", {x: 2 for x in v.living() if x not in (2, 12)}), ("vote", {2: 3})])
    for _ in range(12):
        v.tick(60)
    v.tick(180)
    assert v.seat(12).death_cause is DeathCause.SUDDEN
    assert DeathCause.POISONED not in v.deaths().values()


def test_night_sudden_death_takes_who_owes_then_dawn_resolves_the_choices() -> None:
    """SPEC §7 at night: the seer, the guard from night 2, the cupid on night 1 owe; dawn then
    resolves what was chosen."""
    v = village("wolf wolf seer cupid villager*4", options=Options(cupid=True))
    v.act(1, A, 5)
    for _ in range(3):
        v.tick(60)
    v.tick(180)
    assert v.deaths() == {3: DeathCause.SUDDEN, 4: DeathCause.SUDDEN, 5: DeathCause.ATTACKED}
    assert v.state.phase is Phase.DAY and v.state.lovers() == []


def test_night_sudden_death_kills_every_wolf_when_none_chose() -> None:
    """SPEC §7 at night, if no wolf chose, every living wolf dies."""
    v = village(FOURTEEN)
    v.act(5, D, 10)
    for _ in range(3):
        v.tick(60)
    v.tick(180)
    assert v.deaths() == {1: DeathCause.SUDDEN, 2: DeathCause.SUDDEN}
    assert v.state.winner is not None  # then victory check: the fox is alive → fox


def test_guard_owes_from_night_two() -> None:
    """SPEC §7 the guard owes an action from night 2."""
    v = day_two(FOURTEEN)
    v.lynch(1)
    v.act(2, A, 11)
    v.act(5, D, 12)
    for _ in range(3):
        v.tick(60)
    v.tick(180)
    assert v.seat(7).death_cause is DeathCause.SUDDEN


def test_deadline_overdue_by_more_than_the_outage_time_kills_nobody() -> None:
    """SPEC §7 a deadline more than OUTAGE_SECONDS = 90 s overdue: nobody dies for it; the
    grace starts again from the recovery."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    deadline = v.state.clock.sudden_death_at
    v.tick(180 + 91)
    assert len(v.deaths()) == 1 and v.codes()[-1] == "outage"
    assert v.state.clock.sudden_death_at == v.now + timedelta(seconds=180)
    assert deadline is not None and v.now - deadline == timedelta(seconds=91)
    v.tick(180)
    assert len(v.deaths()) == 8


def test_deadline_exactly_outage_seconds_late_still_kills() -> None:
    """SPEC §7 'more than' OUTAGE_SECONDS: 90 s late is not an outage."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    v.tick(180 + 90)
    assert len(v.deaths()) == 8


def test_outage_at_night_kills_nobody_either() -> None:
    """SPEC §7 the outage rule holds at night too."""
    v = village(EIGHT)
    for _ in range(3):
        v.tick(60)
    v.tick(1000)
    assert v.deaths() == {} and v.state.phase is Phase.NIGHT


def test_real_time_deadline_missed_in_an_outage_gives_a_full_grace() -> None:
    """SPEC §7 after an outage, the grace starts from the recovery (real-time phase end)."""
    v = village(EIGHT, options=REAL)
    v.tick(3000)
    assert v.codes()[-1] == "time_up_night"
    assert v.state.clock.sudden_death_at == v.now + timedelta(seconds=180)


def test_sweep_is_idempotent() -> None:
    """SPEC §7 the deadline is enforced exactly once: ticking twice at one moment is once."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    v.tick(180)
    again = unchanged(game.tick, v.state, rules=RULES, rng=random.Random(5), now=v.now)
    assert again.events == () and again.state == v.state


# -- next_deadline ---------------------------------------------------------------------


def _drive(v: Village, *, until: int, every_second: bool) -> list[object]:
    """Tick every second, or only at `next_deadline`, for `until` seconds."""
    end = v.now + timedelta(seconds=until)
    while v.now < end and v.state.phase is not Phase.ENDED:
        if every_second:
            v.tick(1)
        else:
            due = game.next_deadline(v.state, RULES)
            assert due is not None and due > v.now - timedelta(seconds=1)
            if due > end:
                break
            v.now = max(due, v.now)
            v.tick(0)
    return list(v.events)


@pytest.mark.parametrize("options", [Options(), REAL], ids=["virtual", "real_time"])
def test_ticking_at_next_deadline_only_sees_what_ticking_every_second_sees(
    options: Options,
) -> None:
    """SPEC §7 the sweep: `next_deadline` names every moment `tick` has work (silence, time-up,
    each alert, the sudden death), so a sweep driven by it misses nothing."""
    every = day_two(options=options)
    every.vote(2, 3)
    sparse = day_two(options=options)
    sparse.vote(2, 3)
    a = _drive(every, until=1500, every_second=True)
    b = _drive(sparse, until=1500, every_second=False)
    assert a == b
    assert every.state == sparse.state
    assert any(isinstance(e, Alert) for e in a) and any(isinstance(e, Died) for e in a[-40:])


def test_tick_before_next_deadline_does_nothing() -> None:
    """`next_deadline` is the earliest moment anything can happen."""
    v = day_two()
    for _ in range(40):
        due = game.next_deadline(v.state, RULES)
        assert due is not None
        early = unchanged(
            game.tick, v.state, rules=RULES, rng=random.Random(0), now=due - timedelta(seconds=1)
        )
        assert early.events == () and early.state == v.state
        v.now = due
        v.tick(0)
        if v.state.phase is Phase.ENDED:
            break
    assert game.next_deadline(v.state, RULES) is None or v.state.phase is not Phase.ENDED


def test_next_deadline_in_each_state() -> None:
    """`next_deadline`: abandon while waiting, silence or the phase end, then alert or death."""
    state = seated(8)
    assert game.next_deadline(state, RULES) == T0 + timedelta(seconds=1200)
    v = day_two()
    assert game.next_deadline(v.state, RULES) == v.now + timedelta(seconds=60)
    r = village(EIGHT, options=REAL)
    assert game.next_deadline(r.state, RULES) == r.now + timedelta(seconds=300)
    for _ in range(12):
        v.tick(60)
    assert game.next_deadline(v.state, RULES) == v.now + timedelta(seconds=90)  # first alert
    v.tick(90)
    assert game.next_deadline(v.state, RULES) == v.now + timedelta(seconds=6)


def test_error_for_speech_after_time_up_is_wrong_phase() -> None:
    """SPEC §6 talk closed: wrong_phase."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    expect_error(WrongPhase, game.talk, v.state, seat_no=2, text="a", rules=RULES, now=v.now)


def test_a_new_phase_starts_with_a_fresh_clock_after_a_time_up() -> None:
    """SPEC §6/§7 each phase has its own time: a day that ran out and then was voted out
    leaves the night a full 6 h, no warning and no pending sudden death."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    old_deadline = v.state.clock.sudden_death_at
    v.tick(100)
    v.lynch(8)
    c = v.state.clock
    assert v.state.phase is Phase.NIGHT
    assert (c.virtual_left, c.time_up_at, c.sudden_death_at) == (6 * 3600, None, None)
    assert c.phase_started_at == v.now and c.silence_ref == v.now
    assert old_deadline is not None
    v.now = old_deadline
    v.tick(0)
    assert set(v.deaths()) == {4, 8}


def test_system_lines_are_codes_with_the_params_the_engine_says_they_carry() -> None:
    """SPEC §8 the site's own wording for every system line: the engine posts a code and
    exactly the params its code carries (`SYSTEM_LINES`), as names, numbers and codes (no
    words: the site words the line, in each page's language: tests/web/test_words.py)."""
    from villages.engine.texts import SYSTEM_LINES

    from . import randomplay as rp

    seen: set[str] = set()
    for seed in range(30):
        g = rp.random_game(seed)
        rp.play(g, random.Random(seed))
        for e in g.events:
            if isinstance(e, Post) and e.kind in (MessageKind.SYSTEM, MessageKind.OBJECTION):
                assert e.code in SYSTEM_LINES and e.text == ""
                assert set(dict(e.params)) == set(SYSTEM_LINES[e.code]), e.code
                for name, value in e.params:
                    if name in ("grace", "day", "hours", "round", "ties"):
                        assert value.isdigit(), (e.code, name, value)
                    if name == "cast":
                        assert all(
                            role in {r.value for r in Role} and count.isdigit()
                            for role, _, count in (item.partition("=") for item in value.split())
                        ), value
                seen.add(e.code)
    assert {"morning", "night", "executed", "sudden_death", "time_up_day"} <= seen


def test_a_tie_after_the_time_is_up_gives_the_revote_a_fresh_grace() -> None:
    """SPEC §5/§7 a revote after the time is up: everybody votes again, so the grace
    starts again from the tie rather than keeping the seconds left of the old one."""
    v = day_two()
    for _ in range(12):
        v.tick(60)
    first_deadline = v.state.clock.sudden_death_at
    v.tick(170)
    assert v.living() == [1, 2, 3, 5, 6, 7, 8]
    v.votes({2: 1, 3: 1, 5: 1, 1: 2, 6: 2, 7: 2, 8: 3})  # 3 against 3
    assert v.state.vote_round == 2
    assert v.codes()[-2:] == ["revote", "time_up_day"]
    assert v.state.clock.sudden_death_at == v.now + timedelta(seconds=180)
    assert v.state.clock.sudden_death_at > first_deadline  # type: ignore[operator]
    v.tick(11)
    assert not v.of_type(Died)[1:], "nobody dies at the old deadline"


def _refusal(v: Village, seat: int) -> str:
    return expect_error(
        WrongPhase, game.talk, v.state, seat_no=seat, text="a", rules=RULES, now=v.now
    ).message


def test_refusal_after_time_up_says_what_the_speaker_still_owes() -> None:
    """Issue 32 item 3: once time is up, talk's refusal (still wrong_phase) says what is
    true for the speaker: at night there is no vote, a wolf or seer must act, the others
    are only told that time is up; by day a voter is asked to vote, one who voted is not."""
    v = village(EIGHT, options=REAL)
    v.advance(300)
    for seat in (1, 3):  # a wolf, the seer
        assert _refusal(v, seat) == "時間切れです。夜の行動を済ませてください。"
    assert _refusal(v, 5) == "時間切れのため発言できません。"
    v = day_two()
    v.vote(2, 3)
    for _ in range(12):
        v.tick(60)
    assert _refusal(v, 3) == "時間切れのため発言できません。投票してください。"
    assert _refusal(v, 2) == "時間切れのため発言できません。"
