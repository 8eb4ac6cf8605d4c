"""Conditional polls (issue 40): the panes and the top page answer a repeat read 304 while
what its viewer sees is unchanged, and a 200 with the new page once it changed; a change
the viewer may not see tells it nothing; two viewers who see a page differently never get
each other's page, nor a 304 on each other's ETag."""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client

from villages.services import lifecycle, play
from villages.views.polls import KEPT

from .conftest import (
    CAST8,
    Game,
    act,
    make_users,
    play_to_end,
    started_village,
    to_day_two,
    waiting_village,
)

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*"')


def down(game: Game) -> str:
    return f"/villages/{game.id}/down/"


def poll(client: Client, url: str, etag: str):
    return client.get(url, HTTP_IF_NONE_MATCH=etag)


def same_page(html: str) -> str:
    """A page less its CSRF tokens (masked anew for every answer)."""
    return TOKEN.sub(r'\1"', html)


def test_an_unchanged_pane_or_top_page_answers_its_viewer_304(day_two):
    for seat, path in [
        (4, down(day_two)),
        (4, f"/villages/{day_two.id}/up/"),
        (8, f"/villages/{day_two.id}/heaven/"),  # bitten on night 1
        (None, down(day_two)),
        (None, "/"),
        (4, "/"),
    ]:
        client = day_two.client(seat)
        client.get(path)  # the CSRF cookie, as a browser has it after its first page
        first = client.get(path)
        assert first.status_code == 200
        assert first.headers["Cache-Control"] == "private, no-cache", path
        etag = first.headers["ETag"]
        again = poll(client, path, etag)
        assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", etag)
        assert (
            "private" in again.headers["Cache-Control"]
            and "no-cache" in again.headers["Cache-Control"]
        )
        assert poll(client, path, '"another"').status_code == 200


def test_a_new_line_makes_the_next_poll_a_200_with_it(day_two):
    villager, spectator = day_two.client(4), Client()
    tags = {c: c.get(down(day_two)).headers["ETag"] for c in (villager, spectator)}
    play.post_message(village_id=day_two.id, user=day_two.user(5), text="NEW-DAY-LINE")
    for client, etag in tags.items():
        answer = poll(client, down(day_two), etag)
        assert answer.status_code == 200 and "NEW-DAY-LINE" in answer.content.decode()
        assert answer.headers["ETag"] != etag
        assert poll(client, down(day_two), answer.headers["ETag"]).status_code == 304


def test_a_change_a_viewer_may_not_see_leaves_its_page_and_etag_as_they_were():
    game = started_village()  # night 1
    seer, villager, spectator = game.client(3), game.client(4), Client()
    before = {c: c.get(down(game)) for c in (villager, spectator)}
    up = f"/villages/{game.id}/up/"
    seers = seer.get(up)
    act(game, 3, "divine", 1)  # the seer's choice: a new version, seen by the seer alone
    play.post_message(village_id=game.id, user=game.user(5), text="MONOLOGUE-OF-FIVE")
    for client in (villager, spectator):
        etag = before[client].headers["ETag"]
        assert poll(client, down(game), etag).status_code == 304
        again = client.get(down(game))
        assert again.headers["ETag"] == etag  # the ETag tells nothing either
        assert same_page(again.content.decode()) == same_page(before[client].content.decode())
    assert poll(seer, up, seers.headers["ETag"]).status_code == 200  # its action done
    monologue = poll(game.client(5), down(game), before[villager].headers["ETag"])
    assert "MONOLOGUE-OF-FIVE" in monologue.content.decode()


def test_a_death_gives_the_dead_the_wider_view_at_its_next_poll():
    game = started_village()
    play.post_message(village_id=game.id, user=game.user(1), text="WOLF-NIGHT-ONE")
    bitten, living = game.client(8), game.client(7)
    tags = {}
    for client in (bitten, living):
        first = client.get(down(game))
        assert "WOLF-NIGHT-ONE" not in first.content.decode()
        tags[client] = first.headers["ETag"]
    to_day_two(game)  # the wolves bite seat 8: the dead see everything
    dead = poll(bitten, down(game), tags[bitten])
    assert dead.status_code == 200 and "WOLF-NIGHT-ONE" in dead.content.decode()
    alive = poll(living, down(game), tags[living])
    assert alive.status_code == 200 and "WOLF-NIGHT-ONE" not in alive.content.decode()
    heaven = bitten.get(f"/villages/{game.id}/heaven/")
    play.post_message(village_id=game.id, user=game.user(8), text="FROM-HEAVEN", channel="heaven")
    later = poll(bitten, f"/villages/{game.id}/heaven/", heaven.headers["ETag"])
    assert later.status_code == 200 and "FROM-HEAVEN" in later.content.decode()


def test_the_end_reveals_everything_at_every_viewers_next_poll():
    game = started_village()
    viewers = {seat: game.client(seat) for seat in (None, 1, 4, 8)}
    tags = {seat: c.get(down(game)).headers["ETag"] for seat, c in viewers.items()}
    play_to_end(game)
    for seat, client in viewers.items():
        answer = poll(client, down(game), tags[seat])
        html = answer.content.decode()
        assert answer.status_code == 200, seat
        assert "村人の勝利" in html and "WOLF-SECRET-PLAN" in html, seat
        assert "role-wolf" in html and "role-seer" in html, seat


