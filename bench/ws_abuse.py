"""One client flooding sockets must not slow the others (issue 14).

    .venv/bin/python bench/ws_abuse.py [--lines 500] [--sockets 5] [--resumes 100]

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 .venv/bin/python bench/ws_abuse.py

A village on day 2 with `--lines` lines; the site (`manage.py runsite`, the embedded
default or, with DATABASE_URL and REDIS_URL, daphne on PostgreSQL + Redis). Another client
GETs the village's state over and over: its median time alone, then while `--sockets`
anonymous sockets each send `--resumes` × `{"type":"resume","after":0}` as fast as they
can, over the same window from the flood's start. Run twice: with the socket limits (the
default), and with JINRO_RATE_LIMIT_ENABLED=0 (no limit). Target: the median moves by at
most 20 %.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import statistics
import threading
import time

from common import day_two_village, setup_django, start_site


def gets(port: int, path: str, stop: threading.Event, out: list[float]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        started = time.perf_counter()
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        out.append(time.perf_counter() - started)


def timed_gets(port: int, path: str, seconds: float) -> list[float]:
    out: list[float] = []
    stop = threading.Event()
    thread = threading.Thread(target=gets, args=(port, path, stop, out))
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    return out


async def flood(port: int, village_id: int, resumes: int) -> tuple[int, int | None, float]:
    """(frames received, close code or None, when the last frame came) of one socket."""
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/villages/{village_id}/"
    frames, code, last = 0, None, time.monotonic()
    async with websockets.connect(
        url, origin="http://127.0.0.1", max_size=None, compression=None
    ) as socket:
        for _ in range(resumes):
            try:
                await socket.send('{"type":"resume","after":0}')
            except websockets.ConnectionClosed:
                break
        try:
            while True:
                await asyncio.wait_for(socket.recv(), 10)
                frames, last = frames + 1, time.monotonic()
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
        except TimeoutError:
            pass
    return frames, code, last


def run(work, village_id: int, args, env: dict[str, str]) -> dict:
    site = start_site(work, env=env)
    path = f"/api/v1/villages/{village_id}/state"
    try:
        timed_gets(site.port, path, 2)  # warm
        alone = timed_gets(site.port, path, args.seconds)
        results: list[tuple[int, int | None, float]] = []
        done: list[float] = []

        def flooding() -> None:
            async def all_floods():
                return await asyncio.gather(
                    *(flood(site.port, village_id, args.resumes) for _ in range(args.sockets))
                )

            started = time.monotonic()
            results.extend(asyncio.run(all_floods()))
            done.append(max(last for *_, last in results) - started)

        flooder = threading.Thread(target=flooding)
        flooder.start()
        during = timed_gets(site.port, path, args.seconds)  # the same window, from its start
        flooder.join()
    finally:
        site.stop()
    row = {
        "GET state p50 alone ms": round(statistics.median(alone) * 1000, 2),
        "p50 during flood ms": round(statistics.median(during) * 1000, 2),
        "max during ms": round(max(during) * 1000, 1),
        "flood answered in s": round(done[0], 1),
        "frames to the flood": sum(f for f, *_ in results),
        "closed 4429": sum(code == 4429 for _, code, _ in results),
    }
    row["p50 change %"] = round(
        100 * (row["p50 during flood ms"] / row["GET state p50 alone ms"] - 1), 1
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--sockets", type=int, default=5)
    parser.add_argument("--resumes", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()

    work = setup_django()
    from django.db import connection

    from villages.services import play

    village = day_two_village("乱用村")
    for n in range(args.lines):
        seat = 11 + n % 11
        play.post_message(village_id=village.id, user=village.users[seat], text=f"行{n}")
    connection.close()
    layout = "PostgreSQL + Redis" if os.environ.get("REDIS_URL") else "embedded default"
    print(
        f"# bench/ws_abuse.py — {layout}; {args.lines} lines, {args.sockets} sockets × "
        f"{args.resumes} resumes after=0"
    )
    for name, env in (
        ("socket limits on", {"JINRO_RATE_LIMIT_ENABLED": "1"}),
        ("no limit (before)", {"JINRO_RATE_LIMIT_ENABLED": "0"}),
    ):
        row = run(work, village.id, args, env)
        print(f"{name:18} " + " | ".join(f"{k} {v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
