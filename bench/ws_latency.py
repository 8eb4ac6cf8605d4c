"""Post → frame latency over real WebSockets: V villages × 22 sockets, one line per village
every 5 s, for V = 10, 50, 200 (issue 5; target p99 ≤ 200 ms at V = 200, nothing lost).

    createdb -h 127.0.0.1 -U postgres jinro_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 SECRET_KEY=bench ALLOWED_HOSTS=127.0.0.1 \\
        .venv/bin/python bench/ws_latency.py [--villages 10 50 200] [--seconds 60] \\
            [--post-via http|service] [--socket-nodes N] [--post-nodes N] [--screen]
            [--client bare|websockets]

Use a database and a Redis database of the bench's own: it migrates the database and adds
bench users and villages to it (its earlier bench villages are deleted first).

What runs, all on this machine: daphne (`manage.py runsite --no-ticker`: the production
layout, Redis pub/sub layer) holding every socket; this client process; and whatever
posts:

* `--post-via http` (default): the players' POST /api/v1/villages/{id}/messages, to a
  second daphne process (a second node behind the load balancer); the line is pushed
  from there, on commit, through Redis.
  `--post-nodes N` spreads the POSTs over N such daphnes, as N posting nodes would:
  a village's POSTs to its own node (`--routing village`, as deploy/nginx routes them),
  or each to any node (`--routing random`).
* `--post-via service`: a separate process calls the posting service directly, as a
  Celery worker or a bot inside the site would: the same commit and push, without the
  HTTP request around them.

The villages are 22-player games at night 1 (a fixed cast with three wolves): each post
is a wolf's line, which its village's 22 sockets receive as the wolf line (wolves) or a
howl (everyone else): per-audience frames, computed per viewer as always, with the
fresh state (a wolf's line costs virtual time).

Latency: from just before the post (the HTTP request, or the service call) to the
arrival of the message frame at each socket of its village, on one monotonic clock. The
sockets are bench/wsclient.py's: a frame arrives when this client reads its bytes, and
costs this client a fraction of what the `websockets` library's did (`--client
websockets`: when its `recv` returns the frame, as the bench measured before stop 27).
A frame that has not arrived 10 s after the last post counts as lost. This client
raises its GC thresholds like the server does, so that its own pauses don't count, and
posts on its own event loop, each POST when its time comes, as independent players would.

Before the measured run, a warm-up round posts one line per village to each posting node
at the same rate (a node's first line of a village builds that village's caches there:
about six times the CPU of a later line); its figures are printed on their own line, and
`--no-warm-up` measures from the first line as the bench did before stop 25. While
posting, the machine's CPU and CPU pressure (/proc/pressure/cpu) are sampled, and the
pressure during the slowest POSTs is set beside the pressure during the others.
Issue 9's target at V = 200: p99 ≤ 50 ms, nothing lost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from common import (
    CAST,
    PLAYERS,
    ROOT,
    RULES_ENV,
    Profiler,
    Site,
    bench_users,
    start_site,
    started_village,
)

WOLF_SEATS = (1, 2, 3)
PROCESS_NAMES: dict[int, str] = {}  # pid -> the report's name, for Machine.busiest
POST_EVERY = 5.0
NAME = "bench-ws"


def setup_django() -> None:
    for name in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"{name} must be set (see the docstring)")
    os.environ.update({k: v for k, v in RULES_ENV.items() if k not in ("DEBUG",)})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")
    import django

    django.setup()


def gc_thresholds() -> tuple[int, int, int]:
    from jinro_site.runtime import gc_thresholds

    return gc_thresholds()


# --- Setup: users and villages, through the services -----------------------------------------


@dataclass
class Village:
    id: int
    tokens: dict[int, str]  # seat_no -> API token
    wolves: dict[int, int]  # seat_no -> user id


def reuse_villages(count: int) -> list[Village]:
    """The villages an earlier run built, if there are enough (their clocks never run out)."""
    from accounts.models import Profile
    from villages.models import Seat
    from villages.models import Village as VillageRow

    rows = list(VillageRow.objects.filter(name=NAME, phase="night", day=1).order_by("id")[:count])
    if len(rows) < count:
        return []
    seats = Seat.objects.filter(village__in=rows, kicked=False).values_list(
        "village_id", "seat_no", "user_id"
    )
    by_village: dict[int, dict[int, int]] = {}
    for village_id, seat_no, user_id in seats:
        by_village.setdefault(village_id, {})[seat_no] = user_id
    tokens = dict(Profile.objects.values_list("user_id", "api_token"))
    print(f"  reusing {count} villages of an earlier run", flush=True)
    return [
        Village(
            row.pk,
            {no: tokens[uid] for no, uid in by_village[row.pk].items()},
            {no: by_village[row.pk][no] for no in WOLF_SEATS},
        )
        for row in rows
    ]


def build_villages(count: int) -> list[Village]:
    from django.core.management import call_command

    from accounts.models import Profile
    from villages.models import Village as VillageRow
    from villages.services import push

    call_command("migrate", verbosity=0, interactive=False)
    if reused := reuse_villages(count):
        return reused
    VillageRow.objects.filter(name=NAME).delete()
    publish, push.publish = push.publish, lambda *args, **kwargs: None  # nobody listens yet
    users = bench_users("bench", count * PLAYERS)
    with_profile = set(Profile.objects.filter(user__in=users).values_list("user_id", flat=True))
    Profile.objects.bulk_create([Profile(user=u) for u in users if u.pk not in with_profile])
    tokens = dict(Profile.objects.filter(user__in=users).values_list("user_id", "api_token"))
    villages = []
    for v in range(count):
        village_id, seated = started_village(NAME, users[v * PLAYERS : (v + 1) * PLAYERS], CAST)
        villages.append(
            Village(
                village_id,
                {s: tokens[u.pk] for s, u in seated.items()},
                {s: seated[s].pk for s in WOLF_SEATS},
            )
        )
        if (v + 1) % 20 == 0:
            print(f"  {v + 1}/{count} villages ready", flush=True)
    push.publish = publish
    return villages


# --- The site's processes ----------------------------------------------------------------------


class Process:
    """A process of the bench's own (the service poster): its CPU, like the site's."""

    def __init__(self, popen: subprocess.Popen) -> None:
        self.popen = popen

    cpu_seconds = Site.cpu_seconds
    stop = Site.stop


def start_daphne(log_dir: Path, gc_thresholds: str | None = None) -> Site:
    """A daphne of the site; `gc_thresholds`: its GC_THRESHOLDS (docs/operations.md), else
    the default."""
    return start_site(log_dir, env={"GC_THRESHOLDS": gc_thresholds} if gc_thresholds else None)


# --- Posting ---------------------------------------------------------------------------------


def schedule(villages: list[Village], seconds: float, start: float) -> list[tuple[float, int]]:
    """(when, village index): a line per village every POST_EVERY s, spread evenly."""
    plan = []
    for i in range(len(villages)):
        at = start + POST_EVERY * i / len(villages)
        while at < start + seconds:
            plan.append((at, i))
            at += POST_EVERY
    return sorted(plan)


def warm_up_plan(villages: list[Village], nodes: int, start: float) -> list[tuple[float, int]]:
    """(when, village index): a line per village to each posting node in turn, at the
    measured rate. POSTs go to node n % nodes for the n-th of the plan, so each village's
    k-th warm-up line goes to node k."""
    count = len(villages) * nodes
    step = POST_EVERY / len(villages)
    order = sorted(range(count), key=lambda n: (n % nodes, n // nodes))
    return [(start + step * rank, n // nodes) for rank, n in enumerate(order)]


class Posters:
    """The players' POSTs, on this client's event loop (no thread: threads waiting for the
    GIL had stalled the loop that times the frames), over HTTP/1.1 connections kept alive
    to each posting daphne, as nginx keeps its upstream connections (deploy/nginx:
    `keepalive`); with `fresh`, a new connection per POST (the bench's way before stop 24)."""

    def __init__(self, bases: list[str], fresh: bool = False) -> None:
        self.fresh = fresh
        self.free: dict[str, list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {
            b: [] for b in bases
        }

    async def post(self, base: str, village: Village, seat: int, text: str) -> int:
        """Post a line; a refusal for load (503) is tried again after its Retry-After."""
        body = json.dumps({"text": text, "channel": "talk"}).encode()
        head = (
            f"POST /api/v1/villages/{village.id}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Token {village.tokens[seat]}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            + ("Connection: close\r\n" if self.fresh else "")
            + "\r\n"
        ).encode()
        for _ in range(5):
            status, headers, data = await self._exchange(base, head + body)
            if status != 503:
                break
            await asyncio.sleep(float(headers.get("retry-after") or 1))
        if status != 201:
            raise RuntimeError(f"{status} {data[:300]!r}")
        return json.loads(data)["id"]

    async def _exchange(self, base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
        free = self.free[base]
        for attempt in range(2):
            if free and attempt == 0:
                reader, writer = free.pop()
            else:
                host, port = base.removeprefix("http://").rsplit(":", 1)
                reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(request)
            status_line = await reader.readline()
            if status_line:
                break
            writer.close()  # closed while idle: the site had not read the request
        else:
            raise ConnectionError("the posting daphne closed the connection")
        headers = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await reader.readline()).split(b";")[0], 16):
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            await reader.readline()
            data = b"".join(chunks)
        else:
            data = await reader.readexactly(int(headers.get("content-length", "0")))
        if self.fresh or headers.get("connection", "").lower() == "close":
            writer.close()
        else:
            free.append((reader, writer))
        return int(status_line.split()[1]), headers, data


def service_poster() -> None:
    """`--poster`: read a plan on stdin, post through the service, report on stdout."""
    setup_django()

    from django.contrib.auth import get_user_model

    from villages.services import play

    gc.set_threshold(*gc_thresholds())  # as a daphne of the site does
    print("ready", flush=True)
    job = json.loads(sys.stdin.readline())
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=job["users"])}
    for n, (at, village_id, user_id) in enumerate(job["plan"]):
        time.sleep(max(0.0, at - time.monotonic()))
        sent = time.monotonic()
        try:
            post = partial(play.post_message, village_id=village_id, user=users[user_id])
            posted = post(text=f"遠吠え{n}")  # it pushes from this thread, as a task does
            print(f"sent {village_id} {posted.number} {sent!r}", flush=True)
        except Exception as error:
            print(f"error {error!r}", flush=True)
    print("done", flush=True)


