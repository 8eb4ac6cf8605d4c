"""The classic screen's polls (issue 40): what a poll costs when nothing changed, and how
many 22 polling players get answered.

    .venv/bin/python bench/polls.py [--runs 50] [--seconds 10] [--browser]

Builds a 22-seat village on day 2 with 1,000 day-2 lines in a throwaway SQLite database
(the embedded default), starts the site (`manage.py runsite`, daphne, as `bin/run`) and
measures from outside with curl (`-w %{time_total}`, a new connection each), medians of
`--runs` requests:

* the lower pane of a living villager (its session cookie), the same pane for a
  spectator (nobody logged in) and the top page (nobody logged in), each as
  - a full render: a path the site has not drawn yet (`?r=<n>`), as every poll was
    before issue 40 (the closed phases come from their per-audience cache, as before);
  - a repeat 200: the same path again without a validator (a curl, a first visit): the
    page drawn for that sight is served again;
  - an unchanged repeat poll: with the page's `If-None-Match`, answered 304;
  each also over one kept-alive connection (as a browser polls: no connection made for
  each request), and the site's CPU time per request of curl's (its threads', less its
  idle rate);
* 22 players polling their own lower pane at once for `--seconds` (each its own session
  and kept-alive connection), on a site just started (the first second of a burst draws
  22 panes cold): with `wrk` (apt `wrk`) when it is installed, else a Python client;
  requests per second and how many were refused (503); once as plain GETs (every answer
  a 200), once with each player's ETag (every answer a 304).

`--code DIR` runs the site of another checkout of the project on the same database (a
version from before issue 40: no ETag, so no 304 figures).

`--browser` checks instead, in Debian's Chromium, that the panes' 自動更新 polls are
answered 304 while nothing changed: the screen (its panes in frames) without JavaScript
(the lower pane's <noscript> refresh) and with it, its socket kept closed (the script's
poll), both at 15 s; then a line is posted (both show it after their next poll), and the
script's poll is answered 503 once (its pane stays as it was). It prints the site's
answers to the lower pane, from its access log.

Targets (issue 40; 人狼式 as shipped on MariaDB, the same village, measured on this kind
of machine: lower pane 10.3 ms, top page 2.9 ms, 105 requests/s for 22 pollers): lower
pane ≤ 5.1 ms, top page ≤ 1.45 ms, ≥ 315 requests/s with 0 refused, an unchanged repeat
poll ≤ 1 ms. Run it on a quiet machine: others' work on two cores can double a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import (
    ROOT,
    Profiler,
    Site,
    day_two_village,
    idle_rate,
    insert_lines,
    session_cookie,
    setup_django,
    start_site,
)

LINES = 1000
POLLERS = 22
VILLAGER = 12  # a living villager (seat 22 was bitten on night 1)


def build() -> tuple[int, dict[int, str]]:
    """The village, and each living seat's session cookie."""
    from villages.models import Message

    village = day_two_village("ポーリング村")
    have = Message.objects.filter(village_id=village.id).count()
    rows = [
        Message(
            village_id=village.id,
            day=2,
            phase="day",
            kind="talk",
            seat_no=1 + n % 21,
            text=f"{n}番目の発言です。" * (1 + n % 4),
            volume=("normal", "strong", "weak")[n % 3],
        )
        for n in range(LINES - have)
    ]
    insert_lines(village.id, rows)
    cookies = {no: session_cookie(user) for no, user in village.users.items() if no != 22}
    return village.id, cookies


# --- One request at a time, as curl sees it ---------------------------------------------------


def curl(url: str, headers: list[str]) -> tuple[int, float, str]:
    """Status, total seconds and ETag of one request by curl."""
    command = ["curl", "-s", "-o", "/dev/null", "-D", "-", "-w", "%{http_code} %{time_total}"]
    for header in headers:
        command += ["-H", header]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    found = re.search(r"(?im)^etag: *(\S+)", out)
    status, seconds = out.strip().splitlines()[-1].split()
    return int(status), float(seconds), found[1] if found else ""


def floor(site: Site, runs: int) -> None:
    """A static file (the page's script, served by WhiteNoise before any view runs): what
    a request costs through the stack alone (a connection, daphne, the thread, the
    middleware)."""
    from django.templatetags.static import static

    url = site.url + static("villages/js/jinro.js")
    for _ in range(3):
        curl(url, [])
    cpu = site.cpu_seconds()
    times = [curl(url, [])[1] for _ in range(runs)]
    spent = site.cpu_seconds() - cpu
    print(
        f"  a static file (the stack alone)  : median {statistics.median(times) * 1000:6.2f} ms,"
        f"                     site CPU {spent / runs * 1000:5.2f} ms a request"
    )


