"""Rows ↔ engine state: whatever a command returns is exactly what the next load sees."""

from __future__ import annotations

import random
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model

from villages.engine import Ability, GameState, Phase, RuleError, Step
from villages.engine import game as engine
from villages.models import Icon, Village
from villages.services import core, lifecycle
from villages.services.config import rules
from villages.snapshots import Loaded, load

pytestmark = pytest.mark.django_db


def _users(n: int) -> list:
    User = get_user_model()
    return [User.objects.create_user(username=f"p{i}", password="x") for i in range(n)]


def _apply(village_id: int, fn, *, random_: bool = False, **kwargs) -> GameState:
    """Run an engine command through the service path; return the state it produced."""
    produced: list[GameState] = []

    def command(loaded: Loaded, rng: random.Random, now: datetime) -> tuple[Step, None]:
        extra = {"rng": rng} if random_ else {}
        result = fn(loaded.state, rules=rules(), now=now, **extra, **kwargs)
        step = result[0] if isinstance(result, tuple) else result
        produced.append(step.state)
        return step, None

    core.run(village_id, command)
    return produced[-1]


def _reloaded(village_id: int) -> GameState:
    return load(Village.objects.get(pk=village_id)).state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_command_round_trips_through_the_rows(settings, seed: int) -> None:
    settings.JINRO_ONE_SEAT_PER_IP = False
    rng = random.Random(seed)
    users = _users(16)
    icon = Icon.objects.choosable().first()
    village = lifecycle.create_village(
        user=users[0],
        name="往復村",
        capacity=16,
        options={"cupid": True, "decider": True, "authority": True, "dummy_boy": True},
    )
    for i, user in enumerate(users[:15]):
        lifecycle.sit(village_id=village.pk, user=user, handle_name=f"名{i}", icon_id=icon.pk)
    # A leave and a new sitter: numbers are never reused, across loads too.
    lifecycle.leave(village_id=village.pk, user=users[14])
    lifecycle.sit(village_id=village.pk, user=users[15], handle_name="新顔", icon_id=icon.pk)
    numbers = [s.no for s in _reloaded(village.pk).seats]
    assert len(set(numbers)) == len(numbers) and max(numbers) == 17

    for user in [*users[:14], users[15]]:
        lifecycle.vote_start(village_id=village.pk, user=user)
    state = _reloaded(village.pk)
    assert state.phase is Phase.NIGHT

    for _ in range(400):
        if state.phase is Phase.ENDED:
            break
        seats = [x.no for x in state.living if not x.dummy]
        if state.phase is Phase.DAY:
            owed = engine.owed_votes(state)
            voter = owed[0].no
            target = rng.choice([n for n in seats if n != voter])
            if rng.random() < 0.2:
                text = "あ" * rng.randint(1, 300)
                expected = _apply(village.pk, engine.talk, seat_no=voter, text=text)
                assert _reloaded(village.pk) == expected
            expected = _apply(village.pk, engine.vote, random_=True, voter=voter, target=target)
        else:
            actor = engine.owed_actions(state)[0]
            ability = {"wolf": Ability.ATTACK, "seer": Ability.DIVINE}.get(
                actor.role.value,
                Ability.GUARD if actor.role.value == "guard" else Ability.CUPID,
            )
            candidates = [x.no for x in state.living]
            rng.shuffle(candidates)
            expected = None
            for target in candidates:
                targets = [actor.no, target] if ability is Ability.CUPID else [target]
                try:
                    expected = _apply(
                        village.pk,
                        engine.night_action,
                        random_=True,
                        seat_no=actor.no,
                        ability=ability,
                        targets=targets,
                    )
                    break
                except RuleError:
                    continue
            assert expected is not None
        state = _reloaded(village.pk)
        assert state == expected
    assert state.phase is Phase.ENDED and state.winner is not None
    row = Village.objects.get(pk=village.pk)
    assert row.status == Village.Status.ENDED and row.winner == state.winner.value


def test_a_writer_holding_the_villages_version_reads_only_that_version(
    django_capture_on_commit_callbacks,
) -> None:
    """A process that wrote a village (or follows it) holds its newest version: its next
    write reads only the version under the lock, not the whole row. A version it does
    not hold (another process wrote since) is read whole, and the write goes on from it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.realtime.game import started_village, to_day_two
    from villages import snapshots
    from villages.models import Message
    from villages.services import play

    game = started_village()
    to_day_two(game)
    village_id = game.village_id

    def talk(seat: int, text: str) -> list[str]:
        with (
            CaptureQueriesContext(connection) as queries,
            django_capture_on_commit_callbacks(execute=True),
        ):
            play.post_message(village_id=village_id, user=game.user(seat), text=text)
        return [q["sql"] for q in queries.captured_queries]

    talk(5, "おはよう")
    held = snapshots.snapshot_of(village_id)
    assert held is not None
    sql = talk(6, "おはようございます")
    reads = [q for q in sql if q.startswith("SELECT") and 'FROM "villages_village"' in q]
    assert len(reads) == 1 and "SELECT version, seed, created_at" in reads[0]

    # Another process wrote since (this one holds the version before): read whole.
    snapshots.SNAPSHOTS.put(snapshots.snapshot_key(held.village), held)
    sql = talk(7, "遅れました")
    assert any('SELECT * FROM "villages_village"' in q for q in sql)
    saved = Village.objects.get(pk=village_id)
    lines = list(Message.objects.filter(village_id=village_id, seat_no__in=(5, 6, 7)))
    assert [m.text for m in sorted(lines, key=lambda m: m.pk)][-3:] == [
        "おはよう",
        "おはようございます",
        "遅れました",
    ]
    assert saved.public_lines == max(m.public_no for m in lines)
    assert saved.last_line == max(m.pk for m in lines)
    assert _reloaded(village_id) == snapshots.snapshot_of(village_id).state
