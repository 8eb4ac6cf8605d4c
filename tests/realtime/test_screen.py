"""The game screen's socket (`?screen=1`): ready HTML, only what changed for its viewer,
live through everything the staff and the rules do to it."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async as db

from accounts.models import Ban
from villages.consumers import api as api_socket
from villages.consumers import screen as screen_socket
from villages.consumers.base import CLOSE_BANNED
from villages.services import lifecycle, moderation

from .game import (
    SEER,
    Game,
    icon_id,
    make_user,
    number,
    started_village,
    to_day_two,
    token_of,
    waiting_village,
)
from .sockets import Screen, connect, open_screen, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(60)]


async def day_two() -> Game:
    game = await db(started_village)()
    await db(to_day_two)(game, victim=4)
    return game


async def test_the_first_frame_draws_the_screen_and_a_line_comes_ready_with_its_speaker():
    game = await db(waiting_village)(3, capacity=8)
    screen = await open_screen(game.village_id, token=await db(game.token)(1))
    for part in ("d-head", "d-time", "d-players", "u-actions", "u-talk", "screen-mode"):
        assert part in screen.parts, part
    assert "p1" in screen.parts["d-players"]

    late = await db(make_user)("latecomer")
    await db(lifecycle.sit)(
        village_id=game.village_id,
        user=late,
        handle_name="遅れて来た人",
        icon_id=await db(icon_id)(),
    )
    await screen.read()
    assert "遅れて来た人" in screen.parts["d-players"]  # the list came whole: a seat was added
    await db(lifecycle.vote_start)(village_id=game.village_id, user=late)
    from villages.services import play

    await db(play.post_message)(village_id=game.village_id, user=late, text="はじめまして")
    await screen.read()
    (line,) = [html for html in screen.lines.values() if "はじめまして" in html]
    assert "遅れて来た人" in line and '<img class="ic"' in line
    await screen.close()


async def test_a_line_of_the_day_changes_the_clock_and_the_log_and_nothing_else():
    game = await day_two()
    screen = await open_screen(game.village_id, token=await db(game.token)(5))
    first = screen.frames
    await db(game.talk)(6, "おはよう")
    frame = await screen.next()
    assert [p[0] for p in frame.get("parts", [])] == ["d-time"]
    assert len(frame["lines"]) == 1 and "おはよう" in frame["lines"][0][3]
    assert screen.frames == first + 1
    await screen.close()


async def test_a_hidden_line_leaves_every_screen_that_showed_it_and_comes_back_when_shown():
    game = await day_two()
    line = await db(game.talk)(6, "不適切な発言")
    secret = await db(game.talk)(4, "霊界のないしょ", "heaven")  # the living never saw it
    villager = await open_screen(game.village_id, token=await db(game.token)(5))
    spectator = await open_screen(game.village_id)
    json_socket = await open_socket(game.village_id, token=await db(game.token)(5))
    seen_as = number(line)
    assert seen_as in villager.lines and seen_as in spectator.lines

    await db(moderation.set_hidden)([line.pk, secret.pk], hidden=True)
    for screen in (villager, spectator):
        frame = await screen.next()
        assert frame["hide"] == [seen_as], frame  # only what this viewer could see
        assert seen_as not in screen.lines
    assert [f for f in await json_socket.quiet() if f["type"] == "hidden"] == [
        {"type": "hidden", "id": seen_as}
    ]

    await db(moderation.set_hidden)([line.pk], hidden=False)
    frame = await villager.next()
    assert [r[0] for r in frame["restore"]] == [seen_as] and "不適切な発言" in frame["restore"][0][
        3
    ]
    (shown,) = [f for f in await json_socket.quiet() if f["type"] == "shown"]
    assert shown["message"]["text"] == "不適切な発言"
    for socket in (villager, spectator, json_socket):
        await socket.close()


async def test_a_kicked_user_is_told_at_once():
    game = await db(waiting_village)(4, capacity=8)
    screen = await open_screen(game.village_id, token=await db(game.token)(3))
    assert "村を出る" in screen.parts["u-actions"]
    await db(lifecycle.kick_vote)(village_id=game.village_id, user=game.staff, target=3)
    await screen.read(0.5)
    assert "この村から退出させられました" in screen.parts["u-actions"]
    assert "p3" not in screen.parts["d-players"]
    await screen.close()


async def test_a_ban_reaches_the_users_open_screens_at_once():
    game = await day_two()
    user = game.user(5)
    screen = await open_screen(game.village_id, token=await db(game.token)(5))
    json_socket = await open_socket(game.village_id, token=await db(game.token)(5))

    def ban(kind: str) -> None:
        from django.db import transaction

        from villages.services.push import publish_user

        with transaction.atomic():
            Ban.objects.create(user=user, kind=kind, reason="暴言", until=None)
            transaction.on_commit(lambda: publish_user(user.pk))

    await db(ban)("talk")
    await screen.read(0.5)
    notice = screen.parts["u-actions"]
    assert "発言" in notice and "暴言" in notice and "無期限" in notice
    (error,) = [f for f in await json_socket.quiet() if f["type"] == "error"]
    assert error["error"]["code"] == "banned" and "暴言" in error["error"]["message"]

    await db(ban)("login")
    closed = await json_socket.communicator.receive_output(timeout=5)
    while closed["type"] != "websocket.close":
        closed = await json_socket.communicator.receive_output(timeout=5)
    assert closed["code"] == CLOSE_BANNED
    await screen.close()

    # A new socket with the banned user's token is told why, and closed.
    socket = await connect(f"/ws/villages/{game.village_id}/?token={await db(game.token)(5)}", None)
    frame = await socket.communicator.receive_json_from(timeout=5)
    assert frame["type"] == "error" and frame["error"]["code"] == "banned"
    assert "暴言" in frame["error"]["message"] and "ログイン" in frame["error"]["message"]
    closed = await socket.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": CLOSE_BANNED}


async def test_a_screen_that_comes_back_gets_only_what_changed_and_what_it_missed():
    game = await day_two()
    token = await db(game.token)(5)
    screen = await open_screen(game.village_id, token=token)
    seen = await db(game.talk)(6, "一")
    await screen.read()
    shown = {k: consumers_digest(v) for k, v in screen.parts.items()}
    await screen.close()

    await db(game.talk)(7, "二")  # while away: the clock and one line
    again = await open_screen_raw(game.village_id, token)
    hello = {"type": "hello", "after": number(seen), "parts": shown, "marks": "0", "lang": "ja"}
    await again.socket.send(hello)
    frame = await again.next()
    assert sorted(p[0] for p in frame["parts"]) == ["d-time"]
    assert [("二" in line[3]) for line in frame["lines"]] == [True]
    await again.close()


async def test_a_socket_that_missed_nothing_reads_nothing_across_lines_it_may_not_see(monkeypatch):
    game = await db(started_village)()
    screen = await open_screen(game.village_id, token=await db(game.token)(5))
    json_socket = await open_socket(game.village_id, token=await db(game.token)(5))
    reads = []
    for module, name in ((api_socket, "read_snapshot"), (screen_socket, "read_screen")):
        original = getattr(module, name)

        def counting(*args, original=original, **kwargs):
            reads.append(original)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
    await db(game.talk)(4, "ひとりごと")  # a monologue: seat 5 never sees it
    await db(game.talk)(5, "わたしもひとりごと")
    await db(game.talk)(1, "がおー")  # a wolf: seat 5 hears a howl
    await screen.read()
    await json_socket.quiet()
    assert reads == [], "a push after lines the viewer may not see looked like a gap"
    assert any("アオォーン" in html for html in screen.lines.values())
    assert not any("ひとりごと" in html and "わたし" not in html for html in screen.lines.values())
    await screen.close()
    await json_socket.close()


def consumers_digest(html: str) -> str:
    from villages.views.parts import digest

    return digest(html)


async def open_screen_raw(village_id: int, token: str | None) -> Screen:
    """A screen socket that has not said what it shows yet."""
    path = f"/ws/villages/{village_id}/?screen=1" + (f"&token={token}" if token else "")
    return Screen(await connect(path, None))


async def test_a_renamed_village_reaches_open_screens_and_stays_renamed():
    game = await day_two()
    screen = await open_screen(game.village_id, token=await db(game.token)(5))
    await db(moderation.edit_village)(village_id=game.village_id, name="改名後の村", comment="")
    frame = await screen.next()
    assert "改名後の村" in screen.parts["d-head"], frame
    await db(game.talk)(6, "おはよう")  # a command that moves only the clock
    await screen.read()
    fresh = await open_screen(game.village_id, token=await db(game.token)(6))
    assert "改名後の村" in fresh.parts["d-head"]
    for socket in (screen, fresh):
        await socket.close()


async def test_hiding_a_line_a_viewer_could_not_see_tells_that_viewer_nothing():
    game = await day_two()
    secret = await db(game.talk)(4, "霊界のないしょ", "heaven")  # seat 4 is dead
    spectator = await open_screen(game.village_id)
    shown = {k: consumers_digest(v) for k, v in spectator.parts.items()}
    last = max(spectator.lines)
    marks = await db(_marks)(game.village_id)
    await spectator.close()

    await db(moderation.set_hidden)([secret.pk], hidden=True)
    after = await db(_marks)(game.village_id)
    assert after[None] == marks[None] and after[5] == marks[5]  # the living, a spectator
    assert after[4] != marks[4]  # the dead saw it go
    again = await open_screen_raw(game.village_id, None)
    await again.socket.send(
        {"type": "hello", "after": last, "parts": shown, "marks": marks[None], "lang": "ja"}
    )
    assert await again.read(1.0) == []  # no log drawn again: nothing it may see changed
    await again.close()


def _marks(village_id: int) -> dict[int | None, str]:
    from villages.selectors import log_marks
    from villages.snapshots import snapshot_of

    loaded = snapshot_of(village_id)
    assert loaded is not None
    return {viewer: log_marks(loaded, viewer) for viewer in (None, 4, 5)}


async def test_a_spectators_screen_never_carries_a_role_or_a_hidden_line_before_the_end():
    game = await db(started_village)()
    outsider = await db(make_user)()
    screen = await open_screen(game.village_id, token=await db(token_of)(outsider))
    await db(game.talk)(1, "SECRET-PLAN")
    await db(game.act)(1, "attack", 4)
    await db(game.act)(SEER, "divine", 5)
    await screen.read()
    assert "SECRET-PLAN" not in screen.text()
    assert 'class="prole"' not in screen.parts["d-players"]  # no role beside any name
    assert screen.parts["d-me"].count("my-role") == 0
    assert any("朝" in html for html in screen.lines.values())  # the dawn came
    await screen.close()


async def test_a_socket_whose_pushes_fail_closes_so_that_its_client_comes_back(monkeypatch):
    game = await day_two()
    screen = await open_screen(game.village_id, token=await db(game.token)(5))

    async def broken(self, envelope):
        raise RuntimeError("a template broke")

    monkeypatch.setattr(screen_socket.ScreenSocket, "place", broken)
    await db(game.talk)(6, "おはよう")
    closed = await screen.socket.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 1011}


async def test_a_push_that_fails_leaves_the_saved_line_saved(monkeypatch, caplog):
    from villages.models import Message
    from villages.services import push

    game = await day_two()

    def broken(*args, **kwargs):
        raise RuntimeError("the push broke")

    monkeypatch.setattr(push, "publish", broken)
    line = await db(game.talk)(6, "残る発言")  # no error reaches the player
    assert line is not None
    assert await db(Message.objects.filter(pk=line.pk, text="残る発言").exists)()
    assert "the push broke" in caplog.text


async def test_a_frame_too_big_for_a_websocket_message_makes_the_page_load_itself_anew(
    monkeypatch,
):
    """daphne refuses to send a message past its size limit (1 MiB): the frame would fail
    the socket, and the page would try again and again. The page is told instead to load
    itself over HTTP, and its socket stays open."""
    game = await day_two()
    screen = await open_screen(game.village_id, token=await db(game.token)(5))
    monkeypatch.setattr(screen_socket, "MAX_FRAME_BYTES", 2_000)  # a line of this test's
    await db(game.talk)(6, "長い発言です。" * 200)  # 1,400 characters: past 2,000 bytes
    assert await screen.socket.receive() == {"type": "screen", "reload": True}
    await db(game.talk)(6, "短い")
    frame = await screen.next()
    assert "短い" in frame["lines"][0][3]
    await screen.close()