# --- The measurement ---------------------------------------------------------------------------


@dataclass
class Run:
    villages: list[Village]
    socket_urls: list[str]
    seconds: float
    screen: bool = False
    bare: bool = True  # bench/wsclient.py's sockets, or (False) the `websockets` library's
    # A line is (village, id): an id is the number viewers know the line by, in its village.
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # line -> when posted
    arrived: dict[tuple[int, int], list[float]] = field(default_factory=dict)  # -> arrivals
    answers: list[float] = field(default_factory=list)  # HTTP POST round trips
    errors: list[str] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # this client's loop, late by (s)
    slowest: list[tuple[float, float, float]] = field(default_factory=list)  # answer, at, sent
    machine: Machine | None = None
    warm_up: str = ""  # the warm-up round's figures, printed with the run's
    started: float = 0.0  # time.monotonic() at the first POST (to match other logs)

    def latencies(self) -> list[float]:
        """Every frame's post → frame time (ms) of the lines posted so far."""
        return [
            (t - self.sent[i]) * 1000
            for i, times in self.arrived.items()
            if i in self.sent
            for t in times
        ]

    def end_warm_up(self) -> None:
        """Keep the warm-up round's figures aside and start counting afresh."""
        ms = self.latencies() or [float("nan")]
        answers = [x * 1000 for x in self.answers] or [float("nan")]
        lost = PLAYERS * len(self.sent) - len(self.latencies())
        self.warm_up = (
            f"warm-up round ({len(self.sent)} posts, each village's first line on each "
            f"posting node: cold caches there): post → frame ms p50 "
            f"{statistics.median(ms):.1f}  p99 {percentile(ms, 0.99):.1f}  max {max(ms):.1f}; "
            f"POST answer p99 {percentile(answers, 0.99):.1f}; lost {lost}, "
            f"errors {len(self.errors)}"
        )
        for key in self.sent:
            self.arrived.pop(key, None)
        self.sent.clear()
        self.answers.clear()
        self.slowest.clear()
        self.errors.clear()


