"""Simultaneous requests never double-count (issue 4): 22 votes from 22 threads, two wolves
attacking at once. On PostgreSQL the row lock serialises them; on SQLite the version
compare-and-set (and BEGIN IMMEDIATE) does."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections

from villages.models import Ballot, Message, NightAction, Village

from .client import Api, DjangoTransport, Reply, Table, open_village

# 22 players, the fox on seat 4: the wolves' first attack on it fails and all 22 see day 2.
CAST22 = ["wolf", "wolf", "wolf", "fox", "seer", "medium", "guard", "common", "common"]
CAST22 += ["madman"] + ["villager"] * 12
CAST8 = ["wolf", "wolf", "seer", "villager", "villager", "villager", "villager", "villager"]


def at_once(calls: list[Callable[[], Reply]]) -> list[Reply]:
    """Run every call in its own thread, all released together by a barrier."""
    barrier = threading.Barrier(len(calls))
    replies: list[Reply | BaseException | None] = [None] * len(calls)

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            replies[i] = calls[i]()
        except BaseException as exc:  # reported below, in the test's thread
            replies[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for reply in replies:
        if isinstance(reply, BaseException):
            raise reply
    return [r for r in replies if isinstance(r, Reply)]


def threaded(table: Table, seat: int, rest: str, body: dict) -> Callable[[], Reply]:
    """A call with a test client of its own (clients are not shared between threads)."""
    player = table.player(seat)

    def call() -> Reply:
        return DjangoTransport().send(
            "POST", table.path(rest), body, token=player.token, ip=player.ip
        )

    return call


def simultaneous_votes(api: Api) -> None:
    table = open_village(api, players=22, cast=CAST22)
    table.player(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [4]})
    table.player(5).ok("POST", table.path("night-action"), {"action": "divine", "targets": [6]})
    state = table.state()
    assert state["village"]["phase"] == "day" and all(s["alive"] for s in state["seats"])

    target = 22
    calls = [
        threaded(table, seat, "vote", {"target": target if seat != target else 1})
        for seat in range(1, 23)
    ]
    replies = at_once(calls)
    assert [r.status for r in replies] == [200] * 22, [r.body for r in replies]
    assert sum(r.body["tally_done"] for r in replies) == 1, "exactly one request ran the tally"

    state = table.state()
    assert Ballot.objects.filter(village_id=table.id, day=2).count() == 22
    assert [(v["day"], v["round"], v["executed"]) for v in state["votes"]] == [(2, 1, target)]
    assert len(state["votes"][0]["ballots"]) == 22
    executed = Message.objects.filter(village_id=table.id, code="executed").count()
    assert executed == 1, "one execution line"
    assert [s["seat_no"] for s in state["seats"] if not s["alive"]] == [target]
    assert state["village"]["phase"] == "night" and state["village"]["day"] == 2


def simultaneous_attacks(api: Api) -> None:
    table = open_village(api, players=8, cast=CAST8)
    replies = at_once(
        [
            threaded(table, 1, "night-action", {"action": "attack", "targets": [4]}),
            threaded(table, 2, "night-action", {"action": "attack", "targets": [5]}),
        ]
    )
    assert sorted((r.status, r.code) for r in replies) == [(200, None), (409, "already_acted")]
    attacks = NightAction.objects.filter(village_id=table.id, ability="attack")
    assert attacks.count() == 1
    won = next(i for i, r in enumerate(replies) if r.status == 200)
    assert attacks.get().targets == [[4], [5]][won], "the pack's choice is the first wolf's"
    for wolf in (1, 2):
        assert table.state(table.player(wolf))["me"]["action_done"]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_22_simultaneous_votes_on_postgresql_end_in_exactly_one_execution(api: Api):
    assert connection.vendor == "postgresql"
    simultaneous_votes(api)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_wolves_attacking_at_once_on_postgresql_record_one_attack(api: Api):
    assert connection.vendor == "postgresql"
    simultaneous_attacks(api)


def sqlite_only() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite twin of a PostgreSQL test")


@pytest.mark.django_db(transaction=True)
def test_22_simultaneous_votes_on_sqlite_end_in_exactly_one_execution(api: Api):
    sqlite_only()
    simultaneous_votes(api)


@pytest.mark.django_db(transaction=True)
def test_two_wolves_attacking_at_once_on_sqlite_record_one_attack(api: Api):
    sqlite_only()
    simultaneous_attacks(api)


def simultaneous_creations(api: Api) -> None:
    callers = [api.register() for _ in range(4)]
    body = {"name": "同時村", "capacity": 8}

    def create(caller) -> Callable[[], Reply]:
        return lambda: DjangoTransport().send(
            "POST", "villages", body, token=caller.token, ip=caller.ip
        )

    replies = at_once([create(c) for c in callers])
    assert (
        sorted((r.status, r.code) for r in replies)
        == [(201, None)] + [(409, "too_many_villages")] * 3
    )
    assert Village.objects.count() == 1


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_simultaneous_creations_on_postgresql_never_pass_the_active_village_cap(api: Api, settings):
    assert connection.vendor == "postgresql"
    settings.JINRO_MAX_ACTIVE_VILLAGES = 1
    simultaneous_creations(api)


@pytest.mark.django_db(transaction=True)
def test_simultaneous_creations_on_sqlite_never_pass_the_active_village_cap(api: Api, settings):
    sqlite_only()
    settings.JINRO_MAX_ACTIVE_VILLAGES = 1
    simultaneous_creations(api)
