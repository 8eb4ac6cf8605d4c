"""The past log's toggles (issue 12): order, heaven talk, the spectator's eye, one player,
one day; permalinks; lines, deaths and votes in time order in every view."""

from __future__ import annotations

import itertools
import re

import pytest
from django.test import Client

from villages.line_numbers import SPAN
from villages.models import Message
from villages.services import play

from .conftest import started_village, to_day_two

ORDERS = ("", "new")


@pytest.fixture
def finished(db):
    """8 dies night 1 and talks in heaven on day 2; 1 is executed day 2, 7 attacked night 2,
    2 executed day 3: the village wins."""
    game = started_village()
    to_day_two(game)
    play.post_message(village_id=game.id, user=game.user(8), text="HEAVEN-LINE", channel="heaven")
    play.post_message(village_id=game.id, user=game.user(5), text="DAY-TWO-FIVE")
    for voter in (2, 3, 4, 5, 6, 7):
        play.vote(village_id=game.id, user=game.user(voter), target=1)
    play.vote(village_id=game.id, user=game.user(1), target=3)
    play.post_message(village_id=game.id, user=game.user(2), text="WOLF-NIGHT-TWO")
    play.night_action(village_id=game.id, user=game.user(2), action="attack", targets=[7])
    play.night_action(village_id=game.id, user=game.user(3), action="divine", targets=[2])
    play.post_message(village_id=game.id, user=game.user(5), text="DAY-THREE-FIVE")
    for voter in (3, 4, 5, 6):
        play.vote(village_id=game.id, user=game.user(voter), target=2)
    play.vote(village_id=game.id, user=game.user(2), target=3)
    game.village.refresh_from_db()
    assert game.village.status == "ended"
    return game


def page(game, query: str = "") -> str:
    response = Client().get(f"/villages/{game.id}/log/{query}")
    assert response.status_code == 200
    return response.content.decode()


def line_ids(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<div class="msg [^"]*" id="m(\d+)"', html)]


def deaths(html: str) -> list[str]:
    block = re.search(r'<ol class="deaths">(.*?)</ol>', html, flags=re.DOTALL)
    return re.findall(r"<li>(\S+) ", block[1]) if block else []


def test_every_view_keeps_time_order_and_gives_each_line_its_permalink(finished):
    names = {n: f"村人{n}号" for n in range(1, 9)}
    for order, heaven, roles, day in itertools.product(ORDERS, "10", "10", ("", "2", "3")):
        query = "?" + "&".join(
            f"{k}={v}"
            for k, v in (("order", order), ("heaven", heaven), ("roles", roles), ("day", day))
            if v and not (k in ("heaven", "roles") and v == "1")
        )
        html = page(finished, query)
        ids = line_ids(html)
        assert ids, query
        expected = sorted(ids, reverse=order == "new")
        assert ids == expected, f"{query}: lines out of time order"
        died = deaths(html)
        all_deaths = [names[8], names[1], names[7], names[2]]
        if day == "2":
            all_deaths = [names[1], names[7]]
        elif day == "3":
            all_deaths = [names[2]]
        assert died == (all_deaths[::-1] if order == "new" else all_deaths), query
    one = Message.objects.filter(village_id=finished.id, text="DAY-TWO-FIVE").get()
    assert f'id="m{one.public_no * SPAN}"' in page(finished)


def test_heaven_talk_can_be_hidden(finished):
    assert "HEAVEN-LINE" in page(finished)
    assert "HEAVEN-LINE" not in page(finished, "?heaven=0")
    assert "DAY-TWO-FIVE" in page(finished, "?heaven=0")


def test_the_spectators_eye_reads_the_game_as_it_was_played(finished):
    revealed = page(finished)
    assert "WOLF-NIGHT-TWO" in revealed and "占い師" in revealed
    puzzle = page(finished, "?roles=0")
    assert "WOLF-NIGHT-TWO" not in puzzle and "HEAVEN-LINE" not in puzzle
    assert "アオォーン" in puzzle, "the wolves' talk is a howl, as a spectator heard it"
    assert "DAY-TWO-FIVE" in puzzle
    assert 'class="prole"' not in puzzle and "村人の勝利" not in puzzle


def test_one_players_lines_only(finished):
    html = page(finished, "?player=5")
    assert "DAY-TWO-FIVE" in html and "DAY-THREE-FIVE" in html
    assert "WOLF-NIGHT-TWO" not in html and "HEAVEN-LINE" not in html
    speakers = set(re.findall(r'<span class="who">(?:<img[^>]*>)?([^<]*)</span>', html))
    assert speakers == {"村人5号"}
    assert line_ids(page(finished, "?player=99")) == line_ids(page(finished)), "unknown: all"


def test_toggle_links_keep_the_other_toggles(finished):
    html = page(finished, "?order=new&day=2")
    assert 'href="?order=new&amp;heaven=0&amp;day=2"' in html
    assert 'href="?day=2"' in html  # back to oldest first, still day 2
    assert 'href="?order=new"' in html  # all days, still newest first


def test_before_the_end_there_is_no_spectators_eye(db):
    game = started_village()
    to_day_two(game)
    html = page(game, "?roles=0")
    assert "見物人の目" not in html
    assert "WOLF-SECRET-PLAN" not in html, "a spectator never read the wolves' talk"


def test_the_logs_tally_gives_each_voters_received_votes_as_the_screen_does(finished):
    """SPEC §5: the tally shows each player's total; the past log and its export showed
    only "voter → target". Day 2: six voted for 村人1号, who voted for 村人3号."""
    for html in (
        page(finished, "?day=2"),
        Client().get(f"/villages/{finished.id}/log/export.html").content.decode(),
    ):
        row = re.search(r"<tr><td>村人1号</td>(.*?)</tr>", html, flags=re.DOTALL)
        assert row and "6票" in row[1] and "村人3号" in row[1], html[:200]
        row = re.search(r"<tr><td>村人3号</td>(.*?)</tr>", html, flags=re.DOTALL)
        assert row and "1票" in row[1] and "村人1号" in row[1]


def test_the_dead_are_listed_in_the_order_they_died() -> None:
    """A sudden death comes before the same day's execution (it was listed by seat number,
    so the executed seat 2 came before seat 6, who had died first); the night after its
    day; deaths whose cause the viewer may not know go by seat number alone."""
    from villages.screenview import deaths_in_order

    def dead(no: int, day: int, phase: str, cause: str | None) -> dict[str, object]:
        return {
            "seat_no": no,
            "handle_name": f"p{no}",
            "alive": False,
            "death_day": day,
            "death_phase": phase,
            "death_cause": cause,
        }

    seats = [
        dead(2, 3, "day", "executed"),
        dead(6, 3, "day", "sudden"),
        dead(1, 2, "night", "attacked"),
        dead(5, 2, "day", "lovers"),
        dead(7, 2, "day", "executed"),
        {"seat_no": 3, "handle_name": "p3", "alive": True, "death_day": None},
    ]
    assert [d["name"] for d in deaths_in_order(seats)] == ["p7", "p5", "p1", "p6", "p2"]
    unknown = [dict(s, death_cause=None) for s in seats]
    assert [d["name"] for d in deaths_in_order(unknown)] == ["p5", "p7", "p1", "p2", "p6"]