class Machine:
    """The whole machine, sampled every 20 ms in a thread of its own: its CPU time busy and
    its CPU pressure (/proc/pressure/cpu "some": time in which a runnable task waited for a
    core), so that a slow POST can be set beside what the machine did meanwhile."""

    EVERY = 0.02

    def __init__(self, who: bool = False) -> None:
        self.samples: list[tuple[float, float, float, float]] = []  # at, waited, busy, all (s)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.tick = os.sysconf("SC_CLK_TCK")
        # With `who`, every process's CPU too, every 5th sample: at, {(pid, name): seconds}.
        self.who = who
        self.processes: list[tuple[float, dict[tuple[int, str], float]]] = []

    def _read_processes(self) -> None:
        self.processes.append((time.monotonic(), processes_cpu()))

    def busiest(self, start: float, end: float, top: int = 4) -> str:
        """The processes that used the most CPU from start to end (ms), widest sampling."""
        before = [x for x in self.processes if x[0] <= start]
        after = [x for x in self.processes if x[0] >= end]
        if not before or not after:
            return ""
        (t0, a), (t1, b) = before[-1], after[0]
        # By pid: a kernel worker's name changes with its work.
        was = {pid: used for (pid, _), used in a.items()}
        names = {pid: PROCESS_NAMES.get(pid, name) for (pid, name) in b}
        used = sorted(((u - was.get(pid, u), pid) for (pid, _), u in b.items()), reverse=True)
        return f"{(t1 - t0) * 1000:.0f} ms: " + ", ".join(
            f"{names[pid]} {ms * 1000:.0f}" for ms, pid in used[:top] if ms > 0
        )

    def _read(self) -> tuple[float, float, float, float]:
        waited = 0.0
        with contextlib.suppress(OSError):
            some = Path("/proc/pressure/cpu").read_text().splitlines()[0]
            waited = int(some.rsplit("total=", 1)[1]) / 1e6
        jiffies = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = jiffies[3] + jiffies[4]
        total = sum(jiffies[:8])
        return time.monotonic(), waited, (total - idle) / self.tick, total / self.tick

    def _sample(self) -> None:
        n = 0
        while not self.stop.wait(self.EVERY):
            self.samples.append(self._read())
            n += 1
            if self.who and n % 5 == 0:
                self._read_processes()

    def __enter__(self) -> Machine:
        self.samples.append(self._read())
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.samples.append(self._read())

    def between(self, start: float, end: float) -> tuple[float, float]:
        """(CPU pressure, share of all cores busy) from start to end, in the samples' steps."""
        inside = [x for x in self.samples if start - self.EVERY <= x[0] <= end + self.EVERY]
        if len(inside) < 2:
            return float("nan"), float("nan")
        (t0, w0, b0, a0), (t1, w1, b1, a1) = inside[0], inside[-1]
        return (w1 - w0) / (t1 - t0), (b1 - b0) / max(a1 - a0, 1e-9)


