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
from villages.services import bots, lifecycle

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


WOLF_CAST = {1: "wolf", 2: "wolf", 3: "seer"} | {n: "villager" for n in range(4, 9)}


def test_a_person_dealt_wolf_beside_a_bot_wolf_sees_the_night_whispers_a_target_and_it_is_attacked(
    site, contexts, shot, sweeping
):
    """Issue 39 item 1: the bot wolf used to take the pack's attack a second into the
    night, so the person's first view after the start was the morning. Now the person
    sees the night, reads the bot's proposal in the pack's whisper, whispers another
    target, and the morning finds that target dead."""
    howler = get_user_model().objects.create_user("howler", password=PASSWORD)
    staff = get_user_model().objects.create_user("staff", password=PASSWORD, is_staff=True)
    village = lifecycle.create_village(user=howler, name="相方はボット", capacity=8)
    me = Player(site, contexts(), "howler")
    me.login()
    me.sit(village.pk, "はうる", 0)
    bots.add_bots(village_id=village.pk, user=howler)
    lifecycle.fix_cast(
        village_id=village.pk,
        user=staff,
        roles={str(k): r for k, r in WOLF_CAST.items()},
        sub_roles={},
    )
    start_game([me], village.pk)
    assert me.role == "wolf"
    expect(me.lower.locator(".phase-line")).to_contain_text("夜")

    deadline = time.monotonic() + 60
    while not Message.objects.filter(village=village, code="bot_pack_propose").exists():
        assert time.monotonic() < deadline, "the bot wolf never spoke to its pack"
        time.sleep(0.3)
    proposal = Message.objects.get(village=village, code="bot_pack_propose")
    expect(me.lower.locator("#d-log")).to_contain_text(proposal.text, timeout=20_000)
    assert Village.objects.get(pk=village.pk).phase == "night"  # the bot did not attack
    shot(me.page, "44-practice-wolf-night-with-a-bot-packmate")

    prey = next(  # the person picks a villager other than the one proposed
        s
        for s in Seat.objects.filter(village=village, seat_no__gte=4).order_by("seat_no")
        if s.handle_name not in proposal.text
    )
    me.say(f"{prey.handle_name.removesuffix(engine.BOT_MARK)}さんでお願いします")
    expect(me.lower.locator("#d-log")).to_contain_text("お願いします")
    shot(me.page, "44b-practice-wolf-whispers-a-target")
    deadline = time.monotonic() + 60
    while Village.objects.get(pk=village.pk).day < 2:
        assert time.monotonic() < deadline, "the night never ended"
        time.sleep(0.3)
    prey.refresh_from_db()
    assert not prey.alive and prey.death_cause == "attacked"
    me.open_screen(village.pk)
    expect(me.lower.locator("#d-log")).to_contain_text(
        prey.handle_name.removesuffix(engine.BOT_MARK)
    )
    shot(me.page, "45-practice-wolf-morning-after")
