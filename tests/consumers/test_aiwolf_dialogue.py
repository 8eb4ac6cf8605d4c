"""The AIWolf agents' dialogue and packets, pure (villages/aiwolf): what an agent's seat
is sent and when, from its view alone. No Django, no server (CI also runs these with
`-p no:django`); tests/aiwolf plays whole games through the door."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta

from villages.aiwolf import Act, Ask, Dialogue, Heard, Limits, Look, Say, Sleep, Tell, Vote
from villages.aiwolf.dialogue import TRIES
from villages.aiwolf.packets import game_ulid
from villages.bots import bot_view
from villages.engine.cast import Options
from villages.engine.events import Post
from villages.engine.roles import Role
from villages.engine.state import Ability, Phase
from villages.engine.visibility import see_message, vote_views

from ..engine.harness import Village, village

# Seats 1-8: wolf, wolf, seer, medium, guard, villager, villager, madman (the 11-row's
# protocol roles). Every seat is an agent's.
ROLES = "wolf wolf seer medium guard villager villager madman villager villager villager"
LIMITS = Limits(
    talks_per_day=2,
    whispers_per_night=2,
    skips=1,
    chars_per_talk=100,
    timeout_ms=5000,
    round_seconds=10,
    revotes=4,
)


def game(options: Options | None = None) -> Village:
    v = village(ROLES, options=options, seed=5)
    for seat in v.state.seats:
        seat.agent = True
    return v


def look(v: Village, seat: int, *, later: float = 0) -> Look:
    """The seat's look at the village now (+ `later` seconds), its lines numbered."""
    now = v.now + timedelta(seconds=later)
    posts = [e for e in v.events if isinstance(e, Post)]
    view = bot_view(v.state, seat, posts, v.rules, now)
    assert view is not None
    heard = []
    for n, p in enumerate(posts, start=1):
        seen = see_message(v.state, seat, p)
        if seen is not None:
            same = seen.kind == p.kind
            heard.append(
                Heard(
                    n,
                    p.day,
                    p.phase,
                    seen.kind,
                    seen.seat_no,
                    seen.text,
                    p.code if same else "",
                    {k: str(x) for k, x in dict(p.params).items()} if same else {},
                )
            )
    return Look(
        game_id="1",
        seed=7,
        view=view,
        heard=tuple(heard),
        rounds=tuple(vote_views(v.state)),
        cast={Role.WOLF: 2, Role.VILLAGER: 5},
        limits=LIMITS,
        now=now,
        phase_started_at=v.state.clock.phase_started_at,
    )


def drain(d: Dialogue, v: Village, seat: int, *, later: float = 0) -> list[Tell | Ask | Sleep]:
    """Every step the dialogue takes until it asks or sleeps (tells go by)."""
    steps: list[Tell | Ask | Sleep] = []
    while True:
        step = d.next(look(v, seat, later=later))
        steps.append(step)
        if not isinstance(step, Tell):
            return steps


def next_ask(d: Dialogue, v: Village, seat: int, *, start: float = 0) -> tuple[Ask, float]:
    """The dialogue's next ask, looking every tenth of a second from `start` on."""
    for tenth in range(int(start * 10), int(start * 10) + 600):
        step = d.next(look(v, seat, later=tenth / 10))
        if isinstance(step, Ask):
            return step, tenth / 10
    raise AssertionError("never asked")


def requests(steps: list[Tell | Ask | Sleep]) -> list[str]:
    return [s.packet["request"] for s in steps if isinstance(s, Tell | Ask)]


def test_initialize_tells_an_agent_its_own_role_and_a_wolf_its_pack_only():
    v = game()
    villager = drain(Dialogue(), v, 6)[0]
    wolf = drain(Dialogue(), v, 1)[0]
    assert isinstance(villager, Tell) and villager.packet["request"] == "INITIALIZE"
    info = villager.packet["info"]
    assert info["agent"] == v.seat(6).name
    assert info["role_map"] == {v.seat(6).name: "VILLAGER"}
    assert info["day"] == 0  # our night 1 is the contest's night 0
    assert set(info["status_map"]) == {s.name for s in v.state.seats}
    assert isinstance(wolf, Tell)
    assert wolf.packet["info"]["role_map"] == {
        v.seat(1).name: "WEREWOLF",
        v.seat(2).name: "WEREWOLF",
    }
    setting = wolf.packet["setting"]
    assert setting["talk"]["max_count"]["per_agent"] == 2
    assert setting["vote"]["allow_self_vote"] is False
    assert setting["timeout"]["action"] == 5000


def test_the_first_night_asks_the_seer_at_once_and_nothing_of_a_villager():
    v = game()
    seer = drain(Dialogue(), v, 3)
    assert requests(seer) == ["INITIALIZE", "DIVINE"]
    villager, medium, madman = (drain(Dialogue(), v, no) for no in (6, 4, 8))
    for steps in (villager, medium, madman):
        assert requests(steps) == ["INITIALIZE"]  # the silent night: nothing for them
        assert isinstance(steps[-1], Sleep)


