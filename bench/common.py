"""What the benchmarks share: Django set up on a database of their own, a 22-seat village
built through the services, the site as a separate process, its CPU time, and browsers.

Run from the project root with the project's interpreter (`.venv/bin/python bench/...`).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAYERS = 22
# 22 players: wolves 1-3, seer 4, medium 5, guard 6, commons 7-8, madman 9, fox 10,
# villagers 11-22.
CAST = ["wolf"] * 3 + ["seer", "medium", "guard", "common", "common", "madman", "fox"]
CAST += ["villager"] * 12

# Nothing but the posts may add lines (no silence penalty, no time-up); one address may sit
# everyone; no rate limit.
RULES_ENV = {
    "JINRO_RATE_LIMIT_ENABLED": "0",
    "JINRO_ONE_SEAT_PER_IP": "0",
    "JINRO_MAX_ACTIVE_VILLAGES": "100000",
    "JINRO_NIGHT_VIRTUAL_SECONDS": str(10**8),
    "JINRO_DAY_VIRTUAL_SECONDS": str(10**8),
    "JINRO_SILENCE_REAL_SECONDS": str(10**7),
    "JINRO_SERVE_STATIC": "1",
    # As a site is run for people: without Django's debugging (which records every query).
    "DEBUG": "0",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}


def setup_django(database_url: str | None = None) -> Path:
    """Django on `database_url`, or on a throwaway SQLite file (the embedded default)."""
    work = Path(tempfile.mkdtemp(prefix="jinro-bench-"))
    os.environ.setdefault("DATABASE_URL", database_url or f"sqlite:///{work}/bench.sqlite3")
    os.environ.update(RULES_ENV)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    # Playwright's sync API keeps an event loop in this thread; the bench still uses the ORM.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    return work


@dataclass
class BenchVillage:
    id: int
    users: dict[int, Any]  # seat_no -> user
    tokens: dict[int, str] = field(default_factory=dict)


def bench_users(prefix: str, count: int) -> list[Any]:
    """Users named prefix0 … prefix{count-1} (made once, kept between runs), in that order."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    wanted = [f"{prefix}{n}" for n in range(count)]
    have = set(User.objects.filter(username__in=wanted).values_list("username", flat=True))
    User.objects.bulk_create([User(username=n, password="!") for n in wanted if n not in have])
    users = {u.username: u for u in User.objects.filter(username__in=wanted)}
    return [users[n] for n in wanted]


def bench_staff() -> Any:
    from django.contrib.auth import get_user_model

    staff, _ = get_user_model().objects.get_or_create(
        username="bench-staff", defaults={"is_staff": True}
    )
    return staff


def started_village(
    name: str, users: list[Any], cast: list[str], options: dict | None = None
) -> tuple[int, dict[int, Any]]:
    """A village where `users` sat down in order, with `cast` fixed seat by seat, and
    everyone voted to start: night 1. Returns the village's id and seat_no -> user."""
    from villages.models import Icon
    from villages.services import lifecycle

    staff = bench_staff()
    icons = list(Icon.objects.choosable()) or [
        Icon.objects.create(name="bench", static_path="icons/bench.png")
    ]
    village = lifecycle.create_village(
        user=staff, name=name, capacity=len(users), options=options or {}
    )
    seated = {}
    for n, user in enumerate(users, start=1):
        seat = lifecycle.sit(
            village_id=village.pk,
            user=user,
            handle_name=f"村人{n}",
            icon_id=icons[n % len(icons)].pk,
        )
        seated[seat] = user
    lifecycle.fix_cast(
        village_id=village.pk,
        user=staff,
        roles={str(seat): role for seat, role in zip(sorted(seated), cast, strict=True)},
        sub_roles={},
    )
    for user in seated.values():
        lifecycle.vote_start(village_id=village.pk, user=user)
    return village.pk, seated


def day_two_village(name: str = "ベンチ村") -> BenchVillage:
    """22 seats, a fixed cast, played to day 2 (seat 22 was bitten on night 1)."""
    from accounts.services import profile_of
    from villages.services import play

    stamp = f"{os.getpid()}{int(time.time() * 1000) % 10**6}"
    village_id, users = started_village(name, bench_users(f"b{stamp}s", PLAYERS), CAST)
    play.night_action(village_id=village_id, user=users[1], action="attack", targets=[22])
    play.night_action(village_id=village_id, user=users[4], action="divine", targets=[11])
    tokens = {no: profile_of(u).api_token for no, u in users.items()}
    return BenchVillage(village_id, users, tokens)


