"""Where synchronous service code runs outside a request, in both runtimes.

Services publish with `async_to_sync(channel_layer.group_send)(...)`. Inside a
`sync_to_async` thread that call hops back onto the event loop that started the thread,
which is what both runtimes rely on:

* embedded (`manage.py runsite`): the `SweepTicker` runs the sweep on daphne's own loop,
  so the in-memory channel layer reaches the server's sockets;
* Celery worker: each worker process keeps ONE long-lived loop (`process_loop()`) and
  tasks run their body on it, so channels-redis keeps its connections instead of meeting a
  fresh loop per send ("Event loop is closed", django/channels_redis#332).
"""

import asyncio
import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)

T = TypeVar("T")

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
        # Closing runs the channel layer's per-loop clean-up (channels_redis wraps close()).
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

    The price, measured at stop 25 (bench/ws_latency.py, V = 200, a GC probe in every
    process): a request leaves about 90 objects in reference cycles (Django's request and
    response), so a posting daphne collects some 40,000 young objects every half minute,
    80-105 ms, and its slowest POSTs are those. Collecting every 5,000 took those pauses
    away but gave more, shorter ones to the daphne holding the sockets and no better p99
    (frames 94 and 112 ms against 77-83), so these thresholds stay. The environment's
    `GC_THRESHOLDS` ("young,middle,old") overrides them.
    """
    thresholds = gc_thresholds()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


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


def run_sync_on_loop(func: Callable[[], T], *, loop: asyncio.AbstractEventLoop | None = None) -> T:
    """Run the synchronous `func` as if called from an async consumer on `loop`.

    `func` runs in a worker thread of `loop` with fresh database connections (closed again
    afterwards); any `async_to_sync` inside it executes on `loop`. The caller blocks until
    `func` returns and gets its result or exception. Must not be called on `loop` itself.
    """
    target = loop or process_loop()
    call = database_sync_to_async(func, thread_sensitive=False)
    return asyncio.run_coroutine_threadsafe(call(), target).result()


def group_send_sync(group: str, message: dict) -> None:
    """Send `message` to a channel-layer group from synchronous code."""
    async_to_sync(get_channel_layer().group_send)(group, message)


def listening_sync(groups: Sequence[str]) -> set[str]:
    """Which of `groups` have a member now, in any process (every group, for a layer that
    cannot tell). A socket joins its groups before it reads the database, so one that
    joins after this answer reads what the caller committed before asking."""
    layer = get_channel_layer()
    if not groups:
        return set()
    # Asked of the class: channels-redis's layer answers unknown attributes from a per-loop
    # layer, which needs a running loop (this is a plain thread).
    if not hasattr(type(layer), "listening_now"):
        return set(groups)
    try:
        return layer.listening_now(list(groups))  # the site's layers answer here, no hop
    except Exception:
        logger.warning("channel layer: could not tell who listens", exc_info=True)
        return set(groups)


def group_send_many_sync(sends: Sequence[tuple[str, dict]]) -> list[BaseException]:
    """Send each `(group, message)` in order from synchronous code, in one hop to the loop.

    One hop, not one per group: from a plain thread `async_to_sync` starts an event loop
    (and the Redis layer a connection) per call. A failed send does not stop the others
    (with `post_many`, they fail or succeed together); the failures are returned for the
    caller to log.

    The sends are never cut short. A request's view runs in a `sync_to_async` thread, and
    when its client goes away (a browser that navigates while its POST is pending) Django
    cancels the request, and asgiref passes the cancellation on to the task that
    `async_to_sync` runs here: the viewers after the cut would miss the commit's frames.
    So the sends run in a task of their own, shielded, and are awaited to the end.

    The site's layers take the sends at once instead, from this thread (`post_many`): the
    in-process one (the embedded site's) queues them on its consumers' loop in the order
    they were posted; the Redis one publishes them in one round trip.
    """
    if not sends:
        return []
    layer = get_channel_layer()
    if hasattr(type(layer), "post_many"):
        try:
            if layer.post_many(list(sends)):
                return []  # queued or published, in order, all together (no hop)
        except Exception as error:
            return [error] * len(sends)

    async def send_each() -> list[BaseException]:
        failures: list[BaseException] = []
        for group, message in sends:
            try:
                await layer.group_send(group, message)
            except Exception as error:
                failures.append(error)
        return failures

    async def send_all() -> list[BaseException]:
        sending = asyncio.ensure_future(send_each())
        try:
            return await asyncio.shield(sending)
        except asyncio.CancelledError:
            # The command is committed: finish telling everyone; the request that was
            # cancelled then ends as if it had not been (its client is gone anyway).
            return await sending

    return on_layer_loop(get_channel_layer(), send_all)


def on_layer_loop(layer: Any, make: Callable[[], Any]) -> Any:
    """Run the coroutine `make()` from synchronous code, for `layer`.

    A layer whose connections belong to an event loop (`keeps_connections_per_loop`, the
    Redis one) is used on this process's long-lived loop: from a plain thread,
    `async_to_sync` would start a loop, and so a Redis connection, per call. Others (the
    in-memory layer, whose queues belong to the consumers' loop) go through
    `async_to_sync` as before.
    """
    if getattr(layer, "keeps_connections_per_loop", False):
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not process_loop():
            return asyncio.run_coroutine_threadsafe(make(), process_loop()).result()
    return async_to_sync(make)()


class SweepTicker(threading.Thread):
    """Calls `target` every `interval` seconds on `loop` until stopped (embedded mode).

    A failing sweep is logged and the ticker goes on: it must never take the server down.
    The same failure repeated is logged in full once a minute, not every tick.
    """

    REPEAT_LOG_SECONDS = 60.0

    def __init__(
        self,
        *,
        target: Callable[[], object],
        interval: float,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        super().__init__(name="jinro-sweep-ticker", daemon=True)
        self.sweep = target
        self.interval = interval
        self.loop = loop
        self._stopping = threading.Event()
        self._last_error: tuple[str, float] | None = None

    def run(self) -> None:
        logger.info("sweep ticker started: every %ss", self.interval)
        while not self._stopping.wait(self.interval):
            self.tick()

    def stop(self, timeout: float | None = None) -> None:
        self._stopping.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)

    def tick(self) -> None:
        try:
            run_sync_on_loop(self.sweep, loop=self.loop)
        except Exception as error:
            self._log_failure(error)
        else:
            self._last_error = None

    def _log_failure(self, error: Exception) -> None:
        key = f"{type(error).__name__}: {error}"
        now = time.monotonic()
        last = self._last_error
        if last and last[0] == key and now - last[1] < self.REPEAT_LOG_SECONDS:
            logger.debug("sweep failed again: %s", key)
            return
        self._last_error = (key, now)
        logger.exception("sweep failed (the ticker goes on)")
