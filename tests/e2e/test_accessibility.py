"""Accessibility (issue 32, item 18): every page people use passes axe-core's WCAG 2.1 A and
AA rules with no serious or critical violation — the top page, register, login, the password
reset, statistics, the information pages, the create and seat forms, the game screen's frames
in the waiting room, by day, by night and in heaven (with the vote and attack pages), the past
log, its replay and its search, a player's history, the profile, and the admin's page of a
village. The screen's logs are live regions that new lines arrive in.

axe-core comes bundled with axe-playwright-python, whose `Axe().run(page)` runs it in a
Playwright page. The screen's panes are frames: each pane is opened at its own address in
the player's browser (the same session, the same phase), where axe runs in it as in a page;
the frame page itself is checked without descending into its frames.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from tests.api.client import Api, Driver, HttpTransport, Plan, open_village

from .test_live_screen import browser_of, open_screen

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")

# Wolves 1-2, the seer 3, villagers 4-8.
CAST = ["wolf", "wolf", "seer"] + ["villager"] * 5
VILLAGER, WOLF, SEER, EXECUTED = 6, 1, 3, 8

_axe = Axe()


def violations(page: Page, *, frames: bool = True) -> list[str]:
    """axe's serious and critical WCAG 2.1 A/AA violations on the page, one line each."""
    options: dict = {"runOnly": {"type": "tag", "values": WCAG_21_AA}}
    if not frames:
        options["iframes"] = False
    results = _axe.run(page, options=options)
    found = []
    for v in results.response["violations"]:
        if v["impact"] not in BLOCKING:
            continue
        for node in v["nodes"]:
            summary = " ".join((node.get("failureSummary") or "").split())
            found.append(f"{v['id']} ({v['impact']}) at {node['target']}: {summary}")
    return found


class Audit:
    """Runs axe on each page and gathers what it finds, to fail once with the whole list."""

    def __init__(self, shot) -> None:
        self.found: dict[str, list[str]] = {}
        self.shot = shot

    def check(self, name: str, page: Page, *, frames: bool = True) -> None:
        page.wait_for_load_state("load")
        page.evaluate("() => document.fonts.ready")
        self.shot(page, f"a11y-{name}", full_page=True)
        problems = violations(page, frames=frames)
        if problems:
            self.found[name] = problems

    def visit(self, name: str, page: Page, url: str) -> None:
        page.goto(url)
        self.check(name, page)

    def panes(self, name: str, screen: Page, site: str, village_id: int) -> None:
        """The frame page, then each pane it shows, opened at its own address."""
        open_screen(screen, site, village_id)
        self.check(f"{name}-screen", screen, frames=False)
        pane = screen.context.new_page()
        for frame in ("up", "lower", "heaven"):
            src = screen.locator(f"iframe[name={frame}]").get_attribute("src")
            if src:
                self.visit(f"{name}-{frame}", pane, site + src)
        pane.close()

    def report(self) -> str:
        lines = []
        for name, problems in self.found.items():
            lines.append(f"{name}:")
            lines.extend(f"  - {p}" for p in problems)
        return "\n".join(lines)


