"""Posts under load (issue 14): V villages × 8 players, each player posting a line every
2 s through the API, one WebSocket per seat, for a few V; what got through and how fast.

    .venv/bin/python bench/load.py [--villages 10 25 50] [--seconds 20]      # embedded

    createdb -h 127.0.0.1 -U postgres jinro_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 .venv/bin/python bench/load.py --worker ...

The embedded default (no DATABASE_URL): one `manage.py runsite` process on a fresh SQLite
file with the in-memory channel layer and its sweep ticker, as `bin/run` starts it. With
DATABASE_URL and REDIS_URL: one daphne on PostgreSQL + Redis (`--worker` adds a Celery
worker and beat, as production runs them).

Each village is an 8-player game on day 2 (a wolf bit seat 8 on night 1): the seven
living players talk, the dead one talks in heaven. Each player posts every 2 s (offered
rate V × 4 posts/s), each over its own kept-alive HTTP connection, with a random phase.
A post that has no answer after 30 s counts as a timeout. Afterwards the database says
which posts committed: a committed post that was not answered 201 is "committed
unanswered"; a refused post (503/429) that committed anyway would count there too.
The sockets count the frames each line should bring (every living seat and the dead one
for a talk line, the dead one for heaven talk): a missing one is "lost".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import ROOT, Profiler, setup_django, start_celery, start_site, started_village

PLAYERS = 8
CAST = ["wolf", "wolf", "seer"] + ["villager"] * 5
BITTEN = 8
EVERY = 2.0  # seconds between two posts of one player
TIMEOUT = 30.0


@dataclass
class Village:
    id: int
    tokens: dict[int, str]  # seat_no -> API token


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)  # answered posts, any status
    statuses: Counter = field(default_factory=Counter)
    answered: set[tuple[int, str]] = field(default_factory=set)  # 201s: (village, text)
    timeouts: int = 0
    retry_after: int = 0  # refusals that said when to come back
    frames: Counter = field(default_factory=Counter)  # (village, text) -> frames received
    slow_refusals: int = 0  # 503/429 answered after more than a second


def build(count: int) -> list[Village]:
    from common import bench_users

    from accounts.services import profile_of
    from villages.services import play

    stamp = f"{os.getpid()}{int(time.time() * 1000) % 10**6}"
    villages = []
    for n in range(count):
        users = bench_users(f"ld{stamp}v{n}s", PLAYERS)
        village_id, seated = started_village(f"負荷村{n}", users, CAST)
        play.night_action(village_id=village_id, user=seated[1], action="attack", targets=[8])
        play.night_action(village_id=village_id, user=seated[3], action="divine", targets=[4])
        villages.append(
            Village(village_id, {no: profile_of(u).api_token for no, u in seated.items()})
        )
    return villages


async def http_post(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, token: str, body: bytes
) -> tuple[int, dict[str, str], bytes]:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Token {token}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        data = b""
        while size := int((await reader.readline()).strip(), 16):
            data += await reader.readexactly(size + 2)
        await reader.readline()
    else:
        data = await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers, data


async def player(run: Run, port: int, village: Village, seat: int, until: float) -> None:
    await asyncio.sleep(random.uniform(0, EVERY))
    channel = "heaven" if seat == BITTEN else "talk"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    path = f"/api/v1/villages/{village.id}/messages"
    n = 0
    next_at = time.monotonic()
    while next_at < until:
        n += 1
        body = json.dumps({"text": f"負荷{seat}-{n}", "channel": channel}).encode()
        sent = time.monotonic()
        try:
            status, headers, data = await asyncio.wait_for(
                http_post(reader, writer, path, village.tokens[seat], body), TIMEOUT
            )
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            run.timeouts += 1
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        else:
            took = time.monotonic() - sent
            run.latencies.append(took)
            run.statuses[status] += 1
            if status == 201:
                run.answered.add((village.id, json.loads(data)["text"]))
            elif status in (429, 503):
                run.retry_after += "retry-after" in headers
                run.slow_refusals += took > 1.0
            if headers.get("connection") == "close":
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
        next_at += EVERY
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    writer.close()


async def listen(run: Run, port: int, village: Village, seat: int, opened: list) -> None:
    import websockets

    url = f"ws://127.0.0.1:{port}/ws/villages/{village.id}/?token={village.tokens[seat]}"
    async with websockets.connect(
        url, origin="http://127.0.0.1", open_timeout=60, max_size=None, compression=None
    ) as socket:
        await socket.recv()  # the state
        opened.append(1)
        async for raw in socket:
            if raw.startswith('{"type":"message"'):
                run.frames[(village.id, json.loads(raw)["message"]["text"])] += 1


async def measure(port: int, villages: list[Village], seconds: float, sockets: bool = True) -> Run:
    run = Run()
    opened: list[int] = []
    listeners = [
        asyncio.create_task(listen(run, port, v, seat, opened))
        for v in villages
        for seat in (v.tokens if sockets else ())
    ]
    while len(opened) < len(listeners):
        await asyncio.sleep(0.1)
        if any(t.done() for t in listeners):
            raise SystemExit(
                f"a socket failed: {next(t for t in listeners if t.done()).exception()!r}"
            )
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(player(run, port, v, seat, until) for v in villages for seat in v.tokens)
    )
    await asyncio.sleep(3)  # the last frames
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    return run


def committed(villages: list[Village], since: int) -> dict[tuple[int, str], str]:
    """(village, text) -> kind of every line the players committed during the run (a
    player's texts are its own and numbered; a line's id is its viewer's number, the same
    in every village, so lines are told apart by what they say)."""
    from villages.models import Message

    rows = Message.objects.filter(
        village_id__in=[v.id for v in villages], pk__gt=since, kind__in=["talk", "heaven"]
    ).values_list("village_id", "text", "kind")
    return {(village, text): kind for village, text, kind in rows}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(
    v: int, seconds: float, run: Run, lines: dict[tuple[int, str], str], cpu: float
) -> dict[str, Any]:
    offered = v * PLAYERS / EVERY
    ok = run.statuses[201]
    unanswered = len(set(lines) - run.answered)
    expected = {mid: (PLAYERS if kind == "talk" else 1) for mid, kind in lines.items()}
    lost = sum(max(0, want - run.frames[mid]) for mid, want in expected.items())
    row = {
        "villages": v,
        "offered/s": round(offered),
        "committed/s": round(len(lines) / seconds, 1),
        "201": ok,
        "refused": run.statuses[429] + run.statuses[503],
        "500": sum(n for s, n in run.statuses.items() if s >= 500 and s != 503),
        "other": sum(n for s, n in run.statuses.items() if s not in (201, 429, 503) and s < 500),
        "timeouts": run.timeouts,
        "p50 ms": round(percentile(run.latencies, 0.50) * 1000, 1),
        "p99 ms": round(percentile(run.latencies, 0.99) * 1000, 1),
        "max ms": round(max(run.latencies, default=0) * 1000, 1),
        "refusals >1s": run.slow_refusals,
        "committed unanswered": unanswered,
        "frames lost": lost,
        "site CPU/s": round(cpu / seconds, 2),
    }
    print(" | ".join(f"{k} {val}" for k, val in row.items()), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--villages", type=int, nargs="+", default=[10, 25, 50])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--worker", action="store_true", help="a Celery worker and beat too")
    parser.add_argument("--profile", action="store_true", help="where the site's time goes")
    args = parser.parse_args()

    services = bool(os.environ.get("DATABASE_URL"))
    work = setup_django()
    from django.db import connection

    from villages.models import Message

    layout = "PostgreSQL + Redis" if services else "embedded default (SQLite, in-memory layer)"
    print(
        f"# bench/load.py — {layout}; {PLAYERS} players per village, a post each every "
        f"{EVERY:g} s, {args.seconds:g} s per run",
        flush=True,
    )
    extra = []
    if services and args.worker:
        extra = [
            start_celery(["worker", "--concurrency=1", "--pool=solo"], work / "worker.log"),
            start_celery(["beat", "--schedule", str(work / "beat")], work / "beat.log"),
        ]
    rows = []
    try:
        for v in args.villages:
            villages = build(v)
            since = Message.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            connection.close()
            site = start_site(work, ticker=not services)
            try:
                profile = Profiler(site, work / f"profile-{v}.txt") if args.profile else None
                with profile or contextlib.nullcontext():
                    cpu0 = site.cpu_seconds()
                    run = asyncio.run(measure(site.port, villages, args.seconds))
                    cpu = site.cpu_seconds() - cpu0
            finally:
                site.stop()
            rows.append(report(v, args.seconds, run, committed(villages, since), cpu))
            tracebacks = site.log.read_text(errors="replace").count("Traceback")
            if tracebacks:
                print(f"  {tracebacks} tracebacks in {site.log}", flush=True)
    finally:
        for process in extra:
            process.terminate()
    out = ROOT / "artifacts" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    name = "load-services.json" if services else "load-embedded.json"
    Path(out / name).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