async def watch_lag(run: Run, every: float = 0.01) -> None:
    """How late this client's own loop wakes up: its lateness is in every arrival it
    times, so the report gives it beside the latencies."""
    while True:
        start = time.monotonic()
        await asyncio.sleep(every)
        run.lags.append(time.monotonic() - start - every)


def socket_url(run: Run, village: Village, seat: int) -> str:
    base = run.socket_urls[(village.id + seat) % len(run.socket_urls)]
    url = base.replace("http", "ws") + f"/ws/villages/{village.id}/"
    return url + f"?token={village.tokens[seat]}" + ("&screen=1" if run.screen else "")


def arrival(run: Run, village: Village, raw: str | bytes, now: float) -> None:
    """A frame read at `now` (as text, or as its UTF-8 bytes): the arrival of the lines it
    carries."""
    if isinstance(raw, bytes):  # only frames with lines are worth decoding
        if not (raw.startswith(b'{"type":"message"') or (run.screen and b'"lines"' in raw)):
            return
        raw = raw.decode()
    if raw.startswith('{"type":"message"'):
        message_id = json.loads(raw)["message"]["id"]
        run.arrived.setdefault((village.id, message_id), []).append(now)
    elif run.screen and '"lines"' in raw:
        for line in json.loads(raw).get("lines", []):
            run.arrived.setdefault((village.id, line[0]), []).append(now)


