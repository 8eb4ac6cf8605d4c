"""The site's CPU per posted line with nobody watching (and with bare API sockets), and a
profile of where it goes.

    .venv/bin/python bench/post_cpu.py [--lines 400] [--sockets 0 22] [--profile]

A 22-seat village on day 2 (as bench/live_screen.py); lines are POSTed to
/api/v1/villages/<id>/messages through daphne (`manage.py runsite`) one after another,
by the living seats in turn. CPU is the site process's, less its idle rate. With
`--sockets N`, N API sockets (`?token=`, one per seat) watch the village, and each must have
received the last line. `--profile` samples the site with py-spy while posting (all threads,
`pip install -e ".[bench]"`) and prints where the time of a post goes. Target (issue 9):
≤ 5 ms of server CPU per line with nobody watching.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from common import Client, Profiler, day_two_village, idle_rate, setup_django, start_site

SPEAKERS = list(range(11, 22))


def post(site, village, lines: int) -> tuple[float, int]:
    """CPU per line (ms, less idle), and the last line's id; prints the event loop's share
    (the main thread: HTTP and sockets; the rest is the request threads')."""
    client = Client(site)
    for n in range(20):  # warm up
        client.post_line(village.id, village.tokens[SPEAKERS[n % 11]], f"準備{n}")
    idle = idle_rate(site, 2)
    cpu0, loop0, t0 = site.cpu_seconds(), site.main_thread_cpu_seconds(), time.monotonic()
    last = 0
    for n in range(lines):
        last = client.post_line(village.id, village.tokens[SPEAKERS[n % 11]], f"発言{n}です")
    elapsed = time.monotonic() - t0
    loop = (site.main_thread_cpu_seconds() - loop0) / lines * 1000
    print(f"  (the event loop's share: {loop:.2f} ms a line)", flush=True)
    return ((site.cpu_seconds() - cpu0 - idle * elapsed) / lines * 1000), last


async def watch(
    site, village, seats: list[int], seen: dict[int, int], done: asyncio.Event, screen: bool
):
    import websockets

    async def one(n: int, seat: int) -> None:
        url = f"ws://127.0.0.1:{site.port}/ws/villages/{village.id}/?token={village.tokens[seat]}"
        if screen:
            url += "&screen=1"
        async with websockets.connect(url, max_size=None, compression=None) as socket:
            if screen:  # a screen that says it shows nothing: its first frame draws it all
                await socket.send(json.dumps({"type": "hello", "after": 0, "parts": {}}))
            await socket.recv()
            if not screen:
                await socket.send('{"type":"ping"}')
            seen[n] = 0
            while not done.is_set():
                try:
                    raw = await asyncio.wait_for(socket.recv(), 0.5)
                except TimeoutError:
                    continue
                frame = json.loads(raw)
                if frame["type"] == "message":
                    seen[n] = max(seen[n], frame["message"]["id"])
                for line in frame.get("lines", []):
                    seen[n] = max(seen[n], line[0])

    await asyncio.gather(*(one(n, seat) for n, seat in enumerate(seats)))


class Watchers:
    """`count` API sockets (one per seat, round the table) in a thread of their own."""

    def __init__(self, site, village, count: int, screen: bool = False) -> None:
        import threading

        self.count, self.seen, self.done = count, {}, asyncio.Event()
        seats = [1 + n % 21 for n in range(count)]  # the living seats
        loop = asyncio.new_event_loop()
        self.loop = loop
        self.thread = threading.Thread(
            target=lambda: loop.run_until_complete(
                watch(site, village, seats, self.seen, self.done, screen)
            ),
            daemon=True,
        )
        self.thread.start()
        while len(self.seen) < count:
            time.sleep(0.05)

    def got(self, last: int, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            n = sum(1 for v in self.seen.values() if v >= last)
            if n == self.count:
                return n
            time.sleep(0.05)
        return sum(1 for v in self.seen.values() if v >= last)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.done.set)
        self.thread.join(10)


def with_sockets(site, village, count: int, lines: int, screen: bool) -> tuple[float, int]:
    watchers = Watchers(site, village, count, screen)
    per_line, last = post(site, village, lines)
    got = watchers.got(last)
    watchers.stop()
    return per_line, got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--sockets", type=int, nargs="*", default=[0, 22])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--screen", action="store_true", help="game-screen sockets, not API ones")
    args = parser.parse_args()
    work = setup_django()
    village = day_two_village()
    site = start_site(work)
    try:
        for count in args.sockets:
            if count == 0:
                per_line, _ = post(site, village, args.lines)
                print(f"nobody watching: {per_line:.2f} ms CPU per line", flush=True)
            else:
                per_line, got = with_sockets(site, village, count, args.lines, args.screen)
                kind = "screen" if args.screen else "API"
                print(
                    f"{count} {kind} sockets: {per_line:.2f} ms CPU per line "
                    f"({got}/{count} sockets got the last line)",
                    flush=True,
                )
        if args.profile:
            last = args.sockets[-1]
            watchers = Watchers(site, village, last, args.screen) if last else None
            with Profiler(site, work / "post.raw"):
                post(site, village, args.lines)
            if watchers is not None:
                watchers.stop()
    finally:
        site.stop()


if __name__ == "__main__":
    main()
