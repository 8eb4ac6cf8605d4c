"""Talk, wills, heaven talk and objections."""

from __future__ import annotations

from datetime import datetime

from .command import (
    Run,
    Scene,
    Step,
    check_scene,
    get_seat,
)
from .errors import (
    Dead,
    Forbidden,
    NoObjectionsLeft,
    WrongPhase,
    _,
)
from .events import (
    MessageKind,
    ObjectionRaised,
    Post,
    Volume,
)
from .night import duties
from .roles import Role
from .rules import Rules
from .speech import check_text, speech_units
from .state import (
    GameState,
    Phase,
    Seat,
)
from .timing import (
    time_is_up,
    time_up,
)


def _speaker(state: GameState, seat_no: int, rules: Rules, now: datetime) -> tuple[Run, Seat]:
    run = Run(state, rules, now)
    seat = get_seat(run.state, seat_no)
    if seat.dummy:
        raise Forbidden(_("身代わり君は発言しません。"))
    return run, seat


def talk(
    state: GameState,
    *,
    seat_no: int,
    text: str,
    volume: Volume = Volume.NORMAL,
    heaven: bool = False,
    rules: Rules,
    now: datetime,
    wording: tuple[str, tuple[tuple[str, str], ...]] = ("", ()),
    at: Scene | None = None,
) -> Step:
    """発言: public by day and before/after the game; at night the speaker's night kind.

    With `heaven`, 霊話: the dead talk among themselves while the game runs; it never
    costs time. `wording` is the code and params of a line the site words itself (a
    bot's), kept with the line beside its text. `at`: the scene the line was written in;
    a line is never published in another (a wolf's night line sent after the dawn).
    """
    code, params = wording
    run, seat = _speaker(state, seat_no, rules, now)
    s = run.state
    check_scene(s, at, LINE_REFUSAL)
    if heaven:
        if s.phase not in (Phase.DAY, Phase.NIGHT):
            raise WrongPhase(_("霊話はゲーム中だけです。"))
        if seat.alive:
            raise Forbidden(_("霊話は死者だけのものです。"))
    text = check_text(text, rules)
    if heaven:
        run.events.append(
            Post(s.day, s.phase, MessageKind.HEAVEN, text, seat_no, volume, code, params)
        )
        return run.done()
    kind = MessageKind.TALK
    cost = 0
    if talks_in_heaven(s, seat_no):
        raise Dead(_("死者は霊話でのみ発言できます。"))
    if s.phase in (Phase.DAY, Phase.NIGHT):
        if time_is_up(s, now):
            raise WrongPhase(_time_up_refusal(s, seat_no))
        kind = night_kind(seat) if s.phase is Phase.NIGHT else MessageKind.TALK
        cost = _speech_cost(s, kind, text, rules)
    elif s.phase is Phase.WAITING:
        s.clock.last_activity_at = now
    run.events.append(Post(s.day, s.phase, kind, text, seat_no, volume, code, params, cost))
    if cost:
        s.clock.virtual_left = max(0, s.clock.virtual_left - cost)
        s.clock.silence_ref = now
        if s.clock.virtual_left == 0:
            time_up(run)
    return run.done()


LINE_REFUSAL = _(
    "場面が変わったため、この発言は送られませんでした。内容を確かめて、もう一度送ってください。"
)


def _time_up_refusal(s: GameState, seat_no: int) -> str:
    """Why talk is refused once the phase's time is up, in words true for the speaker:
    what it still owes (the day's vote, the night's action), or plainly that time is up."""
    owed = duties(s, seat_no)
    if not owed:
        return _("時間切れのため発言できません。")
    if owed == ("vote",):
        return _("時間切れのため発言できません。投票してください。")
    return _("時間切れです。夜の行動を済ませてください。")


def talks_in_heaven(state: GameState, seat_no: int) -> bool:
    """Whether the seat's talk is 霊話 now: a dead player's, while the game runs (the
    living talk in the village, and so does everyone before the start and after the end).
    A screen's talk box sends its talk there; `talk` refuses a dead player's other talk."""
    seat = state.seat(seat_no)
    return seat is not None and not seat.alive and state.phase in (Phase.DAY, Phase.NIGHT)


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


def set_will(state: GameState, *, seat_no: int, text: str, rules: Rules) -> GameState:
    """遺言を残す: one will, replaced at any time while alive; a lone space clears it."""
    seat = get_seat(state, seat_no)
    if seat.dummy:
        raise Forbidden(_("身代わり君は遺言を残しません。"))
    if state.phase is Phase.ENDED:
        raise WrongPhase(_("ゲームは終わっています。"))
    if not seat.alive:
        raise Dead(_("死んだ後は遺言を書けません。"))
    will = "" if text == " " else check_text(text, rules)
    new = state.clone()
    new_seat = new.seat(seat_no)
    assert new_seat is not None
    new_seat.will = will
    return new


def object_(state: GameState, *, seat_no: int, rules: Rules, now: datetime) -> Step:
    """異議あり: before the start, and by day by the living; five per player per village."""
    run = Run(state, rules, now)
    s = run.state
    seat = get_seat(s, seat_no)
    if seat.dummy:
        raise Forbidden()
    if s.phase not in (Phase.WAITING, Phase.DAY):
        raise WrongPhase(_("異議ありは開始前と昼だけ使えます。"))
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