def test_every_page_people_use_passes_wcag_21_aa(site, contexts, shot):
    audit = Audit(shot)
    api = Api(HttpTransport(site))

    visitor = browser_of(contexts, site, "")
    audit.visit("top", visitor, f"{site}/")
    audit.visit("register", visitor, f"{site}/accounts/register/")
    audit.visit("login", visitor, f"{site}/accounts/login/")
    audit.visit("password-reset", visitor, f"{site}/accounts/password-reset/")
    audit.visit("stats", visitor, f"{site}/stats/")
    audit.visit("info", visitor, f"{site}/info/")

    # Before a game: the form that makes a village, the one that takes a seat, the waiting room.
    waiting = open_village(api, players=2, capacity=8, start=False)
    newcomer = browser_of(contexts, site, api.register().username)
    audit.visit("create", newcomer, f"{site}/villages/new/")
    audit.visit("seat", newcomer, f"{site}/villages/{waiting.id}/seat/")
    host = browser_of(contexts, site, waiting.player(1).username)
    waiting.player(2).ok("POST", waiting.path("messages"), {"text": "よろしく"}, status=201)
    audit.panes("waiting", host, site, waiting.id)

    table = open_village(api, players=8, cast=CAST)
    villager = browser_of(contexts, site, table.player(VILLAGER).username)
    wolf = browser_of(contexts, site, table.player(WOLF).username)
    executed = browser_of(contexts, site, table.player(EXECUTED).username)
    plan = Plan(
        execute=lambda g: EXECUTED if EXECUTED in g.alive else min(g.living(roles=["wolf"])),
        attack=lambda g: 7 if g.day == 1 else None,
        divine=lambda g, seer: WOLF,
    )
    driver = Driver(table, plan)
    driver.say(WOLF, "今夜はどうする？", "talk", "strong")
    driver.say(VILLAGER, "ひとりごと")  # at night, a villager talks to itself

    # Night 1: a villager's screen and a wolf's, with its attack page in the lower pane.
    audit.panes("night-villager", villager, site, table.id)
    audit.panes("night-wolf", wolf, site, table.id)
    upper = wolf.frame_locator("iframe[name=up]")
    upper.locator("a.act-attack").click()
    lower = wolf.frame_locator("iframe[name=lower]")
    expect(lower.locator("form.targets")).to_be_visible()
    audit.visit("night-attack-page", wolf, wolf.frame(name="lower").url)

    # Day 2: talk of every volume, then the vote page.
    driver.play_night(driver.view(table.state()))
    assert table.state()["village"]["phase"] == "day"
    driver.say(VILLAGER, "おはようございます", "talk", "weak")
    driver.say(WOLF, "怪しい人がいます", "talk", "strong")
    audit.panes("day-villager", villager, site, table.id)
    upper = villager.frame_locator("iframe[name=up]")
    upper.locator("a.act-vote").click()
    expect(villager.frame_locator("iframe[name=lower]").locator("form.targets")).to_be_visible()
    audit.visit("day-vote-page", villager, villager.frame(name="lower").url)

    # Night 2: the executed player is in heaven (three panes).
    driver.play_day(driver.view(table.state()))
    assert table.state()["village"]["phase"] == "night"
    driver.say(EXECUTED, "霊界より", "heaven")
    audit.panes("heaven", executed, site, table.id)
    heaven_log = executed.frame_locator("iframe[name=heaven]").get_by_role("log", name="霊界の会話")
    arrives_live(
        heaven_log, lambda: driver.say(7, "HEAVEN-LIVE-LINE", "heaven"), "HEAVEN-LIVE-LINE"
    )
    seer = browser_of(contexts, site, table.player(SEER).username)
    audit.panes("night-seer", seer, site, table.id)  # the night before's result: a wolf

    # The end: the past log, its search, the player's history and profile, the staff's page.
    driver.play()
    audit.visit("past-log", visitor, f"{site}/villages/{table.id}/log/")
    audit.visit("replay", visitor, f"{site}/villages/{table.id}/replay/")
    audit.visit("ended-list", visitor, f"{site}/villages/ended/")
    audit.visit("log-search", visitor, f"{site}/villages/ended/?players=8&winner=village")
    name = table.player(VILLAGER).username
    audit.visit("history", visitor, f"{site}/accounts/users/{name}/")
    audit.visit("profile", villager, f"{site}/accounts/profile/")
    staff = get_user_model().objects.create_user("a11y-staff", password="x", is_staff=True)
    staff.is_superuser = True
    staff.save()
    admin = browser_of(contexts, site, staff.username)
    audit.visit("admin-village", admin, f"{site}/admin/villages/village/{table.id}/change/")

    assert not audit.found, "axe-core's serious/critical WCAG 2.1 AA violations:\n" + (
        audit.report()
    )


def arrives_live(log, post, text: str) -> None:
    """A line posted after the screen opened lands in the log's live region as it stood, so a
    screen reader reads it out (a region drawn anew with the line in it would stay silent)."""
    expect(log).to_have_attribute("aria-live", "polite")
    log.evaluate("(region) => { region.dataset.watched = 'yes'; }")
    post()
    expect(log).to_contain_text(text)
    expect(log).to_have_attribute("data-watched", "yes")


def test_new_lines_land_in_the_logs_live_region(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = open_village(api, players=2, capacity=8, start=False)
    page = browser_of(contexts, site, table.player(1).username)
    open_screen(page, site, table.id)
    log = page.frame_locator("iframe[name=lower]").get_by_role("log", name="村のログ")

    def post() -> None:
        table.player(2).ok("POST", table.path("messages"), {"text": "LIVE-LINE"}, status=201)

    arrives_live(log, post, "LIVE-LINE")
    expect(log.locator(".msg", has_text="LIVE-LINE")).to_contain_text(table.player(2).username)
