"""Nothing hidden shows in the ids (SPEC §8, issue 14): the numbers a viewer knows lines by
tell it neither how many lines it may not see were posted nor when. A night of
monologues and heaven talk is played with sockets, screens and the API watching."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async as db
from django.test import Client

from villages.line_numbers import SPAN
from villages.models import Message, Village

from .game import Game, make_user, started_village, to_day_two, token_of
from .sockets import Screen, Socket, open_screen, open_socket
from .test_silent_night import CAST_11, to_night_two

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

_IDS = re.compile(r'id="m(\d+)"')
_LAST = re.compile(r'data-last="(\d+)"')


def api_ids(village_id: int, token: str, after: int = 0) -> list[int]:
    answer = Client().get(
        f"/api/v1/villages/{village_id}/messages?after={after}",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert answer.status_code == 200
    return [m["id"] for m in answer.json()["messages"]]


def lower_pane(village_id: int, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/villages/{village_id}/down/").content.decode()


def public_only(ids: list[int]) -> None:
    """A spectator's numbers: SPAN, 2·SPAN, … with nothing between."""
    assert ids == [SPAN * k for k in range(1, len(ids) + 1)], ids


def gapless(ids: list[int], public: int) -> None:
    """Every public line, and between two of them j = 1, 2, … of the viewer's own."""
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert [n for n in ids if n % SPAN == 0] == [SPAN * k for k in range(1, public + 1)]
    for gap in {n // SPAN for n in ids}:
        own = [n % SPAN for n in ids if n // SPAN == gap and n % SPAN]
        assert own == list(range(1, len(own) + 1)), (gap, own)


async def watch(game: Game, seat: int | None) -> tuple[str, Socket, Screen]:
    if seat is None:
        token = await db(token_of)(await db(make_user)())
    else:
        token = await db(game.token)(seat)
    return (
        token,
        await open_socket(game.village_id, token=token),
        await open_screen(game.village_id, token=token),
    )


async def test_a_night_of_monologues_and_heaven_talk_leaves_no_trace_in_the_ids():
    game = await db(started_village)(CAST_11)
    await to_night_two(game)  # 7 was bitten, 9 executed: night 2
    spectator_token, spectator, spectator_screen = await watch(game, None)
    villager_token, villager, villager_screen = await watch(game, 10)
    before = await db(api_ids)(game.village_id, spectator_token)
    public_only(before)

    # Night 2: villagers 8 and 10 talk to themselves, the dead in heaven; wolf 1 talks
    # (a howl to everyone else: a public line); then 10 once more.
    await db(game.talk)(8, "八のひとりごと")
    await db(game.talk)(7, "天国から一言", "heaven")
    await db(game.talk)(9, "天国からもう一言", "heaven")
    await db(game.talk)(10, "十のひとりごと")
    assert await spectator.quiet(0.5) == []  # the others' lines bring it nothing
    await db(game.talk)(1, "今夜は誰にする")
    await db(game.talk)(8, "八のひとりごと二")
    await db(game.talk)(10, "十のひとりごと二")
    await db(game.talk)(7, "天国から三言", "heaven")
    await db(game.act)(4, "guard", 3)
    await db(game.act)(3, "divine", 2)
    await db(game.act)(1, "attack", 11)  # the dawn: public lines again
    await spectator.until("dawn")
    await villager.until("dawn")
    await asyncio.sleep(0.3)
    for socket in (spectator, villager):
        await socket.quiet(0.3)
    for screen in (spectator_screen, villager_screen):
        await screen.read(0.3)

    public = await db(
        Message.objects.filter(village_id=game.village_id)
        .exclude(kind__in=("monologue", "heaven"))
        .count
    )()

    # The spectator: the API, the socket and the screen give the same gapless numbers.
    ids = await db(api_ids)(game.village_id, spectator_token)
    public_only(ids)
    assert len(ids) == public and ids[: len(before)] == before
    pushed = [m["id"] for m in spectator.messages()]
    assert pushed and pushed == ids[len(before) :]
    assert sorted(spectator_screen.lines) == ids  # the log it opened with, and the pushes
    assert {m["kind"] for m in spectator.messages()} <= {"system", "wolf_howl"}

    # The living villager: the public numbers, and its own monologues between them (1, 2),
    # nothing of 8's monologues or of heaven.
    ids = await db(api_ids)(game.village_id, villager_token)
    gapless(ids, public)
    mine = [n for n in ids if n % SPAN]
    assert len(mine) == 2 and all(n % SPAN == 1 for n in mine)  # one in each of two gaps
    texts = [m["text"] for m in villager.messages()]
    assert "十のひとりごと" in texts and "八のひとりごと" not in texts
    assert [m["id"] for m in villager.messages()] == [n for n in ids if n > before[-1]]
    assert sorted(villager_screen.lines) == ids

    # The dead (roles open in heaven) see everything, numbered in the same way.
    dead = await db(api_ids)(game.village_id, await db(game.token)(7))
    gapless(dead, public)
    assert len(dead) > len(ids)

    # `after` is a number too: from the first gap, the villager gets the rest exactly.
    first_own = mine[0]
    rest = await db(api_ids)(game.village_id, villager_token, first_own)
    assert rest == [n for n in ids if n > first_own]
    rest = await db(api_ids)(game.village_id, villager_token, first_own - 1)
    assert rest == [n for n in ids if n >= first_own]

    # A socket resuming at a number gets the lines after it, in order.
    late = await open_socket(game.village_id, token=villager_token, release=False)
    await late.send({"type": "resume", "after": first_own})
    frames = await late.until_state()
    assert [f["message"]["id"] for f in frames if f["type"] == "message"] == rest[1:]

    # The pages: every line id and the pane's cursor are the viewer's numbers.
    html = await db(lower_pane)(game.village_id, game.user(10))
    assert sorted(int(n) for n in _IDS.findall(html)) == ids
    assert {int(n) for n in _LAST.findall(html)} == {ids[-1]}
    html = await db(lower_pane)(game.village_id, await db(make_user)())
    assert sorted(int(n) for n in _IDS.findall(html)) == [n for n in ids if n % SPAN == 0]

    for socket in (spectator, villager, late, spectator_screen.socket, villager_screen.socket):
        await socket.close()


def test_the_migration_numbers_existing_lines_as_the_services_do():
    """Migration 0013 counts the lines of a village posted before it existed."""
    import importlib

    from django.apps import apps

    from villages.models import Village

    game = started_village(CAST_11)
    game.talk(8, "ひとりごと")
    game.talk(1, "遠吠え")
    game.talk(10, "もうひとつ")
    lines = Message.objects.filter(village_id=game.village_id)
    posted = list(lines.order_by("id").values_list("public_no", flat=True))
    counted = Village.objects.get(pk=game.village_id).public_lines
    assert counted == posted[-1] and len(set(posted)) < len(posted)  # some lines kept apart
    lines.update(public_no=0)
    Village.objects.filter(pk=game.village_id).update(public_lines=0)

    importlib.import_module("villages.migrations.0013_line_numbers").count_lines(apps, None)

    assert list(lines.order_by("id").values_list("public_no", flat=True)) == posted
    assert Village.objects.get(pk=game.village_id).public_lines == counted


def test_a_process_carries_a_villages_hidden_lines_on_from_commit_to_commit(monkeypatch):
    """Numbering a pushed line needs the village's lines kept from spectators. A process
    that commits them, or follows them for its sockets (villages.fanout), carries them on
    (line_numbers.HIDDEN.advance): it reads them once, not once a commit (that read was
    most of a push's cost with 21 screens)."""
    from jinro_site import livebus
    from villages import line_numbers

    reads, pushed = [], []
    real = line_numbers._read
    monkeypatch.setattr(line_numbers, "_read", lambda *a, **kw: reads.append(kw) or real(*a, **kw))
    monkeypatch.setattr(livebus, "publish", lambda *sent: pushed.append(sent))
    game = started_village()  # night 1: a villager's talk is a monologue, a wolf's is heard
    for n in range(3):
        game.talk(4 + n, f"独り言{n}")
        game.talk(1, f"遠吠え{n}")
    to_day_two(game)
    line_numbers.HIDDEN.clear()  # as in a process that has not met this village yet
    game.talk(5, "おはよう")
    reads.clear(), pushed.clear()  # the first commit that needs them reads what came before
    for n in range(6):
        game.talk(5 + n % 3, f"昼の発言{n}")
    assert reads == [] and len(pushed) == 6
    village = Village.objects.get(pk=game.village_id)
    kept = line_numbers.HIDDEN.upto(village)
    assert reads == []  # and what it carried is what the database holds:
    assert kept == real(game.village_id, after=0, upto=village.last_line)
    assert len(kept) == 3  # the monologues (a howl is heard by all)


def test_lines_followed_part_of_the_way_already_are_carried_on_once_and_without_reading(
    monkeypatch,
):
    """A socket process's hub numbers lines on its event loop, where nothing may read the
    database (villages.consumers.following.follow_unread): it does so only when the
    process holds the village's hidden rows (`covers`). A request of the same process may
    have carried them on to a commit the hub then follows with the next one: the rows go
    on to the last commit, none twice, with no read. The village used longest ago is the
    one dropped."""
    from types import SimpleNamespace

    from villages import line_numbers

    reads = []
    monkeypatch.setattr(line_numbers, "_read", lambda *a, **kw: reads.append(kw) or [])
    rows = line_numbers._HiddenRows(size=2)

    def village(last: int, pk: int = 1) -> SimpleNamespace:
        return SimpleNamespace(pk=pk, seed=7, last_line=last, public_lines=0)

    def monologue(pk: int) -> SimpleNamespace:
        return SimpleNamespace(pk=pk, kind="monologue", seat_no=3, public=False, public_no=0)

    assert not rows.covers(village(10))
    rows.upto(village(10))
    assert reads == [{"after": 0, "upto": 10}] and rows.covers(village(10))
    assert not rows.covers(village(11))
    rows.advance(village(10), village(11), [monologue(11)])  # a request's commit
    rows.advance(village(10), village(12), [monologue(11), monologue(12)])  # the hub's two
    assert rows.covers(village(12))
    assert [row[0] for row in rows.upto(village(12))] == [11, 12]
    assert len(reads) == 1
    rows.upto(village(0, pk=2))
    rows.upto(village(12))  # used again: village 2 is now the one used longest ago
    rows.upto(village(0, pk=3))
    assert rows.covers(village(12)) and not rows.covers(village(0, pk=2))
