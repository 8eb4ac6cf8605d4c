"""Bot seats (villages/services/bots.py): filled by the host, played through the services.

The sweep is called directly here (`run_due_bots` and the clock's sweep, as the ticker
or Celery beat call them); tests/realtime/test_celery_bots.py runs them in real
processes.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from django.test import override_settings
from django.utils import timezone

from villages.bots import ACCOUNT_PREFIX
from villages.engine import game as engine
from villages.engine.errors import BadRequest, Forbidden, VillageFull, WrongPhase
from villages.engine.state import Phase
from villages.models import Icon, Message, Seat, Village
from villages.services import bots, clock, core, lifecycle, play
from villages.snapshots import snapshot_of

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(300)]

FLAGS = ("cupid", "poison", "decider", "authority", "hide_roles_in_heaven", "dummy_boy")


@pytest.fixture(autouse=True)
def _fast_bots(settings):
    settings.JINRO_BOT_DELAY = 0
    settings.JINRO_RATE_LIMIT_ENABLED = False
    settings.JINRO_ONE_SEAT_PER_IP = False
    settings.JINRO_MAX_ACTIVE_VILLAGES = 1000
    if not Icon.objects.choosable().exists():
        for n in range(3):
            Icon.objects.create(name=f"icon{n}", static_path=f"icons/{n}.svg")


def host(name: str = "host"):
    return get_user_model().objects.create_user(name, password="x")


def play_out(village_id: int, *, looks: int = 3000) -> Village:
    """Sweep (bots, then deadlines) until the game is over. The bots keep their votes for
    the later part of the day, which comes with time: when nothing is due, the sweeps'
    clock goes on to the next moment something is (a deadline, a bot's alarm)."""
    now = timezone.now()
    for _ in range(looks):
        village = Village.objects.get(pk=village_id)
        if village.status == Village.Status.ENDED:
            return village
        now = max(now, timezone.now())
        if bots.run_due_bots(now=now) or clock.sweep_due_villages(now=now):
            continue
        seats = Seat.objects.filter(village_id=village_id)
        due = [village.deadline_at, *seats.values_list("bot_alarm_at", flat=True)]
        due += seats.values_list("bot_next_at", flat=True)
        upcoming = [t for t in due if t is not None]
        if upcoming:
            now = max(now, min(upcoming))
    raise AssertionError(f"village {village_id} never ended")


def test_the_host_fills_the_empty_seats_with_bots_that_vote_to_start_at_once():
    owner = host()
    village = lifecycle.create_village(user=owner, name="練習", capacity=8)
    person = host("person")
    icon = Icon.objects.choosable().first()
    lifecycle.sit(village_id=village.pk, user=person, handle_name="ひと", icon_id=icon.pk)
    seats = bots.add_bots(village_id=village.pk, user=owner)
    assert len(seats) == 7
    rows = Seat.objects.filter(village=village, kicked=False).order_by("seat_no")
    marked = [r.handle_name for r in rows if r.bot]
    assert len(marked) == 7 and all(n.endswith(engine.BOT_MARK) for n in marked)
    assert all(r.start_voted for r in rows if r.bot)
    assert all(r.user.username.startswith(ACCOUNT_PREFIX) for r in rows if r.bot)
    village.refresh_from_db()
    assert village.practice and village.status == Village.Status.WAITING
    lifecycle.vote_start(village_id=village.pk, user=person)
    village.refresh_from_db()
    assert village.status == Village.Status.PLAYING


def test_only_the_host_or_staff_adds_bots_and_never_past_the_empty_seats():
    owner = host()
    village = lifecycle.create_village(user=owner, name="練習", capacity=8)
    with pytest.raises(Forbidden):
        bots.add_bots(village_id=village.pk, user=host("stranger"), count=1)
    with pytest.raises(VillageFull):
        bots.add_bots(village_id=village.pk, user=owner, count=9)
    with pytest.raises(BadRequest):
        bots.add_bots(village_id=village.pk, user=owner, count=1, strategy="cheater")
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    assert len(bots.add_bots(village_id=village.pk, user=staff, count=3)) == 3
    assert Village.objects.get(pk=village.pk).status == Village.Status.WAITING
    bots.add_bots(village_id=village.pk, user=owner)  # the rest: the game starts
    with pytest.raises(WrongPhase):
        bots.add_bots(village_id=village.pk, user=staff, count=1)


def test_a_person_may_not_wear_the_bot_mark():
    owner = host()
    village = lifecycle.create_village(user=owner, name="練習", capacity=8)
    icon = Icon.objects.choosable().first()
    with pytest.raises(BadRequest):
        lifecycle.sit(
            village_id=village.pk, user=owner, handle_name=f"偽物{engine.BOT_MARK}", icon_id=icon.pk
        )


def test_staff_remove_a_bot_seat_before_the_start_and_the_village_is_no_longer_practice():
    owner = host()
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    village = lifecycle.create_village(user=owner, name="練習", capacity=8)
    (seat,) = bots.add_bots(village_id=village.pk, user=owner, count=1)
    assert Village.objects.get(pk=village.pk).practice
    lifecycle.kick_vote(village_id=village.pk, user=staff, target=seat)
    assert not Village.objects.get(pk=village.pk).practice


# Six rows of the cast table, both strategies (a third of the sizes play "random"); every
# size is played by the engine's tests and bench/bot_villages.py.
@pytest.mark.parametrize("players", [8, 12, 14, 16, 18, 22])
def test_an_all_bot_village_plays_to_a_winner_without_a_sudden_death(players):
    rng = random.Random(players)
    options = {name: rng.random() < 0.5 for name in FLAGS}
    if rng.random() < 0.3:
        options["time"] = {"mode": "realtime", "day_seconds": 600, "night_seconds": 600}
    owner = host()
    village = lifecycle.create_village(
        user=owner, name="全員ボット", capacity=players, options=options
    )
    strategy = "random" if players % 3 == 0 else "reasoning"
    bots.add_bots(village_id=village.pk, user=owner, strategy=strategy)
    ended = play_out(village.pk)
    assert ended.winner and not ended.abandoned, ended.winner
    causes = Counter(Seat.objects.filter(village=ended).values_list("death_cause", flat=True))
    assert causes["sudden"] == 0, causes
    assert not Seat.objects.filter(village=ended, bot_next_at__isnull=False).exists()
    assert not Seat.objects.filter(village=ended, bot_alarm_at__isnull=False).exists()


def test_reasoning_bots_talk_claim_and_say_whom_they_vote_for():
    owner = host()
    village = lifecycle.create_village(user=owner, name="会話", capacity=12)
    # A fixed seed: the cast and the nights are the same game every run (with a random one,
    # a seer bitten on night 1 with no wolf pretending left nobody to claim, now and then).
    Village.objects.filter(pk=village.pk).update(seed=20261205)
    bots.add_bots(village_id=village.pk, user=owner)
    play_out(village.pk)
    talk = list(
        Message.objects.filter(village=village, kind="talk", day__gte=2).values_list(
            "text", flat=True
        )
    )
    assert any("に投票します" in t for t in talk)
    lines = Message.objects.filter(village=village, kind="talk", day__gte=2)
    assert lines.filter(code="bot_seer_claim").exists()  # the seer, or one pretending


@override_settings(LANGUAGE_CODE="en")
def test_the_bots_lines_follow_the_sites_language():
    owner = host()
    village = lifecycle.create_village(user=owner, name="english", capacity=8)
    bots.add_bots(village_id=village.pk, user=owner)
    play_out(village.pk)
    talk = Message.objects.filter(village=village, kind="talk").values_list("text", flat=True)
    assert any("vote for" in t for t in talk) and not any("投票します" in t for t in talk)


def test_a_bot_never_acts_for_another_seat_nor_after_its_death(monkeypatch):
    owner = host()
    village = lifecycle.create_village(user=owner, name="監視", capacity=10)
    bots.add_bots(village_id=village.pk, user=owner)
    acts: list[tuple[str, int, bool]] = []
    real_talk, real_vote, real_act = play.post_message, play.vote, play.night_action

    def record(kind, real):
        def call(*, village_id, user, **kwargs):
            loaded = snapshot_of(village_id)
            row = loaded.seat_of_user(user.pk)
            seat = loaded.state.seat(row.seat_no)
            acts.append((kind, user.pk, row.user_id == user.pk and seat.alive))
            return real(village_id=village_id, user=user, **kwargs)

        return call

    monkeypatch.setattr(play, "post_message", record("talk", real_talk))
    monkeypatch.setattr(play, "vote", record("vote", real_vote))
    monkeypatch.setattr(play, "night_action", record("act", real_act))
    play_out(village.pk)
    assert acts and all(ok for _, _, ok in acts), [a for a in acts if not a[2]]
    dead = set(Seat.objects.filter(village=village, alive=False).values_list("user_id", flat=True))
    assert dead  # someone died, and each of them acted only while alive (checked above)


def test_two_sweepers_claiming_the_same_bots_make_each_look_once(monkeypatch):
    owner = host()
    village = lifecycle.create_village(user=owner, name="競争", capacity=8)
    bots.add_bots(village_id=village.pk, user=owner)
    assert Seat.objects.filter(village=village, bot_next_at__isnull=False).count() == 8
    looked: list[int] = []

    def look(pk, now=None):  # records the look and changes nothing, so nobody is woken again
        looked.append(pk)
        if len(looked) == 1:  # a second sweeper runs while the first one works
            bots.run_due_bots()

    monkeypatch.setattr(bots, "act", look)
    bots.run_due_bots()
    assert sorted(looked) == sorted(set(looked)) and len(looked) == 8


def test_a_bot_is_never_looked_at_twice_at_once_and_looks_again_after_a_change(monkeypatch):
    """A commit of another seat during a look wakes every idle bot; the bot in the middle
    of its look is not idle, or a second sweeper would look at it from a view without the
    line the first look is about to say (seen in CI: a bot said the same line twice)."""
    owner = host()
    village = lifecycle.create_village(user=owner, name="重なり", capacity=8)
    bots.add_bots(village_id=village.pk, user=owner)
    looked: list[int] = []
    busy: set[int] = set()
    overlapping: list[int] = []

    def look(pk, now=None):
        overlapping.extend([pk] if pk in busy else [])
        busy.add(pk)
        looked.append(pk)
        try:
            if len(looked) == 1:  # another seat's line commits and a second sweeper runs
                Village.objects.filter(pk=village.pk).update(version=F("version") + 1)
                core._wake_bots(village.pk, timezone.now() - timedelta(seconds=5))
                bots.run_due_bots()
            return None
        finally:
            busy.discard(pk)

    monkeypatch.setattr(bots, "act", look)
    bots.run_due_bots()
    assert not overlapping and len(looked) == 8, looked
    # The change came after the first look's claim only: that bot alone looks again.
    again = Seat.objects.filter(village=village).exclude(bot_next_at=None)
    assert list(again.values_list("pk", flat=True)) == looked[:1]
    bots.run_due_bots()
    assert looked[8:] == looked[:1]


def test_a_bot_looks_again_well_inside_a_short_sudden_death_grace(settings):
    """A bot waits JINRO_BOT_DELAY after a change, but at most a third of the grace: when
    a day's time runs out every bot owes its vote within the grace, and with a 3-second
    grace and a 2-second wait a loaded machine let a village's bots die of sudden death."""
    settings.JINRO_BOT_DELAY = 30
    settings.JINRO_SUDDEN_DEATH_GRACE = 3
    owner = host()
    village = lifecycle.create_village(user=owner, name="猶予", capacity=8)
    before = timezone.now()
    bots.add_bots(village_id=village.pk, user=owner)
    after = timezone.now()
    times = (
        Seat.objects.filter(village=village).exclude(bot="").values_list("bot_next_at", flat=True)
    )
    assert len(times) == 8 and all(t is not None for t in times)
    # A third of the grace after the command that seated them, however long adding took.
    third = timedelta(seconds=1)
    assert all(before + third <= t <= after + third for t in times), (before, after, sorted(times))
    # With a long grace the bots take their own time, as set.
    settings.JINRO_SUDDEN_DEATH_GRACE = 180
    Seat.objects.filter(village=village).update(bot_next_at=None)
    before = timezone.now()
    core._wake_bots(village.pk, before)
    times = (
        Seat.objects.filter(village=village).exclude(bot="").values_list("bot_next_at", flat=True)
    )
    assert all(t >= before + timedelta(seconds=30) for t in times), (before, sorted(times))


def _settle(village_id: int, now) -> None:
    """Every look and deadline due at `now`, until none is."""
    for _ in range(100):
        if not (bots.run_due_bots(now=now) or clock.sweep_due_villages(now=now)):
            return
    raise AssertionError("the village never settled")


def test_bots_talk_at_dawn_and_vote_in_the_later_part_of_a_real_time_day():
    """Issue 32 item 5: the site's bots used to vote two seconds after dawn. In a real-time
    practice village with a person they talk at dawn and keep their votes; their alarm is
    the later part of the day, well before the deadline, and they all vote then."""
    owner = host()
    options = {"time": {"mode": "realtime", "day_seconds": 600, "night_seconds": 600}}
    village = lifecycle.create_village(user=owner, name="昼", capacity=8, options=options)
    Village.objects.filter(pk=village.pk).update(seed=20261205)  # the same game every run
    icon = Icon.objects.choosable().first()
    lifecycle.sit(village_id=village.pk, user=owner, handle_name="ひと", icon_id=icon.pk)
    lifecycle.vote_start(village_id=village.pk, user=owner)
    bots.add_bots(village_id=village.pk, user=owner)
    now = timezone.now()
    for _ in range(5):  # night 1
        if snapshot_of(village.pk).state.phase is Phase.DAY:
            break
        _settle(village.pk, now)
        if snapshot_of(village.pk).state.phase is Phase.NIGHT:
            now = max(now, Village.objects.get(pk=village.pk).deadline_at)
    dawn = snapshot_of(village.pk).state.clock.phase_started_at
    now = max(now, timezone.now())
    _settle(village.pk, now)
    state = snapshot_of(village.pk).state
    assert state.phase is Phase.DAY and state.current_ballots() == []
    living_bots = Seat.objects.filter(village=village, alive=True).exclude(bot="")
    talk = Message.objects.filter(village=village, kind="talk", day=state.day)
    assert talk.count() >= living_bots.count()  # each said its line
    alarms = set(living_bots.values_list("bot_alarm_at", flat=True))
    assert None not in alarms
    assert all(dawn + timedelta(seconds=300) < t < dawn + timedelta(seconds=540) for t in alarms)
    _settle(village.pk, max(alarms))
    state = snapshot_of(village.pk).state
    assert state.phase is Phase.DAY and state.clock.time_up_at is None
    assert len(state.current_ballots()) == living_bots.count()  # every bot, before the end
    play.vote(village_id=village.pk, user=owner, target=living_bots.first().seat_no)
    state = snapshot_of(village.pk).state
    assert [r.day for r in state.rounds][-1:] == [2]  # the round is counted (tied or not)
    assert not Seat.objects.filter(village=village, death_cause="sudden").exists()


def _person_wolf_beside_a_bot_wolf(options: dict | None = None) -> tuple[int, object]:
    """A practice village: a person in seat 1 and a bot in seat 2 are the wolves; night 1."""
    owner = host()
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    village = lifecycle.create_village(user=owner, name="人狼の夜", capacity=8, options=options)
    icon = Icon.objects.choosable().first()
    lifecycle.sit(village_id=village.pk, user=owner, handle_name="ひと", icon_id=icon.pk)
    bots.add_bots(village_id=village.pk, user=owner)
    roles = {"1": "wolf", "2": "wolf", "3": "seer"} | {str(n): "villager" for n in range(4, 9)}
    lifecycle.fix_cast(village_id=village.pk, user=staff, roles=roles, sub_roles={})
    lifecycle.vote_start(village_id=village.pk, user=owner)
    assert snapshot_of(village.pk).state.phase is Phase.NIGHT
    return village.pk, owner


def test_a_bot_wolf_leaves_the_night_to_its_person_packmate_and_attacks_whom_they_whisper():
    """Issue 39 item 1: the bot wolf used to take the pack's attack a second into the
    night. It now proposes in a whisper and waits; the person names a target in a whisper
    and that target is attacked."""
    village_id, person = _person_wolf_beside_a_bot_wolf()
    now = timezone.now()
    for seconds in (0, 5, 30):  # every bot looks, again and again: the night stays
        _settle(village_id, now + timedelta(seconds=seconds))
    state = snapshot_of(village_id).state
    assert state.phase is Phase.NIGHT and state.pack_attack(1) is None
    whispers = Message.objects.filter(village_id=village_id, kind="wolf", day=1)
    assert list(whispers.values_list("seat_no", "code")) == [(2, "bot_pack_propose")]
    target = state.seat(6)
    play.post_message(village_id=village_id, user=person, text=f"{target.name}さんでお願い")
    _settle(village_id, now + timedelta(seconds=35))
    state = snapshot_of(village_id).state
    assert state.phase is Phase.DAY and not state.seat(6).alive
    assert whispers.last().code == "bot_pack_follow"


def test_in_virtual_time_the_bot_wolf_attacks_alone_once_the_person_let_a_silence_pass():
    village_id, _person = _person_wolf_beside_a_bot_wolf()
    now = timezone.now()
    _settle(village_id, now)
    assert snapshot_of(village_id).state.phase is Phase.NIGHT
    _settle(village_id, now + timedelta(seconds=61))  # the clock's silence line, then the bots
    state = snapshot_of(village_id).state
    assert state.phase is Phase.DAY
    codes = list(
        Message.objects.filter(village_id=village_id, day=1).values_list("code", flat=True)
    )
    assert codes.index("silence_night") < codes.index("bot_pack_alone")


def test_in_real_time_the_bot_wolf_attacks_alone_when_half_the_night_is_gone():
    options = {"time": {"mode": "realtime", "day_seconds": 600, "night_seconds": 300}}
    village_id, _person = _person_wolf_beside_a_bot_wolf(options)
    start = snapshot_of(village_id).state.clock.phase_started_at
    _settle(village_id, start + timedelta(seconds=1))
    alarm = Seat.objects.get(village_id=village_id, seat_no=2).bot_alarm_at
    assert alarm is not None and alarm - start >= timedelta(seconds=150)
    _settle(village_id, alarm - timedelta(seconds=5))
    assert snapshot_of(village_id).state.phase is Phase.NIGHT
    _settle(village_id, alarm)
    assert snapshot_of(village_id).state.phase is Phase.DAY


def test_a_page_in_english_words_a_bot_s_answer_with_both_names_in_english():
    from django.utils import translation

    from villages import wording

    params = {"asker": "アキラ(ボット)", "name": "ユウキ(ボット)", "w": "0"}
    with translation.override("en"):
        text = wording.line_text("talk", "bot_answer_hunch", params, "（日本語）")
    assert text.startswith("Akira") and "Yuki" in text and "ボット" not in text, text
    with translation.override("ja"):
        assert wording.line_text("talk", "bot_answer_hunch", params, "（日本語）") == "（日本語）"
