"""Browser tests: Debian's chromium driven by Playwright against a real site process.

The site is `manage.py runsite` on the test database (like `daphne_server`), started for
these tests with the settings a room of browsers on one machine needs: every player comes
from 127.0.0.1, so one-seat-per-address and the rate limits are off, and the sudden-death
clock is short so a stuck test ends quickly. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningProcess, serve_site

# Playwright's sync API runs an event loop in this thread; the test still uses the ORM.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--autoplay-policy=no-user-gesture-required",
]
SITE_ENV = {
    "JINRO_ONE_SEAT_PER_IP": "0",
    "JINRO_RATE_LIMIT_ENABLED": "0",
    "JINRO_SUDDEN_DEATH_GRACE": "120",
    "JINRO_SILENCE_REAL_SECONDS": "600",
    "JINRO_SERVE_STATIC": "1",
}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is absent (CI installs it)")
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def _e2e_process(django_db_setup: None, tmp_path_factory) -> Iterator[RunningProcess]:
    with serve_site("e2e-site", tmp_path_factory.mktemp("e2e-site"), SITE_ENV) as process:
        yield process


@pytest.fixture
def site(transactional_db: None, _e2e_process: RunningProcess, settings) -> str:
    """Base URL of the site process; this test process shares its database."""
    settings.JINRO_ONE_SEAT_PER_IP = False
    settings.JINRO_RATE_LIMIT_ENABLED = False
    # The site process hashes with Django's default: passwords made here must verify there
    # (tests/conftest.py makes the test process hash with MD5 for speed).
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    _restore_icons()
    _e2e_process.check_alive()
    return _e2e_process.url


def _restore_icons() -> None:
    """A transactional test's flush empties tables that migrations filled: put the icons back."""
    import importlib

    from django.apps import apps

    from villages.models import Icon

    if not Icon.objects.exists():
        importlib.import_module("villages.migrations.0002_default_icons").add_icons(apps, None)


@pytest.fixture(scope="module")
def chromium():
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread
    while it is open, and the async tests that follow need the thread's loop free."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def contexts(chromium):
    """Make browser contexts (one per person); all are closed after the test."""
    made = []

    def make(**kwargs):
        kwargs.setdefault("locale", "ja-JP")
        kwargs.setdefault("viewport", {"width": 1100, "height": 820})
        ctx = chromium.new_context(**kwargs)
        ctx.set_default_timeout(20_000)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


@pytest.fixture(scope="session")
def shot():
    """shot(page, name): a full-page screenshot in artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, full_page: bool = False) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)

    return take