def test_wolves_whisper_in_their_turn_then_the_pack_attacks():
    v = game()
    d = Dialogue()
    assert requests(drain(d, v, 1)) == ["INITIALIZE"]
    ask, _at = next_ask(d, v, 1)
    assert ask.request == "WHISPER" and ask.packet["info"]["remain_count"] == 2
    assert d.answered(ask, "今夜は誰にする？", look(v, 1)) == Say("今夜は誰にする？")
    assert d.answered(ask, "Over", look(v, 1)) is None  # no more whispers tonight
    attack = d.next(look(v, 1, later=20))
    assert isinstance(attack, Ask) and attack.request == "ATTACK"
    target = v.seat(6).name
    assert d.answered(attack, target, look(v, 1)) == Act("attack", 6)


def test_a_wolf_hears_its_pack_and_a_villager_hears_no_wolf_at_all():
    v = game()
    v.talk(2, "ささやき：占い師を狙おう")
    wolf, villager = Dialogue(), Dialogue()
    told = wolf.next(look(v, 1))
    assert isinstance(told, Tell)
    assert [w["text"] for w in told.packet["whisper_history"]] == ["ささやき：占い師を狙おう"]
    sent = drain(villager, v, 6)
    v.act(3, Ability.DIVINE, 1)
    v.act(1, Ability.ATTACK, 10)  # dawn
    sent += drain(villager, v, 6)
    assert requests(sent)[:2] == ["INITIALIZE", "DAILY_INITIALIZE"]
    packets = [s.packet for s in sent if isinstance(s, Tell | Ask)]
    assert "占い師を狙おう" not in json.dumps(packets, ensure_ascii=False)
    assert all(p["whisper_history"] is None for p in packets)


def test_the_morning_tells_results_to_their_owner_only():
    v = game()
    dialogues = {no: Dialogue() for no in (3, 4, 6)}
    for no, d in dialogues.items():
        d.next(look(v, no))
    v.act(3, Ability.DIVINE, 1)
    v.act(1, Ability.ATTACK, 6)
    seer = dialogues[3].next(look(v, 3))
    assert isinstance(seer, Tell) and seer.packet["request"] == "DAILY_INITIALIZE"
    info = seer.packet["info"]
    assert info["day"] == 1
    assert info["divine_result"] == {
        "day": 0,
        "agent": v.seat(3).name,
        "target": v.seat(1).name,
        "result": "WEREWOLF",
    }
    assert info["attacked_agent"] == v.seat(6).name
    medium = dialogues[4].next(look(v, 4))
    assert isinstance(medium, Tell) and medium.packet["info"]["divine_result"] is None
    # The villager was bitten: it is dead, and the dead see every role (SPEC §8).
    dead = dialogues[6].next(look(v, 6))
    assert isinstance(dead, Tell) and dead.packet["info"]["status_map"][v.seat(6).name] == "DEAD"
    assert dead.packet["info"]["role_map"][v.seat(1).name] == "WEREWOLF"
    assert dead.packet["info"]["divine_result"] is None  # another seer's result: never
    assert isinstance(dialogues[6].next(look(v, 6)), Sleep)  # the dead are asked nothing


def test_with_roles_hidden_in_heaven_a_dead_agent_knows_no_more_than_its_own_role():
    v = game(Options(hide_roles_in_heaven=True))
    d = Dialogue()
    d.next(look(v, 6))
    v.act(3, Ability.DIVINE, 1)
    v.act(1, Ability.ATTACK, 6)
    dead = d.next(look(v, 6))
    assert isinstance(dead, Tell)
    assert dead.packet["info"]["role_map"] == {v.seat(6).name: "VILLAGER"}


def day_two() -> Village:
    v = game()
    v.act(3, Ability.DIVINE, 9)
    v.act(1, Ability.ATTACK, 10)
    assert v.state.phase is Phase.DAY
    return v


def test_talk_comes_in_rounds_each_living_agent_once_in_its_turn():
    v = day_two()
    living = [s.no for s in v.state.seats if s.alive]
    asked_at: dict[int, float] = {}
    for seat in living:
        d = Dialogue()
        d.next(look(v, seat))  # INITIALIZE
        d.next(look(v, seat))  # DAILY_INITIALIZE
        for tenth in range(0, 100):
            step = d.next(look(v, seat, later=tenth / 10))
            if isinstance(step, Ask):
                assert step.request == "TALK"
                asked_at[seat] = tenth / 10
                break
        assert isinstance(d.next(look(v, seat, later=9.9)), Sleep)  # once a round
    # Every living agent is asked within the first round, each at its own time.
    assert set(asked_at) == set(living)
    assert len(set(asked_at.values())) == len(living)
    assert max(asked_at.values()) < LIMITS.round_seconds


