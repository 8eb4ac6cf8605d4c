"""The live screen with real browsers: the site's CPU per posted line, with 21 Chromium
screens open, against one classic polling round (each of the 21 GETting its lower pane).

    .venv/bin/python bench/live_screen.py [--screens 21] [--lines 100] [--batches 3]
                                          [--rounds 5] [--big 10000] [--gap 0.05]
                                          [--idle SECONDS] [--profile]

A 22-seat village in virtual time on day 2 (built through the services in a throwaway SQLite
database: the embedded default; set DATABASE_URL, and REDIS_URL for the production layout);
the site is `manage.py runsite` in a process of its own; each screen is Debian's chromium
(Playwright), logged in as one living seat, on the game screen (/villages/<id>/). Lines are
posted through the API over HTTP by the living seats in turn, a line every --gap seconds.

CPU is the site process's (every thread, /proc/<pid>/task/*/schedstat), less its idle rate
measured just before. A batch of lines counts from its first POST until every screen shows
its last line. Before the first batch and after each come --rounds polling rounds, and a
batch's ratio is its CPU per line against the rounds on either side of it (the median of
each set, and their mean). The two are measured within seconds of each other, because this
machine's speed moves by a third from minute to minute (the same round cost 81 ms in one
run and 113 ms later in the same run); and the rounds on either side see the day's log as
short and as long as the batch's lines did. The figures are the medians.

A round's GETs come --gap apart, as the lines do: each player's screen polls at its own
time, never all 21 in a burst. A request that finds the process idle costs more than one
that follows another at once (caches gone cold, threads asleep): the same line cost 4.2 ms
spaced and 3.0 ms back to back with nobody watching. A round back to back is printed too;
`--gap 0` measures lines and rounds both back to back, as on a site busy enough never to
be idle.

Then the same with --big earlier lines in the day (added as rows: the log is long, the
clock not spent). Targets (issue 9): a line ≤ 1/20 of a polling round; with the long log,
≤ 1.2× the short-log figure; every screen shows the last line; the screens make no request
at all.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from common import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Client,
    Profiler,
    day_two_village,
    idle_rate,
    insert_lines,
    session_cookie,
    setup_django,
    start_site,
)

SPEAKERS = list(range(11, 22))  # living villagers take turns
WARM = 40  # lines posted before each measure (see post_lines)
PANE = re.compile(r"/villages/\d+/|/api/")  # a pane or the API (not a static file)


def add_lines(village_id: int, count: int) -> None:
    """`count` more lines of day 2, as rows (a long day's log; the clock is not spent)."""
    from villages.models import Message

    rows = [
        Message(
            village_id=village_id,
            day=2,
            phase="day",
            kind="talk",
            seat_no=SPEAKERS[n % len(SPEAKERS)],
            text=f"昨日の{n}番目の発言です。" * (1 + n % 3),
            volume=("normal", "strong", "weak")[n % 3],
        )
        for n in range(count)
    ]
    insert_lines(village_id, rows)


def open_screens(browser, site_url: str, village, screens: int) -> list:
    pages = []
    for seat in range(1, screens + 1):
        context = browser.new_context(locale="ja-JP", viewport={"width": 1100, "height": 820})
        cookie = session_cookie(village.users[seat])
        context.add_cookies([{"name": "sessionid", "value": cookie, "url": site_url}])
        page = context.new_page()
        page.requests = []  # type: ignore[attr-defined]
        page.on("request", lambda r, page=page: page.requests.append(r.url))
        pages.append(page)
    for page in pages:
        load(page, site_url, village.id)
    return pages


def load(page, site_url: str, village_id: int) -> None:
    page.goto(f"{site_url}/villages/{village_id}/", timeout=120_000)
    page.wait_for_function(
        "() => document.documentElement.classList.contains('live')", timeout=120_000
    )


def shows(page, message_id: int) -> bool:
    return page.frame_locator("iframe[name=lower]").locator(f"#m{message_id}").count() == 1


class Poller:
    """The classic screen's polling: each of the screens' seats GETs its lower pane."""

    def __init__(self, site, village, screens: int) -> None:
        self.site = site
        self.path = f"/villages/{village.id}/down/"
        self.cookies = [session_cookie(village.users[seat]) for seat in range(1, screens + 1)]
        self.clients: list[tuple[Client, str]] = []

    def poll(self, gap: float) -> None:
        for client, cookie in self.clients:
            status, _body = client.request(
                "GET", self.path, headers={"Cookie": f"sessionid={cookie}"}
            )
            assert status == 200, status
            time.sleep(gap)

    def round_ms(self, idle: float, rounds: int, gap: float) -> float:
        """CPU (ms, less idle) of one round, a GET every `gap` seconds (0: back to back):
        the median of `rounds` rounds, after one round not counted on new connections (the
        site closes those left idle while the lines were posted)."""
        for client, _cookie in self.clients:
            client.conn.close()
        self.clients = [(Client(self.site), cookie) for cookie in self.cookies]
        self.poll(0)
        figures = []
        for _ in range(rounds):
            cpu0, t0 = self.site.cpu_seconds(), time.monotonic()
            self.poll(gap)
            elapsed = time.monotonic() - t0
            figures.append((self.site.cpu_seconds() - cpu0 - idle * elapsed) * 1000)
        return statistics.median(figures)


def post_lines(
    site, village, pages, lines: int, gap: float, batches: int, poller: Poller, rounds: int
) -> dict[str, Any]:
    """Post `batches` batches of `lines` lines, each batch counted until every screen shows
    its last line, with `rounds` polling rounds before the first batch and after each: the
    CPU per line (ms, less idle) of each batch, the mean of the rounds just before and just
    after it, their ratio, and the medians. A batch and its rounds run within seconds of
    each other, so that the ratio holds however busy the machine is; and the rounds on
    either side of a batch see the day's log as short and as long as its lines did (a
    round's GETs draw the whole day, which grows by a batch's lines)."""
    client = Client(site)
    # Warming up: the first lines load templates and caches, and the screens that have
    # just opened are still busy (their CPU slows ours); the figure is the steady state.
    for n in range(WARM):
        client.post_line(village.id, village.tokens[SPEAKERS[n % len(SPEAKERS)]], f"準備{n}")
        time.sleep(gap)
    time.sleep(2)
    for page in pages:
        page.requests.clear()
    idle = idle_rate(site)
    per_line, per_loop, per_round, waiting = [], [], [], []
    before = poller.round_ms(idle, rounds, gap) if rounds else 0.0
    for batch in range(batches):
        cpu0, loop0, t0 = site.cpu_seconds(), site.main_thread_cpu_seconds(), time.monotonic()
        last = 0
        for n in range(lines):
            seat = SPEAKERS[n % len(SPEAKERS)]
            last = client.post_line(village.id, village.tokens[seat], f"発言{batch}の{n}です")
            time.sleep(gap)
        deadline = time.monotonic() + 60
        waiting = list(pages)
        while waiting and time.monotonic() < deadline:
            waiting = [p for p in waiting if not shows(p, last)]
            if waiting:
                time.sleep(0.05)
        elapsed = time.monotonic() - t0
        per_line.append((site.cpu_seconds() - cpu0 - idle * elapsed) / lines * 1000)
        per_loop.append((site.main_thread_cpu_seconds() - loop0) / lines * 1000)
        if rounds:
            after = poller.round_ms(idle, rounds, gap)
            per_round.append((before + after) / 2)
            before = after
    requests = sum(len([u for u in p.requests if PANE.search(u)]) for p in pages)
    return {
        "per_line_ms": statistics.median(per_line),
        "batches": per_line,
        "loop_ms": statistics.median(per_loop),
        "rounds": per_round,
        "round_ms": statistics.median(per_round) if per_round else 0.0,
        # (a profiled run polls no rounds: no ratios)
        "ratios": [r / line for r, line in zip(per_round, per_line, strict=False)],
        "missing": len(waiting),
        "requests": requests,
        "idle": idle,
    }


def report(name: str, figures: dict[str, Any], screens: int, gap: float) -> None:
    print(
        f"{name}: {figures['per_line_ms']:.2f} ms CPU per line, the median of "
        f"{' / '.join(f'{b:.2f}' for b in figures['batches'])} "
        f"(idle {figures['idle'] * 1000:.1f} ms/s; the event loop's share "
        f"{figures['loop_ms']:.2f} ms); screens missing the last line: "
        f"{figures['missing']}; requests by the screens: {figures['requests']}",
        flush=True,
    )
    if figures["rounds"]:
        print(
            f"  polling round ({screens} GETs of the lower pane, {gap} s apart) around each "
            f"batch: {' / '.join(f'{r:.1f}' for r in figures['rounds'])} ms CPU; "
            f"ratio line / round: {' / '.join(f'1/{r:.1f}' for r in figures['ratios'])}, "
            f"median 1/{statistics.median(figures['ratios']):.1f}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--screens", type=int, default=21)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="polling rounds after a batch")
    parser.add_argument("--batches", type=int, default=3, help="batches of --lines lines")
    parser.add_argument("--big", type=int, default=10_000)
    parser.add_argument(
        "--gap",
        type=float,
        default=0.05,
        help="seconds between two posts (and two GETs of a round)",
    )
    parser.add_argument("--profile", action="store_true", help="py-spy the short-log posts")
    parser.add_argument(
        "--idle",
        type=float,
        default=0,
        help="then the screens stay open this many seconds with nothing said: the site's CPU"
        " a second (sampled with py-spy too, with --profile)",
    )
    parser.add_argument(
        "--profile-raw", type=Path, help="keep py-spy's raw stacks in this file (with --profile)"
    )
    args = parser.parse_args()

    work = setup_django()
    from playwright.sync_api import sync_playwright

    village = day_two_village()
    add_lines(village.id, 100 - 20)  # the short log: about 100 lines in the day
    site = start_site(work)
    print(f"village {village.id}: 22 seats, day 2; site pid {site.popen.pid}", flush=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            pages = open_screens(browser, site.url, village, args.screens)
            print(f"{len(pages)} screens open", flush=True)
            poller = Poller(site, village, args.screens)
            if args.profile:
                with Profiler(site, args.profile_raw or work / "live.raw"):
                    post_lines(site, village, pages, args.lines, args.gap, 1, poller, 0)
            short = post_lines(
                site, village, pages, args.lines, args.gap, args.batches, poller, args.rounds
            )
            requested = sorted({u for p in pages for u in p.requests if PANE.search(u)})
            if requested:
                print(f"the screens asked for: {requested[:5]}")
            report("short day", short, args.screens, args.gap)
            bunched = poller.round_ms(short["idle"], args.rounds, 0)
            print(
                f"  for comparison, a round back to back: {bunched:.1f} ms CPU; a line spaced "
                f"against it (not like with like; --gap 0 measures both back to back): "
                f"1/{bunched / short['per_line_ms']:.1f}",
                flush=True,
            )

            if args.idle:
                time.sleep(2)  # the last round's answers sent
                spy = Profiler(site, work / "idle.raw") if args.profile else nullcontext()
                with spy:
                    rate = idle_rate(site, args.idle, by_thread=True)
                print(
                    f"{len(pages)} screens open and nothing said for {args.idle:.0f} s: "
                    f"{rate * 1000:.2f} ms of the site's CPU a second",
                    flush=True,
                )
            if not args.big:  # `--big 0`: the short log only
                browser.close()
                return
            add_lines(village.id, args.big)
            for page in pages:
                load(page, site.url, village.id)
            long = post_lines(
                site, village, pages, args.lines, args.gap, args.batches, poller, args.rounds
            )
            report(f"{args.big}-more-line day", long, args.screens, args.gap)
            print(
                f"  the long log's line: {long['per_line_ms'] / short['per_line_ms']:.2f}× "
                "the short log's",
                flush=True,
            )
            browser.close()
    finally:
        site.stop()
    print(f"site RSS at the end: see {site.log}")


if __name__ == "__main__":
    main()
