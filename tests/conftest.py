"""Shared fixtures and the `services` marker.

* `@pytest.mark.services`: the test needs PostgreSQL and Redis for real. It is skipped
  unless REDIS_URL and a postgres:// DATABASE_URL are set; with JINRO_CI_SERVICES=1 (CI's
  second step) any skip of such a test is turned into a failure.
* `daphne_server`: base URL of a real `manage.py runsite` subprocess on a free port, using
  the test database (SQLite test databases are files for this reason).
* `celery_worker_process`: a real `celery -A jinro_site worker` subprocess on REDIS_URL,
  using the test database. Needs the `services` marker.
Both subprocess fixtures imply `transactional_db`, so the subprocess sees the test's
rows; they are started once per session and inherit this process's environment.
* `channel_layer`: the configured channel layer, flushed after the test.
"""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI_SERVICES = os.environ.get("JINRO_CI_SERVICES") == "1"
SERVICES_PROPERTY = ("marker", "services")  # written to junit XML for .ci/run


def missing_services() -> str | None:
    """Why `services` tests cannot run here, or None when they can."""
    missing = []
    if not os.environ.get("REDIS_URL"):
        missing.append("REDIS_URL is not set")
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        missing.append("DATABASE_URL is not a postgres:// URL")
    return "; ".join(missing) or None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Gather the static files, as bin/run does: pages name the hashed files of the
    manifest that `collectstatic` writes (WhiteNoise's storage), here and in the site
    processes the tests start. (Not for the engine's tests alone, run without Django.)

    Runs side by side (CI's stages) gather one at a time, under a lock on var/; with
    JINRO_STATIC_GATHERED=1 (CI gathers once, before its stages) not at all."""
    if not session.config.pluginmanager.hasplugin("django"):
        return
    if os.environ.get("JINRO_STATIC_GATHERED") == "1":
        return
    import fcntl

    from django.core.management import call_command

    (ROOT / "var").mkdir(exist_ok=True)
    with open(ROOT / "var" / ".collectstatic.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        call_command("collectstatic", interactive=False, verbosity=0)


# --- The `services` marker -------------------------------------------------------------------


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("services"):
            item.user_properties.append(SERVICES_PROPERTY)
    # Browser tests last: Playwright's sync API runs an event loop in the main thread
    # while a browser is open, which the async tests must not meet.
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("browser") is not None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("services") and (reason := missing_services()):
        pytest.skip(f"needs services: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = yield
    if (
        CI_SERVICES
        and report.skipped
        and not hasattr(report, "wasxfail")
        and item.get_closest_marker("services")
    ):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"JINRO_CI_SERVICES=1: a services test may not skip ({reason})"
    return report


# --- Test database -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None,
) -> Iterator[None]:
    """Give a SQLite test database a file of its own, so subprocesses can share it."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    test = database.setdefault("TEST", {})
    if database["ENGINE"].endswith("sqlite3") and not test.get("NAME"):
        test["NAME"] = str(ROOT / "var" / f"test-{os.getpid()}.sqlite3")
    yield
    if name := test.get("NAME"):
        for leftover in (f"{name}-wal", f"{name}-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(leftover)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker) -> Iterator[None]:
    """pytest-django's test database, whose PostgreSQL sessions left open by the async
    tests' worker threads are ended before it is dropped: Django closes only the main
    thread's connection, and the drop would fail ("is being accessed by other users")."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


# How long the tests' writes and requests may wait their turn (see _test_settings).
UNHURRIED_MS = 30_000


def subprocess_env() -> dict[str, str]:
    """This process's environment, pointed at the test database (after its creation), and
    without the load shedding (as in _test_settings) unless the caller sets it."""
    from django.db import connections

    from jinro_site.dburl import database_url

    # A site process is as strict as in production about the database on its event loop
    # (the browser tests' process needs the leniency for Playwright's loop; its site not).
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env["DATABASE_URL"] = database_url(connections["default"].settings_dict)
    env["DJANGO_SETTINGS_MODULE"] = "tests.site_settings"  # the site's, hashing fast
    env["PYTHONUNBUFFERED"] = "1"
    for name in ("JINRO_WRITE_WAIT_MS", "JINRO_QUEUE_WAIT_MS", "JINRO_READ_QUEUE_WAIT_MS"):
        env.setdefault(name, str(UNHURRIED_MS))
    return env


# --- Subprocesses ------------------------------------------------------------------------------


@dataclass
class RunningProcess:
    popen: subprocess.Popen
    log_path: Path
    name: str
    url: str = ""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def check_alive(self) -> None:
        if self.popen.poll() is not None:
            pytest.fail(f"{self.name} exited with {self.popen.returncode}:\n{self.log()[-4000:]}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_process(
    name: str, args: list[str], log_dir: Path, env: dict[str, str] | None = None
) -> RunningProcess:
    log_path = log_dir / f"{name}.log"
    log_file = log_path.open("wb")
    popen = subprocess.Popen(
        args,
        cwd=ROOT,
        env={**subprocess_env(), **(env or {})},
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log_file.close()
    return RunningProcess(popen=popen, log_path=log_path, name=name)


def stop_process(process: RunningProcess, timeout: float = 15) -> None:
    if process.popen.poll() is None:
        process.popen.send_signal(signal.SIGTERM)
        try:
            process.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            process.popen.kill()
            process.popen.wait(5)


def wait_until(condition, *, process: RunningProcess, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        process.check_alive()
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(f"{process.name}: {what} not within {timeout}s:\n{process.log()[-4000:]}")


@contextlib.contextmanager
def serve_site(
    name: str, log_dir: Path, env: dict[str, str], options: tuple[str, ...] = ()
) -> Iterator[RunningProcess]:
    """A real `manage.py runsite` on a free port and the test database, once it answers;
    `options` go to runsite (`--no-ticker`: it never sweeps)."""
    import urllib.error
    import urllib.request

    port = free_port()
    address = ["--host", "127.0.0.1", "--port", str(port)]
    process = start_process(
        name,
        [sys.executable, "manage.py", "runsite", *address, *options],
        log_dir,
        env=env,
    )
    process.url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            with urllib.request.urlopen(f"{process.url}/healthz", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True  # it answered; the test decides what the answer means
        except OSError:
            return False

    try:
        wait_until(answers, process=process, timeout=30, what="HTTP answer")
        yield process
    finally:
        stop_process(process)


@pytest.fixture(scope="session")
def _daphne_process(django_db_setup: None, tmp_path_factory) -> Iterator[RunningProcess]:
    # No front web server in tests: the site serves /media/ too in both modes.
    env = {"JINRO_SERVE_STATIC": os.environ.get("JINRO_SERVE_STATIC", "1")}
    # It never sweeps: the browser tests' site (tests/e2e) sweeps the same database by
    # other rules, and a line one site's sweep posts reaches only that site's sockets.
    options = ("--no-ticker",)
    with serve_site("daphne", tmp_path_factory.mktemp("daphne"), env, options) as process:
        yield process


@pytest.fixture
def daphne_server(transactional_db: None, _daphne_process: RunningProcess) -> str:
    """Base URL (`http://127.0.0.1:<port>`) of a real site process on the test database.

    The process is `manage.py runsite`, serving /static/ too, with no sweep ticker: the
    browser tests' site sweeps (tests/e2e), tests/realtime/test_embedded.py runs a site of
    its own with one, and with REDIS_URL the clock is Celery beat's, as in production
    (tests/realtime/test_celery_sweep.py runs beats and workers with short rules). With the
    in-memory layer its sockets live in that process, out of this one's reach; with Redis
    they are not.
    """
    _daphne_process.check_alive()
    return _daphne_process.url


@pytest.fixture(scope="session")
def _celery_worker(django_db_setup: None, tmp_path_factory) -> Iterator[RunningProcess]:
    if reason := missing_services():
        pytest.skip(f"needs services: {reason}")
    from jinro_site.celery import app

    nodename = f"jinro-test-{os.getpid()}@{socket.gethostname()}"
    process = start_process(
        "celery-worker",
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "jinro_site",
            "worker",
            "--loglevel=INFO",
            "--concurrency=2",
            "--hostname",
            nodename,
            "--without-gossip",
            "--without-mingle",
        ],
        tmp_path_factory.mktemp("celery"),
    )
    process.name = nodename

    def answers() -> bool:
        return bool(app.control.ping(destination=[nodename], timeout=0.5))

    try:
        wait_until(answers, process=process, timeout=60, what="control ping")
        yield process
    finally:
        stop_process(process, timeout=30)


@pytest.fixture
def celery_worker_process(transactional_db: None, _celery_worker: RunningProcess) -> RunningProcess:
    """A real Celery worker (REDIS_URL broker) on the test database; mark the test `services`."""
    _celery_worker.check_alive()
    return _celery_worker


# --- Channels ----------------------------------------------------------------------------------


@pytest.fixture
async def channel_layer():
    """The configured channel layer for an async test, flushed (connections closed) after it."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    yield layer
    await layer.flush()


def restore_icons() -> None:
    """A transactional test's flush empties tables that migrations filled: put the icons back."""
    import importlib

    from django.apps import apps

    from villages.models import Icon

    if not Icon.objects.exists():
        importlib.import_module("villages.migrations.0001_squashed_0012_ended_order").add_icons(
            apps, None
        )


# --- The sweep --------------------------------------------------------------------------------


@pytest.fixture
def sweeping(settings):
    """For a live-site test: the sweep (deadlines, then due bots) every half second in a
    thread of this process, when the site process has no ticker of its own — with Redis,
    where Celery beat is the clock (and this process's pushes reach the site's sockets
    through Redis). On the embedded default the site's ticker sweeps, and this process
    must not: its pushes would go to its own in-memory layer, never to the site's sockets."""
    import threading

    from villages.services import clock

    if not os.environ.get("REDIS_URL"):
        yield
        return
    settings.JINRO_BOT_DELAY = 1
    stop = threading.Event()

    def loop() -> None:
        from django.db import connections

        try:
            while not stop.wait(0.5):
                clock.sweep_due_villages()
        finally:
            connections.close_all()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(10)
    # Nothing left due for another sweeper while the database is emptied.
    from villages.models import Seat, Village

    Village.objects.update(deadline_at=None)
    Seat.objects.update(bot_next_at=None)


# --- Redis away ------------------------------------------------------------------------------


@pytest.fixture
def cache_unreachable(monkeypatch):
    """The rate limits' cache (Redis in production) answers every call with a connection
    error, as when Redis is down."""
    from villages.services import ratelimit

    class Unreachable:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise ConnectionError("cache down")

            return fail

    monkeypatch.setattr(ratelimit, "cache", Unreachable())


# --- Speed -------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _test_settings(request: pytest.FixtureRequest) -> None:
    """Settings for speed and safety, in every test that runs with Django (the engine's
    tests also run without it: `pytest tests/engine -p no:django`).

    * PBKDF2 costs ~0.4 s a password on this machine: tests hash with MD5 instead.
    * Tests empty the cache freely; with REDIS_URL the site's cache is Redis, whose
      FLUSHDB would also drop the Celery queue that a test's worker is reading.
    """
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings = request.getfixturevalue("settings")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Shedding load is tested where it is the point (tests/realtime/test_overload.py);
    # elsewhere a machine busy with the suite itself must not refuse the tests' writes.
    settings.JINRO_WRITE_WAIT_MS = settings.JINRO_QUEUE_WAIT_MS = UNHURRIED_MS
    settings.JINRO_READ_QUEUE_WAIT_MS = UNHURRIED_MS
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # A test's rows are rolled back, and the top page's version with them: what it drew
    # under a version (kept in this cache) must not be another test's.
    from django.core.cache import cache

    from villages.views.polls import KEPT

    cache.clear()
    KEPT.clear()  # pages drawn under a version, as above