def insert_lines(village_id: int, rows: list[Any]) -> None:
    """Rows of a long log written straight to the database (faster than posting them),
    numbered as the services number lines (villages.line_numbers), and the village moved
    to a new version so that no process keeps an older snapshot of it."""
    from django.db.models import F

    from villages.models import Message, Village

    counted = Village.objects.values_list("public_lines", flat=True).get(pk=village_id)
    for row in rows:
        counted += row.public
        row.public_no = counted
    made = Message.objects.bulk_create(rows, batch_size=1000)
    Village.objects.filter(pk=village_id).update(
        public_lines=counted,
        last_line=max(m.pk for m in made),
        version=F("version") + 1,
    )


def session_cookie(user: Any) -> str:
    """A logged-in session of `user` (made in the shared database): its cookie value."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key or ""


# --- The site as a process of its own -------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# pid -> thread id -> nanoseconds of CPU it had spent when last seen (Site.cpu_seconds)
_THREADS_SEEN: dict[int, dict[int, int]] = {}


@dataclass
class Site:
    popen: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """CPU time of the process to the nanosecond: each thread's /proc/<pid>/task/*/
        schedstat, a thread that has ended counted as it was last seen. (/proc/<pid>/stat
        counts in 10 ms ticks: a 3-second idle rate read either 0 or 3.3 ms/s, an error
        larger than the differences measured over a long run.)"""
        pid = self.popen.pid
        seen = _THREADS_SEEN.setdefault(pid, {})
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                seen[int(task.name)] = int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # it ended meanwhile
        return sum(seen.values()) / 1e9

    def main_thread_cpu_seconds(self) -> float:
        """CPU time of the process's main thread: the event loop (sockets, pushes to them);
        the rest is the request threads'."""
        pid = self.popen.pid
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9

    def thread_cpu(self) -> dict[str, float]:
        """CPU seconds so far of each of the process's live threads, by the name Python
        gave it (py-spy's dump, when installed; else the thread's id), a pool's summed."""
        names = _thread_names(self.popen.pid)
        found: dict[str, float] = {}
        for task in Path(f"/proc/{self.popen.pid}/task").iterdir():
            try:
                ns = int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue
            name = names.get(int(task.name), task.name)
            found[name] = found.get(name, 0.0) + ns / 1e9
        return found

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.popen.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.popen.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(15)


def start_site(
    work: Path,
    *args: str,
    env: dict[str, str] | None = None,
    ticker: bool = False,
    code: Path | None = None,
) -> Site:
    """`manage.py runsite` (daphne) on the bench's database, without access log (and
    without the embedded sweep ticker unless asked); of the checkout `code` (this one by
    default), to compare two versions of the site on one database."""
    port = free_port()
    log = work / f"site-{port}.log"
    quiet = ["--no-access-log"] + ([] if ticker else ["--no-ticker"])
    command = [sys.executable, "manage.py", "runsite", *quiet, *args]
    popen = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        cwd=code or ROOT,
        # As strict as in production about the database on its event loop (the bench's
        # own process is lenient, for Playwright's loop).
        env={k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
        | {"PYTHONUNBUFFERED": "1"}
        | (env or {}),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    for _ in range(600):
        with contextlib.suppress(OSError):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            return Site(popen, port, log)
        time.sleep(0.1)
    sys.exit(f"the site on {port} did not start; see {log}")


def start_celery(args: list[str], log: Path) -> subprocess.Popen:
    """`celery -A jinro_site <args>` (a worker or a beat) with this process's environment."""
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "jinro_site", *args, "--loglevel=INFO"],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


class Client:
    """A kept-alive HTTP connection to the site."""

    # The kept-alive connection was closed by the site while it was idle (found when the
    # next request is sent or its answer read): connect again and send the request again.
    STALE = (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)

    def __init__(self, site: Site) -> None:
        self.port = site.port
        self.conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """One request; sent again on a new connection if the kept-alive one had been
        closed while idle (the site answered nothing: it had not read the request)."""
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Content-Type": "application/json"} | (headers or {})
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=all_headers)
                response = self.conn.getresponse()
                break
            except self.STALE as error:
                print(f"  (the site had closed the connection: {error!r}; connecting again)")
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        self.retry_after = float(response.getheader("Retry-After") or 1)
        return response.status, response.read()

    def post_line(self, village_id: int, token: str, text: str) -> int:
        """Post a line, as a well-behaved client: a refusal for load (503, when a profiler
        slows the site) is tried again after its Retry-After, five times at most."""
        for _ in range(5):
            status, data = self.request(
                "POST",
                f"/api/v1/villages/{village_id}/messages",
                {"text": text, "channel": "talk"},
                {"Authorization": f"Token {token}"},
            )
            if status != 503:
                break
            time.sleep(self.retry_after)
        if status != 201:
            raise RuntimeError(f"{status} {data[:300]!r}")
        return json.loads(data)["id"]


