"""A practice village in a real browser: one person and seven bots play to the end.

The person creates the village with seven bot seats from the create form, sits, and plays
through the pages; the bots look on the site's sweep (with Redis, where Celery beat is the
clock, this test sweeps: the `sweeping` fixture).
"""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from villages.engine import game as engine
from villages.models import Message, Seat, Village
from villages.services import lifecycle

from .players import PASSWORD, Player
from .test_game_screen import start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

CAST = {1: "wolf", 2: "wolf", 3: "seer", 4: "villager", 5: "villager", 6: "villager"}
CAST |= {7: "villager", 8: "villager"}  # the person takes seat 8, a villager


def my_vote_owed(village_id: int, user_id: int) -> bool:
    """The engine's view: the person may vote now and has not."""
    from villages.selectors import state_dict, view_for

    me = state_dict(view_for(village_id, user_id))["me"]
    return bool(me and me["alive"] and me["vote"] is None)


def test_one_person_and_seven_bots_play_a_practice_village_to_the_end(
    site, contexts, shot, sweeping
):
    get_user_model().objects.create_user("learner", password=PASSWORD)
    staff = get_user_model().objects.create_user("staff", password=PASSWORD, is_staff=True)
    me = Player(site, contexts(), "learner")
    me.login()
    page = me.page
    page.goto(f"{site}/villages/new/")
    page.fill("#id_name", "はじめての練習村")
    page.select_option("#id_capacity", "8")
    page.fill("#id_bots", "7")
    page.click("#create-form button[type=submit]")
    page.wait_for_url(re.compile(r"/villages/\d+/$"))
    village_id = int(re.search(r"/villages/(\d+)/", page.url).group(1))

    page.goto(f"{site}/?practice=only")
    expect(page.locator("table.villages")).to_contain_text("はじめての練習村")
    expect(page.locator('table.villages img[src*="practice"]')).to_have_count(1)
    shot(page, "40-practice-top-page", full_page=True)

    me.sit(village_id, "まなぶ", 0)
    lifecycle.fix_cast(
        village_id=village_id,
        user=staff,
        roles={str(k): r for k, r in CAST.items()},
        sub_roles={},
    )
    start_game([me], village_id)  # the bots voted when they sat
    assert me.role == "villager"
    bots = me.lower.locator(".player.bot")
    expect(bots).to_have_count(7)
    expect(bots.first.locator(".pname")).to_contain_text(engine.BOT_MARK)

    me.seat_name = "まなぶ"
    deadline = time.monotonic() + 240
    claimed = False
    owed_since: float | None = None
    reloads: list[tuple[int, int]] = []
    while Village.objects.get(pk=village_id).status != "ended":
        assert time.monotonic() < deadline, (
            "the practice village never ended",
            Village.objects.filter(pk=village_id).values("phase", "day", "version").first(),
            list(Seat.objects.filter(village_id=village_id).values_list("seat_no", "bot_next_at")),
            list(Message.objects.filter(village_id=village_id).values_list("text", flat=True))[-6:],
            ("reloads of a screen that offered no vote owed", reloads),
        )
        mine = Seat.objects.get(village_id=village_id, seat_no=8)
        village = Village.objects.get(pk=village_id)
        if village.phase == "day" and mine.alive and me.up.locator("a.act-vote").count():
            me.act("vote")  # the first living seat on the list
            owed_since = None
        elif village.phase == "day" and mine.alive and my_vote_owed(village_id, mine.user_id):
            # The person owes a vote the screen does not offer: after a while, do what a
            # person does with a screen that looks stuck (reload it), and say so.
            owed_since = owed_since or time.monotonic()
            if time.monotonic() - owed_since > 15:
                reloads.append((village.day, village.version))
                me.open_screen(village_id)
                owed_since = None
        if not claimed and "占いCOします" in me.lower.locator("#d-log").inner_text():
            claimed = True
            shot(page, "41-practice-bot-claim")
        time.sleep(0.5)
    me.open_screen(village_id)
    expect(me.lower.locator(".phase-line")).to_contain_text("終了", timeout=10_000)
    shot(page, "42-practice-ended", full_page=True)

    print("reloads of a screen that offered no vote owed:", reloads)
    ended = Village.objects.get(pk=village_id)
    assert ended.winner
    assert not Seat.objects.filter(village=ended, death_cause="sudden").exists()
    talk = list(Message.objects.filter(village=ended, kind="talk").values_list("text", flat=True))
    assert any("に投票します" in t for t in talk), talk

    # The same screen in English (issue 32, item 13): the bots' names and lines too.
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": site}])
    me.open_screen(village_id)
    expect(me.lower.locator(".phase-line")).to_contain_text("Ended", timeout=10_000)
    names = me.lower.locator(".player.bot .pname")
    expect(names.first).to_contain_text("(bot)")
    log = me.lower.locator("#d-log").inner_text()
    assert engine.BOT_MARK not in log and "に投票します" not in log and "I vote for" in log
    shot(page, "43-practice-ended-english", full_page=True)