def test_a_wolf_and_a_villager_at_night_never_share_a_page_or_an_etag():
    game = started_village()
    play.post_message(village_id=game.id, user=game.user(1), text="WOLF-SECRET-PLAN")
    # Seat 2, not 1: seat 1 made the village, and its host's standing differs anyway.
    wolf, villager, spectator = game.client(2), game.client(4), Client()
    secret = wolf.get(down(game))  # drawn first, at the same version
    assert "WOLF-SECRET-PLAN" in secret.content.decode()
    for other in (villager, spectator):
        answer = poll(other, down(game), secret.headers["ETag"])
        assert answer.status_code == 200
        assert "WOLF-SECRET-PLAN" not in answer.content.decode()
        assert answer.headers["ETag"] != secret.headers["ETag"]


def test_a_spectator_and_a_player_never_share_a_page_or_an_etag(day_two):
    day = day_two
    spectator, player = Client(), day.client(4)
    spectator.force_login(make_users(1, prefix="watcher")[0])  # logged in, as the player
    seen = spectator.get(down(day))
    mine = player.get(down(day))
    assert poll(player, down(day), seen.headers["ETag"]).status_code == 200
    assert poll(spectator, down(day), mine.headers["ETag"]).status_code == 200
    assert "MONOLOGUE-OF-FOUR" in mine.content.decode()
    assert "MONOLOGUE-OF-FOUR" not in seen.content.decode()


def test_a_pane_is_drawn_once_for_everyone_who_sees_it_alike(day_two):
    KEPT.clear()
    pages = [Client().get(down(day_two)) for _ in range(3)]
    assert len({same_page(p.content.decode()) for p in pages}) == 1
    assert len(KEPT.data) == 1  # one drawing for the three spectators
    day_two.client(4).get(down(day_two))
    day_two.client(5).get(down(day_two))
    assert len(KEPT.data) == 3  # and one for each player


def test_the_upper_pane_after_a_post_is_a_new_page_with_a_fresh_form_key(day_two):
    """A 304 leaves the browser the page it has: never one whose form key was used."""
    client, url = day_two.client(4), f"/villages/{day_two.id}/up/"
    client.get(url)
    page = client.get(url)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page.content.decode())[1]
    assert poll(client, url, page.headers["ETag"]).status_code == 304
    sent = client.post(url, {"text": "一言目", "mode": "normal", "idempotency_key": key})
    assert sent.status_code == 302
    after = poll(client, url, page.headers["ETag"])
    assert after.status_code == 200
    fresh = re.search(r'name="idempotency_key" value="([^"]+)"', after.content.decode())[1]
    assert fresh != key
    client.post(url, {"text": "二言目", "mode": "normal", "idempotency_key": fresh})
    lines = client.get(down(day_two)).content.decode()
    assert "一言目" in lines and "二言目" in lines


def test_the_top_page_answers_304_until_a_village_is_made(db):
    visitor = Client()
    visitor.get("/")
    first = visitor.get("/")
    assert poll(visitor, "/", first.headers["ETag"]).status_code == 304
    maker = make_users(1, prefix="maker")[0]
    lifecycle.create_village(user=maker, name="新しい村ができた", capacity=8)
    answer = poll(visitor, "/", first.headers["ETag"])
    assert answer.status_code == 200 and "新しい村ができた" in answer.content.decode()
    assert poll(visitor, "/", answer.headers["ETag"]).status_code == 304


def test_the_pages_kept_are_bounded_by_their_size_oldest_first():
    from villages.lru import LRU

    kept: LRU[str, str] = LRU(10, weigh=len)
    kept.put("a", "12345")
    kept.put("b", "1234")
    assert kept.get("a") == "12345"  # now the newest used
    kept.put("c", "123")
    assert (kept.get("b"), kept.get("a"), kept.get("c"), kept.weight) == (None, "12345", "123", 8)
    kept.put("huge", "x" * 50)  # kept alone, whatever it weighs
    assert list(kept.data) == ["huge"] and kept.weight == 50


def test_a_real_time_pane_without_script_is_never_left_with_a_stale_virtual_clock(db):
    """In real time the lower pane draws the virtual clock as it stands (for a page
    without script): time passing changes what the viewer sees, though no write did."""
    game = waiting_village(time={"mode": "realtime", "day_seconds": 600, "night_seconds": 300})
    lifecycle.fix_cast(village_id=game.id, user=game.staff, roles=CAST8, sub_roles={})
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    to_day_two(game)
    client = game.client(4)
    first = client.get(down(game))
    clock = re.compile(r'<span class="vclock"[^>]*>([^<]*)</span>')
    time.sleep(1.0)  # 12 virtual hours in 600 s: a virtual minute is 0.83 s
    answer = poll(client, down(game), first.headers["ETag"])
    assert answer.status_code == 200
    before = clock.search(first.content.decode())[1]
    assert clock.search(answer.content.decode())[1] != before


def test_an_unchanged_poll_of_a_player_reads_its_viewer_and_the_version_only(day_two):
    """What an unchanged poll costs a logged-in player: its session's user with the
    user's profile (its bans and screen preferences), and the village's version; nothing
    of the village's lines, seats or state."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.services import profile_of

    client = day_two.client(4)
    profile_of(day_two.users[3])  # seat 4: made as logging in makes it
    client.get(down(day_two))
    etag = client.get(down(day_two)).headers["ETag"]
    with CaptureQueriesContext(connection) as queries:
        assert poll(client, down(day_two), etag).status_code == 304
    read = [re.search(r'FROM "(\w+)"', q["sql"])[1] for q in queries.captured_queries]
    assert len(read) <= 3
    assert set(read) == {"accounts_profile", "auth_user", "villages_village"}
    assert 'SELECT version, seed, created_at FROM "villages_village"' in (
        queries.captured_queries[-1]["sql"]
    )