def test_over_ends_the_talk_and_the_vote_is_asked_then_a_named_seat_is_the_vote():
    v = day_two()
    d = Dialogue()
    d.next(look(v, 6))
    d.next(look(v, 6))
    ask, _at = next_ask(d, v, 6)
    assert ask.request == "TALK"
    assert d.answered(ask, "Over", look(v, 6)) is None
    vote = d.next(look(v, 6, later=10))
    assert isinstance(vote, Ask) and vote.request == "VOTE"
    assert d.answered(vote, v.seat(2).name, look(v, 6)) == Vote(2)


def test_a_refused_target_is_asked_again_at_once_a_few_times_then_once_a_round():
    v = day_two()
    d = Dialogue()
    d.next(look(v, 6))
    d.next(look(v, 6))
    talk, at = next_ask(d, v, 6)
    d.answered(talk, "Over", look(v, 6, later=at))
    for _ in range(TRIES):
        vote = d.next(look(v, 6, later=at))
        assert isinstance(vote, Ask) and vote.request == "VOTE"
        assert d.answered(vote, "Agent[99]", look(v, 6, later=at)) is None
    assert isinstance(d.next(look(v, 6, later=at)), Sleep)  # the round's quick tries are spent
    next_round = (int(at // LIMITS.round_seconds) + 1) * LIMITS.round_seconds
    again = d.next(look(v, 6, later=next_round))
    assert isinstance(again, Ask) and again.request == "VOTE"  # the next round asks once
    d.refused("vote")
    assert isinstance(d.next(look(v, 6, later=next_round + 1)), Sleep)
    last = d.next(look(v, 6, later=next_round + LIMITS.round_seconds))
    assert isinstance(last, Ask)
    assert d.answered(last, v.state.seats[0].name, look(v, 6)) == Vote(1)


def test_a_long_line_is_cut_to_the_limit_and_skips_beyond_the_limit_end_the_talk():
    v = day_two()
    d = Dialogue()
    d.next(look(v, 6))
    d.next(look(v, 6))
    ask, _at = next_ask(d, v, 6)
    assert d.answered(ask, "あ" * 500, look(v, 6)) == Say("あ" * 100)
    assert d.answered(ask, "Skip", look(v, 6)) is None
    assert not d.over
    assert d.answered(ask, "Skip", look(v, 6)) is None
    assert d.over  # LIMITS.skips is 1


def test_the_day_ends_with_daily_finish_and_the_game_with_finish_revealing_every_role():
    v = day_two()
    d = Dialogue()
    d.next(look(v, 6))
    d.next(look(v, 6))
    v.lynch(1)
    assert v.state.phase is Phase.NIGHT
    finish_day = d.next(look(v, 6))
    assert isinstance(finish_day, Tell) and finish_day.packet["request"] == "DAILY_FINISH"
    v.act(3, Ability.DIVINE, 11)
    v.act(2, Ability.ATTACK, 7)  # the guard acts from night 2 …
    v.act(5, Ability.GUARD, 3)
    v.lynch(2)
    assert v.state.phase is Phase.ENDED
    steps = drain(d, v, 6)
    assert requests(steps) == ["FINISH"]  # the game ended before it looked at day 3
    finish = steps[0]
    assert isinstance(finish, Tell)
    roles = finish.packet["info"]["role_map"]
    assert roles[v.seat(8).name] == "POSSESSED" and roles[v.seat(5).name] == "BODYGUARD"
    assert len(roles) == len(v.state.seats)


def test_a_reconnected_agent_is_told_the_game_again_from_initialize():
    v = day_two()
    v.talk(6, "おはよう")
    steps = drain(Dialogue(), v, 7)
    assert requests(steps)[:2] == ["INITIALIZE", "DAILY_INITIALIZE"]
    told = steps[0]
    assert isinstance(told, Tell)
    assert [t["text"] for t in told.packet["talk_history"]] == ["おはよう"]
    # and not twice
    assert told.packet["talk_history"] and steps[1].packet["talk_history"] is None  # type: ignore[union-attr]


def test_the_vote_is_asked_when_the_days_time_runs_short():
    v = day_two()
    d = Dialogue()
    d.next(look(v, 6))
    d.next(look(v, 6))
    short = replace(look(v, 6), view=replace(look(v, 6).view, share_left=0.1))
    step = d.next(short)
    assert isinstance(step, Ask) and step.request == "VOTE"


def test_the_game_id_is_a_ulid_that_carries_the_villages_time():
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    millis = 1_796_000_000_123  # 2026-11-30
    game_id = game_ulid(millis, (12345 << 18) | 42)
    assert len(game_id) == 26 and set(game_id) <= set(crockford)
    assert game_id[0] <= "7"  # 128 bits: a ULID's first digit holds three
    value = 0
    for digit in game_id:
        value = value * 32 + crockford.index(digit)
    assert value >> 80 == millis
    assert value & (2**80 - 1) == (12345 << 18) | 42
    assert game_ulid(millis, 1) != game_ulid(millis, 2)