async def listen_bare(
    run: Run, village: Village, seat: int, ready: asyncio.Event, opened: list
) -> None:
    """A socket of bench/wsclient.py's: each frame is timed where the client reads it."""
    import wsclient

    first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_text(raw: bytes, now: float) -> None:
        if not first.done():
            first.set_result(None)  # the state, or the screen drawn
        elif ready.is_set():
            arrival(run, village, raw, now)

    socket = await wsclient.connect(socket_url(run, village, seat), on_text, "http://127.0.0.1")
    try:
        if run.screen:  # the game screen's socket: it says what it shows, then hears HTML
            socket.send_text('{"type":"hello","after":null,"parts":{}}')
        await first
        if not run.screen:
            socket.send_text('{"type":"ping"}')  # nothing to resume
        opened.append(1)
        await socket.closed
    finally:
        socket.close()


async def listen(run: Run, village: Village, seat: int, ready: asyncio.Event, opened: list) -> None:
    """A socket of the `websockets` library's (`--client websockets`)."""
    import websockets

    url = socket_url(run, village, seat)
    async with websockets.connect(
        url, origin="http://127.0.0.1", open_timeout=60, max_size=None, compression=None
    ) as socket:
        if run.screen:  # the game screen's socket: it says what it shows, then hears HTML
            await socket.send('{"type":"hello","after":null,"parts":{}}')
        await socket.recv()  # the state, or the screen drawn
        if not run.screen:
            await socket.send('{"type":"ping"}')  # nothing to resume
        opened.append(1)
        await ready.wait()
        async for raw in socket:
            arrival(run, village, raw, time.monotonic())


def router(routing: str, bases: list[str]) -> Callable[[int, int], str]:
    """Which posting node takes the n-th POST of the plan, to village `index`:
    - "village": always the village's own node, as deploy/nginx routes (a hash of the id);
    - "random": any node, as a load balancer that knows no villages would;
    - "plan": node n % nodes (the warm-up round's: a village's k-th line to node k)."""
    pick = random.Random(7).choice
    if routing == "village":
        return lambda n, index: bases[index % len(bases)]
    if routing == "random":
        return lambda n, index: pick(bases)
    return lambda n, index: bases[n % len(bases)]


async def post_http(
    run: Run,
    bases: list[str],
    plan: list[tuple[float, int]],
    fresh: bool = False,
    routing: str = "village",
) -> None:
    posters = Posters(bases, fresh)
    route = router(routing, bases)

    async def one(at: float, index: int, n: int) -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        village = run.villages[index]
        sent = time.monotonic()
        seat = WOLF_SEATS[n % len(WOLF_SEATS)]
        try:
            message_id = await posters.post(route(n, index), village, seat, f"遠吠え{n}")
        except Exception as error:
            run.errors.append(repr(error))
            return
        run.answers.append(time.monotonic() - sent)
        run.slowest.append((run.answers[-1], sent - first, sent))
        run.sent[(village.id, message_id)] = sent

    first = run.started = time.monotonic()

    await asyncio.gather(*(one(at, index, n) for n, (at, index) in enumerate(plan)))


