"""The replay in a browser (issue 12): → and ← step through the game, play walks on by
itself, and the players list at three points is the game's state at those points; the
ability results appear at the morning each was told (issue 33)."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import play_eleven_to_end, play_to_end, started_eleven, started_village
from villages.models import Message

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def alive(page) -> set[int]:
    return {
        int(n)
        for n in page.eval_on_selector_all(
            "#replay-players li[data-alive='1']", "els => els.map(e => e.dataset.seat)"
        )
    }


def step(page) -> int:
    return int(re.search(r"(\d+) / \d+", page.inner_text("#replay-where"))[1])


def test_stepping_a_replay_forward_and_back(site, contexts, shot):
    game = started_village()
    play_to_end(game)
    codes = list(
        Message.objects.filter(village_id=game.id).order_by("id").values_list("code", flat=True)
    )
    found = codes.index("found_dead") + 1  # seat 8, found on the morning of day 2
    executed = codes.index("executed") + 1  # seat 1, day 2
    page = contexts().new_page()
    page.goto(f"{site}/villages/{game.id}/replay/?step={found - 2}")
    everyone = set(range(1, 9))
    assert alive(page) == everyone
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**step={found - 1}")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**step={found}")
    assert alive(page) == everyone - {8}
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**step={found - 1}")
    assert alive(page) == everyone, "back one step, 8 is alive again"
    page.goto(f"{site}/villages/{game.id}/replay/?step={executed - 1}")
    page.select_option("#replay-speed", "500")
    page.click("#replay-play")
    page.wait_for_function(f"() => /step={executed + 1}/.test(location.search)", timeout=15_000)
    page.click("#replay-play")  # pause
    assert step(page) >= executed + 1
    assert alive(page) == everyone - {8, 1}
    assert "投票結果" in page.inner_text("body")
    shot(page, "replay-day-3", full_page=True)


def results(page) -> list[str]:
    return page.eval_on_selector_all(
        "#replay-results tr[data-result]", "rows => rows.map(r => r.innerText)"
    )


def test_the_seers_results_appear_at_the_morning_they_were_told(site, contexts, shot):
    game = started_eleven()
    play_eleven_to_end(game)
    codes = list(
        Message.objects.filter(village_id=game.id).order_by("id").values_list("code", flat=True)
    )
    mornings = [n for n, c in enumerate(codes, start=1) if c == "morning"]
    page = contexts().new_page()
    page.goto(f"{site}/villages/{game.id}/replay/?step={mornings[0] - 1}")
    assert results(page) == [], "nothing is known before the first morning"
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**step={mornings[0]}")
    [seer] = results(page)
    assert "1日目の夜" in seer and "村人4号" in seer and "村人1号" in seer and "狼" in seer
    page.goto(f"{site}/villages/{game.id}/replay/?step={mornings[1]}")
    told = results(page)
    assert len(told) == 4 and "護衛成功" in told[-1]
    assert page.is_visible("#replay-results")
    shot(page, "replay-results-day-3", full_page=True)
    page.goto(f"{site}/villages/{game.id}/replay/?step={mornings[1]}&eye=spectator")
    assert results(page) == [] and not page.is_visible("#replay-results")
