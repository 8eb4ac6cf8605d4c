"""Browser tests: Debian's chromium driven by Playwright against a real site process.

The site is `manage.py runsite` on the test database (like `daphne_server`), started for
these tests with the settings a room of browsers on one machine needs: every player comes
from 127.0.0.1, so one-seat-per-address and the rate limits are off, and the sudden-death
clock is short so a stuck test ends quickly. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import RunningProcess, restore_icons, serve_site

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
    # The sudden-death test's 5-second day and 3-second grace (no other browser test lets
    # time run out).
    "JINRO_MIN_PHASE_SECONDS": "5",
    "JINRO_SUDDEN_DEATH_GRACE": "3",
    "JINRO_SILENCE_REAL_SECONDS": "600",
    "JINRO_SERVE_STATIC": "1",
    # Bots look again at the next sweep after a change, not 2 s later: no browser test
    # measures their pace, and each whole game with bots waits for them.
    "JINRO_BOT_DELAY": "0",
}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
TRACES = SCREENSHOTS.parent / "e2e-traces"


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
    restore_icons()
    _e2e_process.check_alive()
    return _e2e_process.url


@pytest.fixture(scope="module")
def chromium():
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread
    while it is open, and the async tests that follow need the thread's loop free."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread while it is open, and the
    # test still uses the ORM beside it: allowed then only (every other test, and the
    # site processes, keep Django's check that nothing reads the database on a loop).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def contexts(chromium, request):
    """Make browser contexts (one per person); all are closed after the test.

    Each context keeps a trace of what its pages did (navigations, WebSocket frames,
    failed requests, console errors); when the test fails, the traces are written to
    artifacts/e2e-traces/<test>.txt, since a flaky live update is hard to see otherwise.
    """
    made: list[tuple[object, list[str]]] = []

    def make(**kwargs):
        kwargs.setdefault("locale", "ja-JP")
        kwargs.setdefault("viewport", {"width": 1100, "height": 820})
        ctx = chromium.new_context(**kwargs)
        ctx.set_default_timeout(20_000)
        trace: list[str] = []
        ctx.on("page", lambda page: _trace_page(page, trace))
        made.append((ctx, trace))
        return ctx

    yield make
    if request.node.stash.get(CALL_FAILED, False):
        TRACES.mkdir(parents=True, exist_ok=True)
        with open(TRACES / f"{request.node.name}.txt", "w") as out:
            for n, (_ctx, trace) in enumerate(made):
                out.write(f"===== browser context {n}\n")
                out.writelines(line + "\n" for line in trace)
    for ctx, _trace in made:
        ctx.close()


def _trace_page(page, trace: list[str]) -> None:
    def note(kind: str, text: str) -> None:
        trace.append(f"{time.time():.3f} {kind} {text[:4000]}")

    def socket(ws) -> None:
        note("ws-open", ws.url)
        ws.on("framereceived", lambda payload: note("ws-recv", str(payload)))
        ws.on("close", lambda _ws: note("ws-close", ws.url))

    page.on("websocket", socket)
    page.on("framenavigated", lambda frame: note("nav", f"{frame.name or 'top'} {frame.url}"))
    page.on("requestfailed", lambda req: note("failed", f"{req.method} {req.url} {req.failure}"))
    page.on("console", lambda msg: msg.type == "error" and note("console", msg.text))


@pytest.fixture(scope="session")
def shot():
    """shot(page, name): a full-page screenshot in artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, full_page: bool = False) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)

    return take
