"""Hostile names in real browsers (issue 10): seats and a village named with the classic
payloads; every page of the village, as a player and as a spectator, keeps its body, runs its
script, and opens no dialog."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.api.client import Api, HttpTransport, open_village

from .test_live_screen import browser_of

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "<!--<script>",
    "</script><script>alert(1)</script>",
    "{{7*7}}",
    "javascript:alert(1)",
]


def pages_of(village_id: int) -> list[str]:
    base = f"/villages/{village_id}/"
    return [
        base,
        base + "up/",
        base + "down/",
        base + "heaven/",
        base + "act/?action=vote",
        base + "kick/",
        base + "log/",
        base + "seat/",
        "/",
    ]


def visit(page: Page, site: str, path: str, dialogs: list[str]) -> None:
    page.goto(site + path)
    assert page.evaluate("() => document.body.children.length") > 0, f"{path}: empty body"
    # The page's own script read its configuration (the names are inside it).
    if "jinro-config" in page.content():
        assert page.evaluate(
            "() => JSON.parse(document.getElementById('jinro-config').textContent).village"
        ), path
    assert not dialogs, f"{path} opened a dialog: {dialogs}"


def test_hostile_names_blank_no_page_and_run_no_script(site, contexts, shot):
    api = Api(HttpTransport(site))
    table = open_village(api, players=8, start=False, name=PAYLOADS[3][:60])
    hosts = table.seated()
    icon = api.icons()[0]["id"]
    for caller, payload in zip(hosts[2:], PAYLOADS, strict=False):
        # Seated again under hostile names: the first two keep theirs, six carry payloads.
        caller.ok("DELETE", table.path("seats/me"), status=204)
        caller.ok("POST", table.path("seats"), {"handle_name": payload, "icon": icon}, status=201)
    line = {"text": "</script><!--<script> {{7*7}}"}
    for caller in table.seated():
        caller.ok("POST", table.path("messages"), line, status=201)
    player = browser_of(contexts, site, hosts[0].username)
    spectator = browser_of(contexts, site, "")
    for who, page in (("player", player), ("spectator", spectator)):
        dialogs: list[str] = []
        page.on("dialog", lambda d, seen=dialogs: (seen.append(d.message), d.dismiss()))
        for path in pages_of(table.id):
            visit(page, site, path, dialogs)
        page.goto(f"{site}/villages/{table.id}/")
        expect(page.frame_locator("iframe[name=lower]").locator("#d-players")).to_contain_text(
            "{{7*7}}"
        )
        expect(page.frame_locator("iframe[name=lower]").locator("#d-log")).to_contain_text(
            "<!--<script>"
        )
        page.wait_for_function("() => document.documentElement.classList.contains('live')")
        shot(page, f"30-hostile-names-{who}")
        assert not dialogs
    table.start()
    for page in (player, spectator):
        dialogs = []
        page.on("dialog", lambda d, seen=dialogs: (seen.append(d.message), d.dismiss()))
        for path in pages_of(table.id):
            visit(page, site, path, dialogs)
    shot(player, "31-hostile-names-playing")


def test_a_150_letter_username_fits_a_phone(site, contexts, shot):
    """A username may be 150 letters, one word: the header and the headings that show it
    made the page 1,140 px wide on a 390 px phone, or wider."""
    from django.contrib.auth import get_user_model

    name = "u" * 150
    get_user_model().objects.create_user(name, password="pw-long-name-1")
    page = browser_of(contexts, site, name, viewport={"width": 390, "height": 844})
    for path in ("/", "/accounts/profile/", f"/accounts/users/{name}/", "/villages/ended/"):
        page.goto(site + path)
        expect(page.locator("a.me")).to_have_attribute("title", name)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"{path}: {width} px wide"
    shot(page, "32-long-username-phone")
