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
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from common import Client, day_two_village, idle_rate, setup_django, start_site

SPEAKERS = list(range(11, 22))


def post(site, village, lines: int) -> tuple[float, int]:
    client = Client(site)
    for n in range(20):  # warm up
        client.post_line(village.id, village.tokens[SPEAKERS[n % 11]], f"準備{n}")
    idle = idle_rate(site, 2)
    cpu0, t0 = site.cpu_seconds(), time.monotonic()
    last = 0
    for n in range(lines):
        last = client.post_line(village.id, village.tokens[SPEAKERS[n % 11]], f"発言{n}です")
    elapsed = time.monotonic() - t0
    return ((site.cpu_seconds() - cpu0 - idle * elapsed) / lines * 1000), last


async def watch(site, village, seats: list[int], ready: asyncio.Event, done: asyncio.Event, last):
    import websockets

    async def one(seat: int) -> None:
        url = f"ws://127.0.0.1:{site.port}/ws/villages/{village.id}/?token={village.tokens[seat]}"
        async with websockets.connect(url, max_size=None, compression=None) as socket:
            await socket.recv()
            await socket.send('{"type":"ping"}')
            ready.count += 1  # type: ignore[attr-defined]
            async for raw in socket:
                frame = json.loads(raw)
                if frame["type"] == "message" and frame["message"]["id"] == last.get("id"):
                    last["got"] = last.get("got", 0) + 1
                if done.is_set():
                    return

    await asyncio.gather(*(one(seat) for seat in seats))


def with_sockets(site, village, count: int, lines: int) -> tuple[float, int]:
    seats = [1 + n % 22 for n in range(count)]
    ready, done, last = asyncio.Event(), asyncio.Event(), {}
    ready.count = 0  # type: ignore[attr-defined]
    loop = asyncio.new_event_loop()
    import threading

    thread = threading.Thread(
        target=lambda: loop.run_until_complete(watch(site, village, seats, ready, done, last)),
        daemon=True,
    )
    thread.start()
    while ready.count < count:  # type: ignore[attr-defined]
        time.sleep(0.05)
    per_line, last_id = post(site, village, lines)
    last["id"] = last_id
    # The last line may have arrived before its id was known here: ask again with one more.
    client = Client(site)
    last["id"] = client.post_line(village.id, village.tokens[11], "最後の発言")
    deadline = time.monotonic() + 20
    while last.get("got", 0) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    loop.call_soon_threadsafe(done.set)
    return per_line, last.get("got", 0)


def profile(site, village, lines: int, out: Path) -> None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("py-spy is not installed (pip install -e '.[bench]'): no profile")
        return
    command = [spy, "record", "--pid", str(site.popen.pid), "--rate", "1000", "--format", "raw"]
    recorder = subprocess.Popen(
        [*command, "--output", str(out), "--nonblocking"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.5)
    post(site, village, lines)
    recorder.send_signal(2)
    recorder.wait(30)
    report(out)


def report(raw: Path, top: int = 18) -> None:
    """Inclusive share of samples per function of the site's own code and Django's."""
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        frames = stack.split(";")
        if not any("villages" in f or "django" in f or "jinro_site" in f for f in frames):
            continue  # an idle thread of the reactor or the pool
        total += n
        seen = set()
        for frame in frames:
            name = frame.split(" (")[0]
            where = frame.split(" (")[-1]
            key = f"{name} ({where.split('/site-packages/')[-1].split('/work/main/')[-1]}"
            if key not in seen:
                inclusive[key] += n
                seen.add(key)
    print(f"profile: {total} samples of busy threads; functions by inclusive share:")
    for key, n in inclusive.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {key}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--sockets", type=int, nargs="*", default=[0, 22])
    parser.add_argument("--profile", action="store_true")
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
                per_line, got = with_sockets(site, village, count, args.lines)
                print(
                    f"{count} API sockets: {per_line:.2f} ms CPU per line "
                    f"({got}/{count} sockets got the last line)",
                    flush=True,
                )
        if args.profile:
            profile(site, village, args.lines, work / "post.raw")
    finally:
        site.stop()


if __name__ == "__main__":
    main()
