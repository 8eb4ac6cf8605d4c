"""What an idle site costs: its CPU a second with screens' sockets open on a village and
nothing said, thread by thread, in user and kernel time.

    .venv/bin/python bench/idle.py [--sockets 21] [--seconds 60] [--no-ticker] [--code DIR]

The site is `manage.py runsite` as a new user runs it (the embedded default, with the
deadline sweep's ticker unless --no-ticker; set DATABASE_URL and REDIS_URL for the
production layout, where Celery beat sweeps and the site runs no ticker). The sockets are
the game screen's (`?screen=1`, each logged in as a seat of a 22-seat village on day 2),
bench/wsclient.py's bare ones: after the screen is drawn they say nothing, as an open
browser tab says nothing. bench/live_screen.py --idle measures the same with Chromium.

The figures: the process's CPU a second (every thread's /proc schedstat, to the
nanosecond), its split between user and kernel time (/proc stat, in 10 ms ticks: use a
long window), each thread's share by its Python name (py-spy's dump, when installed), and
the same with no socket open. `--code DIR` runs the site of another checkout on the same
database (a version before, to compare). Target (issue 40): 21 screens ≤ 1 ms a second.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

from common import Site, day_two_village, setup_django, start_site, thread_shares

CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def user_and_kernel(site: Site) -> tuple[float, float]:
    """The process's user and kernel CPU seconds so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{site.popen.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICK, int(fields[12]) / CLOCK_TICK


def measure(site: Site, seconds: float, label: str) -> float:
    threads = site.thread_cpu()
    user0, kernel0 = user_and_kernel(site)
    cpu0, t0 = site.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - t0
    rate = (site.cpu_seconds() - cpu0) / elapsed * 1000
    user1, kernel1 = user_and_kernel(site)
    user, kernel = (user1 - user0) / elapsed * 1000, (kernel1 - kernel0) / elapsed * 1000
    print(
        f"{label}: {rate:.2f} ms of CPU a second (user {user:.2f}, kernel {kernel:.2f} "
        "in 10 ms ticks)",
        flush=True,
    )
    print(thread_shares(site, threads, elapsed), flush=True)
    return rate


async def hold(site: Site, village_id: int, tokens: list[str], seconds: float) -> None:
    import wsclient

    drawn = [asyncio.get_running_loop().create_future() for _ in tokens]

    def on_text(n: int):
        def seen(raw: bytes, now: float) -> None:
            if not drawn[n].done():
                drawn[n].set_result(None)

        return seen

    url = site.url.replace("http", "ws") + f"/ws/villages/{village_id}/"
    sockets = []
    for n, token in enumerate(tokens):
        socket = await wsclient.connect(
            f"{url}?token={token}&screen=1", on_text(n), "http://127.0.0.1"
        )
        socket.send_text('{"type":"hello","after":null,"parts":{}}')
        sockets.append(socket)
    await asyncio.wait_for(asyncio.gather(*drawn), 60)
    await asyncio.sleep(3)  # the screens drawn and sent
    await asyncio.to_thread(measure, site, seconds, f"{len(tokens)} screens open, nothing said")
    for socket in sockets:
        socket.close()
    await asyncio.gather(*(socket.closed for socket in sockets), return_exceptions=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=21)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--no-ticker", action="store_true", help="as bench/live_screen.py runs")
    parser.add_argument("--code", type=Path, help="run the site of this checkout instead")
    args = parser.parse_args()
    work = setup_django()
    village = day_two_village()
    site = start_site(work, ticker=not args.no_ticker, code=args.code)
    try:
        time.sleep(3)
        measure(site, args.seconds, "no socket open")
        tokens = [village.tokens[no] for no in sorted(village.tokens)][: args.sockets]
        asyncio.run(hold(site, village.id, tokens, args.seconds))
    finally:
        site.stop()


if __name__ == "__main__":
    main()
