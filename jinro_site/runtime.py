"""The process's clockwork: its long-lived event loop, the embedded sweep ticker, and
the garbage collector's tuning.

* `process_loop()`: one event loop per process, in a daemon thread, started on first use
  (again after a fork): where synchronous code's sends to the channel layer run when no
  socket hub runs in the process (`jinro_site.livebus`) — never a fresh loop per send
  ("Event loop is closed", django/channels_redis#332), so nothing is left behind per call.
* `SweepTicker`: the embedded site's clock, a thread that runs the deadline sweep every
  JINRO_SWEEP_INTERVAL seconds while something can be due (Celery beat does it in
  production).
* `tune_gc_for_a_server()`: fewer garbage collections in a process holding many sockets.
"""

import asyncio
import gc
import logging
import os
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime

from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections
from django.utils import timezone

from jinro_site import dbchanges

logger = logging.getLogger(__name__)

# When the request being served arrived (`time.monotonic()`; None outside a request): the
# waits of its work share one budget from then (villages.services.gate).
ARRIVED: ContextVar[float | None] = ContextVar("arrived", default=None)


class LoopThread:
    """An event loop running forever in a daemon thread."""

    def __init__(self, name: str = "jinro-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()
        self.loop.close()

    def stop(self, timeout: float = 5) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)


_process_loop: LoopThread | None = None
_process_loop_pid = 0
_process_loop_lock = threading.Lock()


def process_loop() -> asyncio.AbstractEventLoop:
    """This process's long-lived loop, started on first use (and again after a fork)."""
    global _process_loop, _process_loop_pid
    with _process_loop_lock:
        if _process_loop is None or _process_loop_pid != os.getpid():
            _process_loop = LoopThread("jinro-process-loop")
            _process_loop_pid = os.getpid()
        return _process_loop.loop


def stop_process_loop() -> None:
    global _process_loop
    with _process_loop_lock:
        if _process_loop is not None and _process_loop_pid == os.getpid():
            _process_loop.stop()
        _process_loop = None


GC_THRESHOLDS = (50_000, 20, 100)


def tune_gc_for_a_server() -> None:
    """Fewer and smaller garbage collections in a process that holds thousands of sockets.

    With the default thresholds a full collection walks every object of every connection
    and sets the p99 of the WebSocket fan-out (60-160 ms measured here, STYLE.md). Objects
    alive at startup (modules, settings, URL patterns) are frozen out of the collector's
    walk, and the young generation is collected every 50,000 allocations, not 700.

    Measured at stop 25 (bench/ws_latency.py, V = 200, a GC probe in every process):
    collecting every 5,000 gave the daphne holding the sockets more, shorter pauses and no
    better p99 (frames 94 and 112 ms against 77-83), so these thresholds stay. A request
    used to leave some 60 objects in reference cycles, so that a posting daphne collected
    40,000 of them at once every 16 s (45-105 ms, its slowest POSTs); it leaves none now
    (`jinro_site.requestcycles`). The environment's `GC_THRESHOLDS` ("young,middle,old")
    overrides them.
    """
    thresholds = gc_thresholds()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    slow = os.environ.get("GC_LOG_MS", "").strip()
    if slow.isdigit():
        gc.callbacks.append(_SlowCollections(int(slow)))


class _SlowCollections:
    """GC_LOG_MS=<ms>: each garbage collection that held the process longer is logged (its
    generation, duration and what it freed), to tune GC_THRESHOLDS against the pauses."""

    def __init__(self, slower_than_ms: int) -> None:
        self.slower_than = slower_than_ms / 1000
        self.started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            return
        took = time.perf_counter() - self.started
        if took >= self.slower_than:
            logger.warning(
                "garbage collection of generation %d took %.1f ms (%d collected)",
                info["generation"],
                took * 1000,
                info["collected"],
            )


def gc_thresholds() -> tuple[int, int, int]:
    """The three numbers of the environment's GC_THRESHOLDS, or else GC_THRESHOLDS (a
    site that will not start says why, rather than run with thresholds nobody chose)."""
    found = os.environ.get("GC_THRESHOLDS", "").strip()
    if not found:
        return GC_THRESHOLDS
    parts = [p.strip() for p in found.split(",")]
    if len(parts) != 3 or not all(p.isdigit() for p in parts) or int(parts[0]) == 0:
        raise ImproperlyConfigured(
            f"GC_THRESHOLDS={found!r}: give three whole numbers, the first above 0 "
            '(for example "50000,20,100")'
        )
    young, middle, old = (int(p) for p in parts)
    return young, middle, old


class SweepTicker(threading.Thread):
    """Calls `target` every `interval` seconds in this thread until stopped (the embedded
    site's clock: what it commits is published like any commit, `jinro_site.livebus`) —
    except while nothing can be due: after a sweep, `next_due()` says when something next
    comes due (a deadline, a bot's look), and until that time comes a tick only checks
    that nobody else has committed to the database since (`jinro_site.dbchanges`: SQLite's
    data version, some 0.05 ms; a sweep that finds nothing due reads and updates four
    times, 3-4 ms of CPU a second on an idle site). On an engine without such a marker it
    sweeps at every tick.

    A failing sweep is logged and the ticker goes on: it must never take the server down.
    The same failure repeated is logged in full once a minute, not every tick.
    """

    REPEAT_LOG_SECONDS = 60.0

    def __init__(
        self,
        *,
        target: Callable[[], object],
        interval: float,
        next_due: Callable[[], datetime | None] | None = None,
    ) -> None:
        super().__init__(name="jinro-sweep-ticker", daemon=True)
        self.sweep = target
        self.next_due = next_due
        self.interval = interval
        self._stopping = threading.Event()
        self._last_error: tuple[str, float] | None = None
        # After a sweep: the database's marker, and when something next comes due.
        self._quiet: tuple[object, datetime | None] | None = None

    def run(self) -> None:
        logger.info("sweep ticker started: every %ss", self.interval)
        while not self._stopping.wait(self.interval):
            self.tick()

    def stop(self, timeout: float | None = None) -> None:
        self._stopping.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)

    def tick(self) -> None:
        close_old_connections()
        try:
            if self._nothing_due():
                return
            self._quiet = None
            self.sweep()
            if self.next_due is not None:
                found = dbchanges.marker()  # first: a commit after the read below moves it
                if found is not None:
                    self._quiet = (found, self.next_due())
        except Exception as error:
            self._log_failure(error)
        else:
            self._last_error = None

    def _nothing_due(self) -> bool:
        """Nothing has come due since the last sweep, and nobody else has committed."""
        if self._quiet is None:
            return False
        found, due = self._quiet
        return dbchanges.marker() == found and (due is None or timezone.now() < due)

    def _log_failure(self, error: Exception) -> None:
        key = f"{type(error).__name__}: {error}"
        now = time.monotonic()
        last = self._last_error
        if last and last[0] == key and now - last[1] < self.REPEAT_LOG_SECONDS:
            logger.debug("sweep failed again: %s", key)
            return
        self._last_error = (key, now)
        logger.exception("sweep failed (the ticker goes on)")
