"""Does a site leave memory behind? Health checks and sockets that come and go, on Redis.

    createdb -h 127.0.0.1 -U postgres jinro_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 SECRET_KEY=bench ALLOWED_HOSTS=127.0.0.1 \\
        .venv/bin/python bench/memory.py [--health 10000] [--sockets 1000]

The site is `manage.py runsite --no-ticker` (one daphne: the production layout). First 100
health checks and 100 sockets (each connects to a village, reads its first frame and goes;
a third of them as a screen, a third with a token as a player), then the RSS; then
`--health` health checks and `--sockets` sockets in the same way, the sockets in batches
of 20 at once; then the RSS again, after a short pause. Issue 40's target: the second
within 10 % of the first. (Before issue 40 each health check went through a throwaway
event loop that left its channel-layer state behind: 18.8 KiB each.)
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import sys
import time

from common import CAST, bench_users, setup_django, start_site, started_village


def health_checks(port: int, n: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(n):
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            sys.exit(f"/healthz answered {response.status}")


async def sockets(port: int, village_id: int, tokens: list[str], n: int, batch: int = 20) -> None:
    import websockets

    async def one(k: int) -> None:
        query = ["screen=1"] if k % 3 == 1 else []
        if k % 3 == 2:
            query.append(f"token={tokens[k % len(tokens)]}")
        url = f"ws://127.0.0.1:{port}/ws/villages/{village_id}/?{'&'.join(query)}"
        async with websockets.connect(url, origin=f"http://127.0.0.1:{port}") as ws:
            if k % 3 == 1:
                await ws.send('{"type": "hello", "parts": {}, "marks": "", "lang": "ja"}')
            await asyncio.wait_for(ws.recv(), 10)

    for start in range(0, n, batch):
        await asyncio.gather(*(one(k) for k in range(start, min(n, start + batch))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--health", type=int, default=10_000)
    parser.add_argument("--sockets", type=int, default=1_000)
    args = parser.parse_args()
    for name in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"{name} must be set (see the docstring)")
    work = setup_django()
    from accounts.services import profile_of

    users = bench_users("bench-memory", 22)
    village_id, _seats = started_village("メモリ村", users, CAST)
    tokens = [profile_of(u).api_token for u in users]
    site = start_site(work)
    try:
        health_checks(site.port, 100)
        asyncio.run(sockets(site.port, village_id, tokens, 100))
        time.sleep(2)
        first = site.rss_mib()
        print(f"after 100 health checks and 100 sockets: RSS {first:.1f} MiB", flush=True)
        began = time.monotonic()
        health_checks(site.port, args.health)
        asyncio.run(sockets(site.port, village_id, tokens, args.sockets))
        took = time.monotonic() - began
        time.sleep(2)
        last = site.rss_mib()
        print(
            f"after {args.health} more health checks and {args.sockets} more sockets"
            f" ({took:.0f} s): RSS {last:.1f} MiB, {100 * (last - first) / first:+.1f} %"
            f" (target: within 10 %)"
        )
    finally:
        site.stop()


if __name__ == "__main__":
    main()
