"""The fixed cost of a request: pages and files over HTTP through daphne, against the same
views called in-process; or two versions of the site, A/B, in one run.

    .venv/bin/python bench/request_path.py [--requests 300]
    .venv/bin/python bench/request_path.py --code /path/to/other/checkout . [--rounds 4]

A 22-seat village on day 2 (bench/common.py), and an ended village of 300 lines; the site
(`manage.py runsite`, serving its own static files) answers /healthz, a static SVG, the top
page, a living seat's lower pane and the past log, one request after another on a
kept-alive connection. For each: the median time of a request as the client sees it, and
the site's CPU per request (less idle); then the same pages through Django's test client
in this process (no server, no thread hop).

With `--code A B ...` (checkouts of the site, each with its static files collected), the
sites take turns on the same database: `--rounds` rounds, in each of which every version
serves `--requests / --rounds` requests of each path, so that the machine's drift from
minute to minute falls on all of them alike; the figures are the medians of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from common import (
    ROOT,
    Client,
    day_two_village,
    idle_rate,
    session_cookie,
    setup_django,
    start_site,
)


def over_http(site, path: str, cookie: str, requests: int) -> tuple[float, float]:
    client = Client(site)
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
    for _ in range(20):
        client.request("GET", path, headers=headers)
    idle = idle_rate(site, 1.5)
    times = []
    cpu0, t0 = site.cpu_seconds(), time.monotonic()
    for _ in range(requests):
        start = time.perf_counter()
        status, _body = client.request("GET", path, headers=headers)
        times.append(time.perf_counter() - start)
        assert status == 200, (path, status)
    cpu = site.cpu_seconds() - cpu0 - idle * (time.monotonic() - t0)
    return statistics.median(times) * 1000, cpu / requests * 1000


def in_process(path: str, user, requests: int) -> float:
    from django.test import Client as DjangoClient

    client = DjangoClient(HTTP_HOST="127.0.0.1")
    if user is not None:
        client.force_login(user)
    for _ in range(20):
        client.get(path)
    times = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (path, response.status_code)
    return statistics.median(times) * 1000


def ended_village() -> int:
    """A 22-seat village with 300 lines, ended by the staff: a past log to read."""
    from villages.services import lifecycle, play

    village = day_two_village("過去ログ村")
    for n in range(300):
        seat = 11 + n % 11
        play.post_message(village_id=village.id, user=village.users[seat], text=f"過去の発言{n}")
    lifecycle.end_village(village_id=village.id)
    return village.id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--code", type=Path, nargs="+", default=None)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    work = setup_django()
    village = day_two_village()
    past = ended_village()
    user = village.users[12]
    cookie = session_cookie(user)
    paths = [
        ("/healthz", "", None),
        ("/static/villages/icons/silver-moon.svg", "", None),
        ("/", "", None),
        (f"/villages/{village.id}/down/", cookie, user),
        (f"/villages/{past}/log/", "", None),
    ]
    if args.code:
        compare(work, [c.resolve() for c in args.code], paths, args.requests, args.rounds)
        return
    site = start_site(work)
    try:
        print(f"{'path':42} {'HTTP median':>12} {'site CPU':>10} {'in-process':>11}")
        for path, cookie_value, who in paths:
            latency, cpu = over_http(site, path, cookie_value, args.requests)
            local = in_process(path, who, args.requests) if not path.startswith("/static") else 0
            shown = f"{local:9.2f} ms" if local else "        —"
            print(f"{path:42} {latency:9.2f} ms {cpu:7.2f} ms {shown}", flush=True)
    finally:
        site.stop()


def compare(work, codes: list[Path], paths, requests: int, rounds: int) -> None:
    """The versions in turn, round after round (see the module's text)."""
    figures: dict[tuple[Path, str], list[tuple[float, float]]] = {}
    for round_no in range(rounds):
        for code in codes if round_no % 2 == 0 else list(reversed(codes)):
            site = start_site(work, code=code)
            try:
                for path, cookie_value, _who in paths:
                    measured = over_http(site, path, cookie_value, max(1, requests // rounds))
                    figures.setdefault((code, path), []).append(measured)
            finally:
                site.stop()
        print(f"  round {round_no + 1} of {rounds} done", flush=True)
    names = [str(c) if c != ROOT else f"{c} (this)" for c in codes]
    print(f"{'path':42} " + " ".join(f"{'median / CPU':>22}" for _ in codes))
    print(f"{'':42} " + " ".join(f"{n[-22:]:>22}" for n in names))
    for path, _cookie, _who in paths:
        row = []
        for code in codes:
            got = figures[(code, path)]
            latency = statistics.median(m for m, _c in got)
            cpu = statistics.median(c for _m, c in got)
            row.append(f"{latency:8.2f} / {cpu:6.2f} ms")
        print(f"{path:42} " + " ".join(f"{r:>22}" for r in row), flush=True)


if __name__ == "__main__":
    main()