def medians(site: Site, path: str, cookie: str, runs: int, label: str) -> None:
    """curl's medians, and the site's CPU per request (its threads' CPU time over the
    runs, less its idle rate: a figure others' work on the machine hardly moves)."""
    headers = [f"Cookie: sessionid={cookie}"] if cookie else []
    url = site.url + path
    sep = "&" if "?" in path else "?"
    _status, _s, etag = curl(url, headers)
    idle = idle_rate(site, 2.0)
    kinds = {
        "full render": lambda n: (f"{url}{sep}r={n}", headers, 200),
        "repeat 200": lambda n: (url, headers, 200),
        "unchanged poll (304)": lambda n: (url, [*headers, f"If-None-Match: {etag}"], 304),
    }
    if not etag:  # a site of before issue 40 (--code)
        print(f"  {label}: no ETag")
        del kinds["unchanged poll (304)"]
    kept = http.client.HTTPConnection("127.0.0.1", site.port, timeout=60)
    for name, request in kinds.items():
        for n in range(3):
            curl(*request(-1 - n)[:2])  # warm: this kind's first answers
        times = []
        cpu, started = site.cpu_seconds(), time.monotonic()
        for n in range(runs):
            where, sent, expected = request(n)
            status, seconds, _etag = curl(where, sent)
            assert status == expected, (status, name, path)
            times.append(seconds)
        spent = site.cpu_seconds() - cpu - idle * (time.monotonic() - started)
        alive = []  # the same over one kept-alive connection, as a browser polls
        for n in range(runs):
            where, sent, expected = request(runs + n)
            fields = dict(header.split(": ", 1) for header in sent)
            began = time.perf_counter()
            kept.request("GET", where.removeprefix(site.url), headers=fields)
            answer = kept.getresponse()
            answer.read()
            alive.append(time.perf_counter() - began)
            assert answer.status == expected, (answer.status, name, path)
        print(
            f"  {label}, {name:21}: median {statistics.median(times) * 1000:6.2f} ms"
            f" (kept alive {statistics.median(alive) * 1000:5.2f} ms),"
            f" site CPU {spent / runs * 1000:5.2f} ms a request"
        )
    kept.close()


# --- 22 pollers at once -----------------------------------------------------------------------

WRK_SCRIPT = """
local cookies = {%s}
local etags = {%s}
local n = 0
function setup(thread)
  n = n + 1
  thread:set("id", n)
end
local req = nil
function init(args)
  local headers = {Cookie = "sessionid=" .. cookies[id]}
  if etags[id] ~= "" then headers["If-None-Match"] = etags[id] end
  req = wrk.format("GET", nil, headers)
end
function request()
  return req
end
"""


def with_wrk(base: str, path: str, cookies: list[str], etags: list[str], seconds: int) -> tuple:
    """Requests per second, answers, refusals (non-2xx/3xx) of 22 wrk connections, one a
    thread, each with its player's cookie (and ETag)."""
    quoted = ",".join(f'"{c}"' for c in cookies)
    tags = ",".join(f"'{e}'" for e in etags)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % (quoted, tags))
    n = len(cookies)
    command = ["wrk", "-t", str(n), "-c", str(n), "-d", f"{seconds}s", "-s", script.name]
    out = subprocess.run([*command, base + path], capture_output=True, text=True).stdout
    os.unlink(script.name)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1])
    total = int(re.search(r"(\d+) requests in", out)[1])
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rate, total, int(bad[1]) if bad else 0


async def _poller(port: int, path: str, cookie: str, etag: str, until: float, counts: dict):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: sessionid={cookie}\r\n"
    if etag:
        head += f"If-None-Match: {etag}\r\n"
    request = (head + "\r\n").encode()
    while time.monotonic() < until:
        writer.write(request)
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        await reader.readexactly(length)
        counts[status] = counts.get(status, 0) + 1
    writer.close()


def with_python(port: int, path: str, cookies: list[str], etags: list[str], seconds: int):
    counts: dict[int, int] = {}

    async def run() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(_poller(port, path, c, e, until, counts) for c, e in zip(cookies, etags, strict=True))
        )

    started = time.monotonic()
    asyncio.run(run())
    total = sum(counts.values())
    refused = sum(n for status, n in counts.items() if status >= 400)
    return total / (time.monotonic() - started), total, refused


