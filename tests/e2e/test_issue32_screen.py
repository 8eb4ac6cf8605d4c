"""What players and operators met in a whole game (issue 32), in a real browser: a new
line's flash keeps each scheme readable (item 6), the past log's lines have permalinks
(item 7) and its toggles show which is on (item 9), the statistics can count practice
villages and say what their bars mean (item 8). Item 4 (notices) is in test_game_screen.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.api.client import Api, HttpTransport, open_village
from villages.models import Village

from .test_live_screen import browser_of, lower, open_screen

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


# ---------------------------------------------------------------------------
# Contrast (WCAG 2)


def _rgb(css: str) -> tuple[float, float, float, float]:
    found = re.fullmatch(r"rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)", css)
    assert found, css
    r, g, b, a = found.groups()
    return float(r), float(g), float(b), float(a if a is not None else 1)


def _luminance(css: str) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b, _a = _rgb(css)
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(one: str, other: str) -> float:
    a, b = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (a + 0.05) / (b + 0.05)


# The flash of a new line, held at its first frame: the site's own animation (the class
# `new` the script gave the line), started again and paused at 0 so that nothing depends
# on how fast the browser is.
FLASH = """
(el) => {
  el.classList.remove("new");
  void el.offsetWidth;
  el.classList.add("new");
  const flash = el.getAnimations().find((a) => a.animationName === "flash-new");
  if (!flash) return null;
  flash.pause();
  flash.currentTime = 0;
  const say = el.querySelector(".say");
  return {
    background: getComputedStyle(el).backgroundColor,
    ink: getComputedStyle(el).color,
    say: getComputedStyle(say).color,
  };
}
"""


def flash_of(line) -> dict[str, str]:
    expect(line).to_have_class(re.compile(r"\bnew\b"))
    colours = line.evaluate(FLASH)
    assert colours, "the new line does not flash"
    return colours


def assert_readable(colours: dict[str, str], scheme: str) -> None:
    assert _rgb(colours["background"])[3] == 1, (scheme, colours)
    for text in ("ink", "say"):
        ratio = contrast(colours[text], colours["background"])
        assert ratio >= 4.5, f"{scheme}: {text} {colours[text]} on the flash: {ratio:.2f}"


def test_a_new_lines_flash_keeps_day_night_and_heaven_text_readable(site, contexts, shot):
    """Issue 32, item 6: the yellow flash made night text (light on yellow) unreadable."""
    api = Api(HttpTransport(site))
    cast = ["wolf", "wolf", "seer"] + ["villager"] * 5
    table = open_village(api, players=8, cast=cast)  # night 1
    wolf = browser_of(contexts, site, table.player(1).username)
    open_screen(wolf, site, table.id)
    say = table.player
    say(2).ok("POST", table.path("messages"), {"text": "夜の相談です"}, status=201)
    line = lower(wolf).locator(".msg", has_text="夜の相談です")
    expect(lower(wolf).locator("body")).to_have_class(re.compile(r"\bphase-night\b"))
    assert_readable(flash_of(line), "night")
    shot(wolf, "50-night-flash")

    say(1).ok("POST", table.path("night-action"), {"action": "attack", "targets": [8]})
    say(3).ok("POST", table.path("night-action"), {"action": "divine", "targets": [4]})
    expect(lower(wolf).locator("body")).to_have_class(re.compile(r"\bphase-day\b"))
    dead = browser_of(contexts, site, table.player(8).username)
    open_screen(dead, site, table.id)
    heaven = dead.frame_locator("iframe[name=heaven]")
    expect(heaven.locator("#h-log")).to_be_attached()
    say(3).ok("POST", table.path("messages"), {"text": "おはようございます"}, status=201)
    assert_readable(flash_of(lower(dead).locator(".msg", has_text="おはようございます")), "day")
    say(8).ok(
        "POST", table.path("messages"), {"text": "霊界は静かです", "channel": "heaven"}, status=201
    )
    assert_readable(flash_of(heaven.locator(".msg", has_text="霊界は静かです")), "heaven")
    shot(dead, "51-day-and-heaven-flash")


# ---------------------------------------------------------------------------
# The past log


def ended_village() -> int:
    from tests.web.conftest import play_to_end, started_village

    game = started_village()
    play_to_end(game)
    return game.id


def test_each_past_log_line_has_a_permalink_that_marks_it(site, contexts, shot):
    """Issue 32, item 7: lines had ids (`#m…`) but nothing to click or copy, and a link to
    one marked nothing."""
    village_id = ended_village()
    page = browser_of(contexts, site, "")
    page.goto(f"{site}/villages/{village_id}/log/")
    lines = page.locator(".log.past .msg")
    assert lines.count() > 10
    for i in range(lines.count()):
        line = lines.nth(i)
        link = line.locator("a.at")
        expect(link).to_be_visible()
        assert link.get_attribute("href") == f"#{line.get_attribute('id')}"
        assert re.fullmatch(r"\d\d:\d\d", link.inner_text()), link.inner_text()
    talk = page.locator(".log.past .msg").nth(2)
    other = page.locator(".log.past .msg").nth(3)
    target = talk.get_attribute("id")
    talk.locator("a.at").click()
    expect(page).to_have_url(re.compile(rf"#{target}$"))
    assert_marked(page, target, other)
    # The address as copied from the link, opened afresh with the toggles in it.
    fresh = browser_of(contexts, site, "")
    fresh.goto(f"{site}/villages/{village_id}/log/?order=new#{target}")
    line = fresh.locator(f"#{target}")
    expect(line).to_be_in_viewport()
    assert_marked(fresh, target, fresh.locator(".log.past .msg").first)
    shot(fresh, "52-past-log-permalink")


def assert_marked(page: Page, target: str, other) -> None:
    assert page.evaluate("() => document.querySelector(':target')?.id") == target
    style = (
        "(el) => { const s = getComputedStyle(el); return [s.outlineStyle, s.backgroundColor]; }"
    )
    marked = page.locator(f"#{target}").evaluate(style)
    plain = other.evaluate(style)
    assert marked[0] != "none" and marked != plain, (marked, plain)


TOGGLE_STYLE = """
(el) => {
  const s = getComputedStyle(el);
  return [s.fontWeight, s.backgroundColor, s.textDecorationLine, s.color, s.borderStyle].join(" ");
}
"""


def test_the_past_logs_toggles_show_which_is_on(site, contexts, shot):
    """Issue 32, item 9: 古い順/新しい順, 霊話 and 配役 looked the same on and off."""
    village_id = ended_village()
    page = browser_of(contexts, site, "")
    page.goto(f"{site}/villages/{village_id}/log/")
    toggles = page.locator(".log-toggles span.toggle")
    expect(toggles).to_have_count(3)  # order, heaven, roles (the game has ended)

    def check() -> None:
        for i in range(3):
            on = toggles.nth(i).locator("a.on")
            off = toggles.nth(i).locator("a:not(.on)")
            expect(on).to_have_count(1)
            expect(on).to_have_attribute("aria-current", "true")
            assert on.evaluate(TOGGLE_STYLE) != off.evaluate(TOGGLE_STYLE), toggles.nth(i)
            ink = on.evaluate("(el) => getComputedStyle(el).color")
            back = on.evaluate("(el) => getComputedStyle(el).backgroundColor")
            if _rgb(back)[3] == 1:
                assert contrast(ink, back) >= 4.5, (ink, back)

    check()
    toggles.nth(0).locator("a", has_text="新しい順").click()
    expect(toggles.nth(0).locator("a.on")).to_have_text("新しい順")
    toggles.nth(2).locator("a", has_text="見物人の目").click()
    expect(toggles.nth(2).locator("a.on")).to_contain_text("見物人の目")
    check()
    shot(page, "53-past-log-toggles")


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
