"""The exported past log (issue 12) is one file that reads offline: opened from disk with
every network request blocked, it shows the whole game, icons drawn, and asks for nothing."""

from __future__ import annotations

import urllib.request

import pytest

from tests.web.conftest import play_to_end, started_village

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_the_exported_file_opens_with_no_network_and_shows_the_whole_game(
    site, contexts, shot, tmp_path
):
    game = started_village()
    play_to_end(game)
    with urllib.request.urlopen(f"{site}/villages/{game.id}/log/export.html", timeout=20) as r:
        saved = tmp_path / f"jinro-village-{game.id}.html"
        saved.write_bytes(r.read())
    page = contexts().new_page()
    asked: list[str] = []

    def nothing_but_the_file(route):
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            asked.append(route.request.url)
            route.abort()

    page.route("**/*", nothing_but_the_file)
    page.goto(saved.as_uri())
    body = page.locator("body")
    for seen in ("WOLF-SECRET-PLAN", "村人の勝利", "占い師", "死亡者", "投票"):
        assert seen in body.inner_text(), seen
    drawn = page.eval_on_selector_all(
        "img", "els => els.map(e => e.complete && e.naturalWidth > 0)"
    )
    assert drawn and all(drawn), "every icon is drawn from the file itself"
    color = page.eval_on_selector(".msg.k-system", "e => getComputedStyle(e).borderLeftStyle")
    assert color == "solid", "the site's styles are in the file"
    assert asked == []
    shot(page, "log-export-offline", full_page=True)