async def post_service(run: Run, poster: subprocess.Popen, plan: list[tuple[float, int]]) -> None:
    job = {
        "plan": [
            (at, run.villages[i].id, run.villages[i].wolves[WOLF_SEATS[n % len(WOLF_SEATS)]])
            for n, (at, i) in enumerate(plan)
        ],
        "users": sorted({uid for v in run.villages for uid in v.wolves.values()}),
    }
    assert poster.stdin is not None and poster.stdout is not None
    poster.stdin.write(json.dumps(job) + "\n")
    poster.stdin.flush()

    def read() -> None:
        assert poster.stdout is not None
        for line in poster.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "sent":
                village_id, message_id, sent = rest.split()
                run.sent[(int(village_id), int(message_id))] = float(sent)
            elif word == "error":
                run.errors.append(rest)
            elif word == "done":
                return

    await asyncio.to_thread(read)


async def measure(
    run: Run,
    post_via: str,
    target: list[str] | subprocess.Popen,
    cpu_of,
    around=None,
    fresh: bool = False,
    warm_up: bool = True,
    who: bool = False,
    routing: str = "village",
) -> dict:
    """Open the sockets, post for run.seconds, wait for the frames; CPU used meanwhile
    (and `around()`, a profiler, around the posting)."""
    ready = asyncio.Event()
    opened: list[int] = []
    listeners = []
    connect_started = time.monotonic()
    for village in run.villages:  # connect a village at a time
        batch = [
            asyncio.ensure_future(
                (listen_bare if run.bare else listen)(run, village, seat, ready, opened)
            )
            for seat in sorted(village.tokens)
        ]
        listeners += batch
        while len(opened) < len(listeners):
            failed = [t for t in batch if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.01)
    took = time.monotonic() - connect_started
    print(f"  {len(listeners)} sockets open in {took:.1f} s", flush=True)
    await asyncio.sleep(2)  # let the connection burst settle
    gc.collect()
    gc.freeze()
    ready.set()
    lag = asyncio.ensure_future(watch_lag(run))
    if post_via == "http" and warm_up:
        assert isinstance(target, list)
        plan = warm_up_plan(run.villages, len(target), time.monotonic())
        await post_http(run, target, plan, fresh, routing="plan")
        await frames_arrived(run)
        run.end_warm_up()
        await asyncio.sleep(1)
    run.machine = Machine(who)
    with around() if around else contextlib.nullcontext(), run.machine:
        cpu = cpu_of()
        plan = schedule(run.villages, run.seconds, time.monotonic() + 1)
        if post_via == "http":
            await post_http(run, target, plan, fresh, routing)
        else:
            await post_service(run, target, plan)
        cpu = {name: used - cpu[name] for name, used in cpu_of().items()}
    lag.cancel()
    await frames_arrived(run)
    for task in listeners:
        task.cancel()
    await asyncio.gather(*listeners, return_exceptions=True)
    return cpu


async def frames_arrived(run: Run, wait: float = 10.0) -> None:
    """Until every frame of the lines posted so far has arrived, or `wait` s have passed."""
    expected = PLAYERS * len(run.sent)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if sum(len(run.arrived.get(i, ())) for i in run.sent) >= expected:
            break
        await asyncio.sleep(0.1)


def service_cpu() -> dict[str, float]:
    """CPU seconds of the Redis server and of every PostgreSQL process (backends come and
    go; a new one counts from zero)."""
    found = {"redis": 0.0, "postgresql": 0.0}
    for (_, command), used in processes_cpu().items():
        if command.startswith("redis-server"):
            found["redis"] += used
        elif command.startswith("postgres"):
            found["postgresql"] += used
    return found


