"""The fixed cost of a request: pages and files over HTTP through daphne, against the same
views called in-process.

    .venv/bin/python bench/request_path.py [--requests 300]

A 22-seat village on day 2 (bench/common.py); the site (`manage.py runsite`, serving its
own static files) answers /healthz, a static SVG, the top page and a living seat's lower
pane, one request after another on a kept-alive connection. For each: the median time of a
request as the client sees it, and the site's CPU per request (less idle); then the same
pages through Django's test client in this process (no server, no thread hop).
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import Client, day_two_village, idle_rate, session_cookie, setup_django, start_site


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    work = setup_django()
    village = day_two_village()
    user = village.users[12]
    cookie = session_cookie(user)
    site = start_site(work)
    paths = [
        ("/healthz", "", None),
        ("/static/villages/icons/silver-moon.svg", "", None),
        ("/", "", None),
        (f"/villages/{village.id}/down/", cookie, user),
    ]
    try:
        print(f"{'path':42} {'HTTP median':>12} {'site CPU':>10} {'in-process':>11}")
        for path, cookie_value, who in paths:
            latency, cpu = over_http(site, path, cookie_value, args.requests)
            local = in_process(path, who, args.requests) if not path.startswith("/static") else 0
            shown = f"{local:9.2f} ms" if local else "        —"
            print(f"{path:42} {latency:9.2f} ms {cpu:7.2f} ms {shown}", flush=True)
    finally:
        site.stop()


if __name__ == "__main__":
    main()
