"""What players and operators met in a whole game (issue 32), in a real browser: a new
line's flash keeps each scheme readable (item 6), the past log's lines have permalinks
(item 7) and its toggles show which is on (item 9), the statistics can count practice
villages and say what their bars mean (item 8). Item 4 (notices) is in test_game_screen.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from villages.models import Village

from .test_live_screen import browser_of

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


# ---------------------------------------------------------------------------
# The past log


def ended_village() -> int:
    from tests.web.conftest import play_to_end, started_village

    game = started_village()
    play_to_end(game)
    return game.id


# ---------------------------------------------------------------------------
# Statistics


def test_the_statistics_can_count_practice_villages_and_have_a_legend(site, contexts, shot):
    """Issue 32, item 8: an operator who tried the site with bots saw 「まだ試合がありません」."""
    village_id = ended_village()
    Village.objects.filter(pk=village_id).update(practice=True)
    page = browser_of(contexts, site, "")
    page.goto(f"{site}/stats/")
    expect(page.locator("main")).to_contain_text("まだ試合がありません")
    page.get_by_role("link", name="練習村を含める").click()
    expect(page).to_have_url(re.compile(r"[?&]practice=1"))
    expect(page.locator("svg.bars")).to_have_count(2)
    expect(page.locator("p.stats")).to_contain_text("1試合")
    legend = page.locator("p.legend")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("参加")
    expect(legend).to_contain_text("勝利")
    # The legend's keys are the bars' colours.
    keys = [
        legend.locator(f".key.{k}").evaluate("(el) => getComputedStyle(el).backgroundColor")
        for k in ("games", "wins")
    ]
    fills = page.locator("svg.bars").first.locator("rect")
    bars = [fills.nth(i).evaluate("(el) => getComputedStyle(el).fill") for i in (0, 1)]
    assert keys == bars, (keys, bars)
    # 絞り込む keeps the practice villages in.
    page.fill("#id_players", "8")
    page.locator("form.log-search button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"practice=1"))
    expect(page.locator("p.stats")).to_contain_text("1試合")
    shot(page, "54-stats-with-practice", full_page=True)
    page.get_by_role("link", name="練習村を除く").click()
    expect(page.locator("main")).to_contain_text("まだ試合がありません")
