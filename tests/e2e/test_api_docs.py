"""/api/v1/docs is the site's own (issue 14): with every request outside the site blocked,
Swagger UI still draws the API's operations, and the page asks nothing of another origin."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_the_api_docs_page_works_with_the_network_blocked(site, contexts):
    page = contexts().new_page()
    outside: list[str] = []

    def only_the_site(route):
        if route.request.url.startswith(site):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_site)
    page.goto(f"{site}/api/v1/docs")
    page.locator(
        ".opblock-summary-path", has_text="/api/v1/villages/{village_id}/messages"
    ).first.wait_for()
    assert page.locator(".opblock").count() >= 20
    assert "jinro_site API" in page.locator(".info .title").first.inner_text()
    assert outside == []
    scripts = page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
    assert scripts and all(src.startswith(site) for src in scripts), scripts
