"""Real processes for the realtime tests: Celery workers and beats, daphne, redis-server.

Each runs on the test database with this process's environment plus what the test adds
(short JINRO_* rules, a Celery queue of its own, another Redis).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, RunningProcess, free_port, stop_process, subprocess_env

# The clock of the process tests: a 4-second day, 3 seconds to vote once time is up, an
# outage after 4 seconds overdue, a silent period of 2 seconds, alerts every second.
SHORT_RULES = {
    "JINRO_SUDDEN_DEATH_GRACE": 3,
    "JINRO_MIN_PHASE_SECONDS": 1,
    "JINRO_OUTAGE_SECONDS": 4,
    "JINRO_ALERT_FROM": 2,
    "JINRO_ALERT_EVERY": 1,
    "JINRO_SILENCE_REAL_SECONDS": 2,
    "JINRO_SWEEP_INTERVAL": 1,
    "JINRO_RATE_LIMIT_ENABLED": False,
    "JINRO_ONE_SEAT_PER_IP": False,
    "JINRO_MAX_ACTIVE_VILLAGES": 1000,
}


def rules_env(rules: dict[str, int | bool]) -> dict[str, str]:
    return {name: str(int(value)) for name, value in rules.items()}


def spawn(name: str, args: list[str], log_dir: Path, env: dict[str, str]) -> RunningProcess:
    full_env = subprocess_env()
    full_env.update(env)
    log_path = log_dir / f"{name}.log"
    with log_path.open("ab") as log:
        popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return RunningProcess(popen=popen, log_path=log_path, name=name)


def wait_for(condition: Callable[[], object], *, timeout: float, what: str, every=0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout} s")


# --- Celery ----------------------------------------------------------------------------------


class Sweepers:
    """Celery workers and beats on a queue of their own, with SHORT_RULES."""

    def __init__(self, log_dir: Path, rules: dict[str, int | bool] = SHORT_RULES) -> None:
        self.log_dir = log_dir
        self.queue = f"jinro-realtime-{os.getpid()}"
        self.env = rules_env(rules) | {"CELERY_QUEUE": self.queue}
        self.workers: list[RunningProcess] = []
        self.beats: list[RunningProcess] = []
        self._serial = 0

    def start_workers(self, count: int = 2) -> None:
        from jinro_site.celery import app

        started = []
        for _ in range(count):
            self._serial += 1
            node = f"sweeper{self._serial}-{os.getpid()}@{socket.gethostname()}"
            args = [sys.executable, "-m", "celery", "-A", "jinro_site", "worker"]
            args += ["--loglevel=INFO", "--concurrency=2", "--hostname", node]
            args += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
            process = spawn(f"worker{self._serial}", args, self.log_dir, self.env)
            process.name = node
            started.append(process)
        for process in started:

            def answers(node: str = process.name) -> bool:
                return bool(app.control.ping(destination=[node], timeout=0.5))

            wait_for(answers, timeout=60, what=f"{process.name} answering")
        self.workers += started

    def stop_workers(self) -> None:
        for process in self.workers:
            stop_process(process, timeout=30)
        self.workers = []

    def kill_workers(self) -> None:
        """An outage: every worker killed at once (a warm shutdown, one after the other, can
        outlast a short grace on a slow machine, and a worker would sweep meanwhile)."""
        for process in self.workers:
            os.killpg(process.popen.pid, signal.SIGKILL)
        for process in self.workers:
            process.popen.wait(30)
        self.workers = []

    def start_beats(self, count: int = 2) -> None:
        for n in range(count):
            schedule = self.log_dir / f"beat{n}-schedule"
            args = [sys.executable, "-m", "celery", "-A", "jinro_site", "beat"]
            args += ["--loglevel=INFO", "--schedule", str(schedule)]
            self.beats.append(spawn(f"beat{n}", args, self.log_dir, self.env))

    def stop(self) -> None:
        for process in self.beats:
            stop_process(process)
        self.beats = []
        self.stop_workers()

    def check_alive(self) -> None:
        for process in [*self.workers, *self.beats]:
            process.check_alive()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.log()[-3000:]}" for p in [*self.workers, *self.beats])


# --- daphne ----------------------------------------------------------------------------------


def start_site(log_dir: Path, env: dict[str, str], name: str = "daphne") -> RunningProcess:
    """`manage.py runsite --no-ticker` on a free port; `.url` is its base URL."""
    port = free_port()
    args = [sys.executable, "manage.py", "runsite", "--no-ticker", "--no-access-log"]
    args += ["--host", "127.0.0.1", "--port", str(port)]
    process = spawn(f"{name}-{port}", args, log_dir, env)
    process.url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        process.check_alive()
        try:
            with urllib.request.urlopen(f"{process.url}/healthz", timeout=2):
                return True
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False

    wait_for(answers, timeout=60, what=f"{process.name} answering HTTP")
    return process


# --- redis-server ----------------------------------------------------------------------------


class RedisServer:
    """A redis-server of the test's own on a free port, to stop and start at will."""

    def __init__(self, log_dir: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed")
        self.binary = binary
        self.port = free_port()
        self.log_dir = log_dir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(self.log_dir)]
        with (self.log_dir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_for(self.answers, timeout=15, what="redis-server answering")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None