def pollers(
    work: Path,
    vid: int,
    cookies: dict[int, str],
    seconds: int,
    etags: bool,
    code: Path | None,
    profile: bool = False,
) -> None:
    site = start_site(work, code=code)  # just started: its first polls draw every pane cold
    try:
        path = f"/villages/{vid}/down/"
        seats = sorted(cookies)[:POLLERS]
        players = [cookies[no] for no in seats]
        # 21 living seats: the 22nd poller is the first player again, on its own connection.
        players = (players * 2)[:POLLERS]
        tags = [""] * POLLERS
        if etags:
            tags = [curl(site.url + path, [f"Cookie: sessionid={c}"])[2] for c in players]
            if not all(tags):
                print(f"  {POLLERS} pollers with their ETags: the site gives none")
                return
        tool = "wrk" if shutil.which("wrk") else "python"
        spy = Profiler(site, work / "profile.raw") if profile else contextlib.nullcontext()
        cpu0 = site.cpu_seconds()
        with spy:
            if tool == "wrk":
                rate, total, refused = with_wrk(site.url, path, players, tags, seconds)
            else:
                rate, total, refused = with_python(site.port, path, players, tags, seconds)
        busy = (site.cpu_seconds() - cpu0) / seconds * 100
        kind = "with their ETags (304s)" if etags else "plain GETs (200s)"
        print(
            f"  {POLLERS} pollers, {kind:23} ({tool}, {seconds} s): {rate:7.1f} requests/s,"
            f" {total} answered, {refused} refused (the site {busy:.0f}% of a core busy)"
        )
    finally:
        site.stop()


# --- In a browser -------------------------------------------------------------------------


def browser(work: Path, vid: int) -> None:
    from common import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    from villages.models import Village
    from villages.services import play

    seated = {s.seat_no: s.user for s in Village.objects.get(pk=vid).seats.all()}
    site = start_site(work, "--access-log")
    path = f"/villages/{vid}/down/"
    refresh = [{"name": "jinro_refresh", "value": "15", "url": site.url}]

    def shows(page, text: str) -> bool:
        lower = page.frame("lower")
        return lower is not None and text in lower.content()

    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            plain = chromium.new_context(java_script_enabled=False)
            scripted = chromium.new_context()
            for context in (plain, scripted):
                context.add_cookies(refresh)  # 自動更新 15 s, as a visitor's cookie
            noscript, script = plain.new_page(), scripted.new_page()
            script.route_web_socket("**/ws/**", lambda ws: ws.close())  # no socket: polls
            for page in (noscript, script):
                page.goto(f"{site.url}/villages/{vid}/")  # the screen, its panes in frames
            script.wait_for_timeout(34_000)  # two polls each, nothing changed
            play.post_message(village_id=vid, user=seated[4], text="BROWSER-POLL-LINE")
            script.wait_for_timeout(16_000)
            line = "BROWSER-POLL-LINE"
            print(f"  after a line: the no-script lower pane shows it {shows(noscript, line)},")
            print(f"                the scripted one shows it {shows(script, line)}")
            script.route(site.url + path, lambda route: route.fulfill(status=503, body="busy"))
            play.post_message(village_id=vid, user=seated[5], text="AFTER-A-REFUSAL")
            script.wait_for_timeout(16_000)
            kept = shows(script, line) and not shows(script, "busy")
            print(f"  its poll answered 503: the scripted pane kept its content {kept}")
            script.unroute(site.url + path)
            script.wait_for_timeout(16_000)
            print(f"  the next poll: it shows the new line {shows(script, 'AFTER-A-REFUSAL')}")
            chromium.close()
    finally:
        site.stop()
    log = site.log.read_text().splitlines()
    answers = [line.split('"')[1:3] for line in log if f' {path}"' in line]
    print(f"  the site's answers to {path} in order (GET: a page loaded, HEAD: a script's")
    print("  poll; the refused poll never reached the site):")
    for request, status in answers:
        print(f"    {request.split()[0]:4} {status.split()[0]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="only the 22 pollers, sampled with py-spy (PROFILE_GIL=1: the GIL's holder only)",
    )
    parser.add_argument(
        "--code", type=Path, help="run the site of this checkout (another version) instead"
    )
    args = parser.parse_args()
    work = setup_django()
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)  # this checkout's script
    vid, cookies = build()
    print(f"village {vid}: 22 seats, day 2, {LINES} lines on day 2")
    if args.browser:
        browser(work, vid)
        return
    if args.profile:
        for etags in (False, True):
            pollers(work, vid, cookies, args.seconds, etags, args.code, profile=True)
        return
    site = start_site(work, code=args.code)
    try:
        medians(site, f"/villages/{vid}/down/", cookies[VILLAGER], args.runs, "lower pane")
        medians(site, f"/villages/{vid}/down/", "", args.runs, "spectator ")
        medians(site, "/", "", args.runs, "top page  ")
        floor(site, args.runs)
    finally:
        site.stop()
    for etags in (False, True):
        pollers(work, vid, cookies, args.seconds, etags, args.code)
    print("targets: lower pane ≤ 5.1 ms, top page ≤ 1.45 ms, unchanged poll ≤ 1 ms,")
    print("         22 pollers ≥ 315 requests/s with 0 refused")


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