def processes_cpu() -> dict[tuple[int, str], float]:
    """(pid, command) → CPU seconds used, for every process of the machine."""
    found = {}
    tick = os.sysconf("SC_CLK_TCK")
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                name, _, rest = (proc / "stat").read_text().partition(") ")
                fields = rest.split()
                used = (int(fields[11]) + int(fields[12])) / tick
                found[(int(proc.name), name.split("(", 1)[1])] = used
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(v: int, run: Run, cpu: dict[str, float]) -> None:
    if run.warm_up:
        print(f"       {run.warm_up}", flush=True)
    latencies = run.latencies()
    expected = PLAYERS * len(run.sent)
    unmatched = sum(len(t) for i, t in run.arrived.items() if i not in run.sent)
    ms = latencies or [float("nan")]
    cpu_text = ", ".join(f"{name} {used / run.seconds * 100:.0f}%" for name, used in cpu.items())
    posts = max(1, len(run.sent))
    per_line = ", ".join(f"{name} {used / posts * 1000:.2f} ms" for name, used in cpu.items())
    print(
        f"V={v:>3}: {len(run.sent)} posts, {expected} frames expected, {len(latencies)} "
        f"received, lost {expected - len(latencies)}, unmatched {unmatched}, "
        f"post errors {len(run.errors)}\n"
        f"       post → frame ms: p50 {statistics.median(ms):.1f}  p90 {percentile(ms, 0.9):.1f}"
        f"  p99 {percentile(ms, 0.99):.1f}  max {max(ms):.1f}",
        flush=True,
    )
    if run.answers:
        answers = [x * 1000 for x in run.answers]
        print(
            f"       the POST's own answer ms: p50 {statistics.median(answers):.1f}  "
            f"p99 {percentile(answers, 0.99):.1f}"
        )
        slow = sorted(run.slowest, reverse=True)[:8]
        slow_text = ", ".join(f"{a * 1000:.0f} @{t:.1f}" for a, t, _ in slow)
        print(
            f"       the slowest POSTs (ms, at s; 0 s = {run.started:.1f} on the machine's "
            f"monotonic clock): {slow_text}"
        )
        # Whose time a slow frame was: its POST's (the posting node) or the rest (the
        # socket node): the lines whose last frame came latest, with their POST's answer.
        answer_of = {sent: a for a, _, sent in run.slowest}
        last = sorted(
            (
                (max(run.arrived[i]) - sent, answer_of.get(sent, 0.0), sent - run.started)
                for i, sent in run.sent.items()
                if run.arrived.get(i)
            ),
            reverse=True,
        )[:8]
        print(
            "       the lines whose last frame came latest (last frame / its POST, ms, at s): "
            + ", ".join(f"{f * 1000:.0f}/{a * 1000:.0f} @{t:.1f}" for f, a, t in last)
        )
        machine = run.machine
        if machine is not None and len(machine.samples) > 2:
            first, last = machine.samples[0][0], machine.samples[-1][0]
            pressure, busy = machine.between(first, last)
            print(
                f"       the machine while posting: all cores {busy * 100:.0f}% busy, "
                f"CPU pressure {pressure * 100:.0f}% (time a runnable task waited for a core)"
            )
            ranked = sorted(run.slowest, reverse=True)
            tail = ranked[: max(1, len(ranked) // 100)]
            rest = ranked[len(ranked) // 10 :]

            def mean_pressure(posts: list[tuple[float, float, float]]) -> float:
                found = [machine.between(sent, sent + a)[0] for a, _, sent in posts]
                found = [x for x in found if x == x]
                return statistics.mean(found) * 100 if found else float("nan")

            print(
                f"       CPU pressure during the slowest 1% of POSTs {mean_pressure(tail):.0f}%,"
                f" during the fastest 90% {mean_pressure(rest):.0f}%"
            )
            if machine.processes:
                for answer, at, sent in ranked[:5]:
                    busiest = machine.busiest(sent, sent + answer)
                    print(
                        f"       who used the CPU around the POST of {answer * 1000:.0f} ms "
                        f"@{at:.1f}: {busiest}"
                    )
    if run.lags:
        lags = [x * 1000 for x in run.lags]
        print(
            f"       this client's loop late by ms: p50 {statistics.median(lags):.1f}  "
            f"p99 {percentile(lags, 0.99):.1f}  max {max(lags):.1f}"
        )
    print(f"       CPU while posting (100% = one core): {cpu_text}", flush=True)
    print(f"       CPU per line: {per_line}", flush=True)
    for error in run.errors[:5]:
        print(f"       error: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--villages", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--post-via", choices=("http", "service"), default="http")
    parser.add_argument("--poster", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--socket-nodes", type=int, default=1, help="daphnes holding the sockets (spread)"
    )
    parser.add_argument(
        "--post-nodes", type=int, default=1, help="daphnes taking the POSTs (round robin)"
    )
    parser.add_argument("--screen", action="store_true", help="game-screen sockets (HTML)")
    parser.add_argument(
        "--client",
        choices=("bare", "websockets"),
        default="bare",
        help="the listening sockets: bench/wsclient.py's (cheap), or the websockets library's",
    )
    parser.add_argument(
        "--fresh-connections", action="store_true", help="a new connection for every POST"
    )
    parser.add_argument(
        "--routing",
        choices=("village", "random"),
        default="village",
        help="which posting node takes a village's POST: its own (deploy/nginx), or any",
    )
    parser.add_argument(
        "--who",
        action="store_true",
        help="sample every process's CPU too, and name the busiest around the slowest POSTs",
    )
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="measure from the first line (every node's caches cold), as before stop 25",
    )
    parser.add_argument(
        "--profile",
        choices=("sockets", "posts"),
        help="sample the first daphne holding the sockets, or taking the posts, with py-spy",
    )
    parser.add_argument(
        "--post-gc",
        help="GC_THRESHOLDS of the daphnes taking the POSTs (e.g. 5000,20,100; docs/operations.md)",
    )
    args = parser.parse_args()
    if args.poster:
        service_poster()
        return

    setup_django()
    gc.set_threshold(*gc_thresholds())  # as a daphne of the site does
    log_dir = Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / f"jinro-ws-bench-{os.getpid()}"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"setting up {max(args.villages)} villages of {PLAYERS} (logs: {log_dir})", flush=True)
    villages = build_villages(max(args.villages))
    from django.db import connections

    connections.close_all()
    socket_nodes = [start_daphne(log_dir) for _ in range(args.socket_nodes)]
    processes: dict[str, Any] = {
        f"daphne (sockets{'' if len(socket_nodes) == 1 else f' {n + 1}'})": node
        for n, node in enumerate(socket_nodes)
    }
    post_urls = []
    if args.post_via == "http":
        for n in range(args.post_nodes):
            posts = start_daphne(log_dir, args.post_gc)
            processes[f"daphne (posts{'' if args.post_nodes == 1 else f' {n + 1}'})"] = posts
            post_urls.append(posts.url)
        how = f"POST to {args.post_nodes} other daphne(s)"
    else:
        how = "the posting service in a process of its own"
    print(f"posting via {how} ({args.routing} routing); {os.cpu_count()} cores", flush=True)
    try:
        for v in args.villages:
            run = Run(
                villages[:v],
                [n.url for n in socket_nodes],
                args.seconds,
                args.screen,
                bare=args.client == "bare",
            )
            target: list[str] | subprocess.Popen = post_urls
            if args.post_via == "service":
                poster = subprocess.Popen(
                    [sys.executable, __file__, "--poster"],
                    cwd=ROOT,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                assert poster.stdout is not None
                if poster.stdout.readline().strip() != "ready":
                    sys.exit("the poster process did not start")
                processes["poster"] = Process(poster)
                target = poster
            print(f"V={v}: connecting {v * PLAYERS} sockets", flush=True)

            PROCESS_NAMES.update({p.popen.pid: name for name, p in processes.items()})
            PROCESS_NAMES[os.getpid()] = "this client"

            def cpu_of() -> dict[str, float]:
                found = {name: p.cpu_seconds() for name, p in processes.items()}
                return found | service_cpu() | {"this client": time.process_time()}

            profiled = socket_nodes[0] if args.profile == "sockets" else None
            if args.profile == "posts":
                profiled = processes.get("daphne (posts)") or processes["daphne (posts 1)"]
            around = partial(Profiler, profiled, log_dir / "profile.raw") if profiled else None
            cpu = asyncio.run(
                measure(
                    run,
                    args.post_via,
                    target,
                    cpu_of,
                    around,
                    args.fresh_connections,
                    not args.no_warm_up,
                    args.who,
                    args.routing,
                )
            )
            report(v, run, cpu)
            if "poster" in processes:
                processes.pop("poster").stop()
    finally:
        for process in processes.values():
            process.stop()


if __name__ == "__main__":
    main()