def idle_rate(site: Site, seconds: float = 3.0, by_thread: bool = False) -> float:
    """CPU seconds per second the site spends doing nothing asked of it (`by_thread`:
    printing each thread's share)."""
    threads = site.thread_cpu() if by_thread else {}
    start, t0 = site.cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    rate = (site.cpu_seconds() - start) / (time.monotonic() - t0)
    if by_thread:
        print(thread_shares(site, threads, time.monotonic() - t0), flush=True)
    return rate


def thread_shares(site: Site, before: dict[str, float], elapsed: float) -> str:
    """Each thread's CPU a second since `before` (`Site.thread_cpu()`), busiest first."""
    after = site.thread_cpu()
    shares = sorted(((after[n] - before.get(n, 0.0), n) for n in after), reverse=True)
    listed = ", ".join(f"{n} {1000 * cpu / elapsed:.2f}" for cpu, n in shares if cpu > 0.00001)
    return f"  by thread: {listed} ms/s"


# --- Browsers (Debian's chromium, launched as the browser tests launch it) ------------------

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402, F401


def _thread_names(pid: int) -> dict[int, str]:
    """Thread id → Python's name for it (a pool's numbers dropped), from `py-spy dump`."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        return {}
    dump = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True)
    line = re.compile(r'^Thread (?:0x[0-9A-Fa-f]+ )?\(?(\d+)\)?[^"]*"([^"]*)"', re.M)
    found = line.findall(dump.stdout)
    return {int(tid): re.sub(r"_\d+$", "", name) for tid, name in found}


# --- Profiles ----------------------------------------------------------------------------------


class Profiler:
    """py-spy sampling every thread of the site while the block runs; prints where the
    time went (`pip install -e ".[bench]"` for py-spy)."""

    OURS = ("villages/", "jinro_site/", "accounts/")
    BUSY = (*OURS, "django/", "channels/", "daphne/")

    def __init__(self, site: Site, out: Path, top: int = 25) -> None:
        self.site, self.out, self.top = site, out, top
        self.recorder: subprocess.Popen | None = None

    def __enter__(self) -> Profiler:
        spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        if not Path(spy).exists():
            print("py-spy is not installed (pip install -e '.[bench]'): no profile")
            return self
        command = [spy, "record", "--pid", str(self.site.popen.pid), "--rate", "1000"]
        if os.environ.get("PROFILE_GIL"):  # only the thread holding the GIL: where CPU goes
            command.append("--gil")
        self.recorder = subprocess.Popen(
            [*command, "--format", "raw", "--output", str(self.out), "--nonblocking"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.5)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.recorder is None:
            return
        self.recorder.send_signal(2)
        self.recorder.wait(60)
        self.report()

    def report(self) -> None:
        """Inclusive shares of the site's own functions, and the functions that spend the
        time themselves, over the samples of busy threads."""
        inclusive: Counter[str] = Counter()
        own: Counter[str] = Counter()
        total = 0
        for line in self.out.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            n = int(count)
            frames = [_frame_name(f) for f in stack.split(";")]
            if not any(any(mark in f for mark in self.BUSY) for f in frames):
                continue  # an idle thread of the reactor or the pool
            total += n
            own[frames[-1]] += n
            for key in set(frames):
                if any(mark in key for mark in self.OURS):
                    inclusive[key] += n
        print(f"profile: {total} samples of busy threads")
        print("  the site's functions, by inclusive share:")
        for key, n in inclusive.most_common(self.top):
            print(f"    {100 * n / total:5.1f}%  {key}")
        print("  functions by self share:")
        for key, n in own.most_common(15):
            print(f"    {100 * n / total:5.1f}%  {key}")


def _frame_name(frame: str) -> str:
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").split("/site-packages/")[-1].split(str(ROOT) + "/")[-1]
    return f"{name} ({where.rsplit(':', 1)[0]})"
