"""The site's one way onto the channel layer: publish an event from anywhere, and check
the layer for the health check.

The layers are the stack's own, used through the Channels layer API only: channels-redis's
`RedisPubSubChannelLayer` in production, Channels' `InMemoryChannelLayer` on the embedded
default. What the site adds lives beside them, here and in the socket processes' hub
(`villages.consumers.hub`): one event per change, sequence numbers, catching up from the
database.

* `publish(group, message)` may be called from any thread (a request's, the sweep ticker's,
  a Celery task's) or from a coroutine. It does not wait: the `group_send` runs on the
  *bus loop* — the loop of this process's socket hub when one runs (the in-memory layer's
  queues belong to it, and may be touched from it only), else this process's long-lived
  loop (`jinro_site.runtime.process_loop`), never a fresh loop per call. Sends keep the
  order of the calls (the loop runs them first come, first served). A send that fails is
  logged with what is missing (no connection, a permission the Redis account lacks), at
  most once a minute per kind of failure, with a count of the others; the caller's
  commit stands, and the sockets catch up from the database (the hub's heartbeat).
* `check(timeout)` (for /healthz): a publish on the bus loop, waited for. It creates no
  channel, leaves no subscription and no loop behind.
* With the in-memory layer and no hub in this process, nobody can hear a publish: it is
  skipped.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

from channels.layers import InMemoryChannelLayer, get_channel_layer
from redis.exceptions import NoPermissionError, RedisError

from jinro_site.logfilters import OUTAGE_MARK
from jinro_site.runtime import process_loop

logger = logging.getLogger(__name__)

HEALTH_GROUP = "jinro.healthz"
REPEAT_LOG_SECONDS = 60.0

_lock = threading.Lock()
_hub_loop: asyncio.AbstractEventLoop | None = None


def serve_on(loop: asyncio.AbstractEventLoop) -> None:
    """A socket hub runs on `loop`: publish there from now on."""
    global _hub_loop
    with _lock:
        _hub_loop = loop


def stop_serving(loop: asyncio.AbstractEventLoop) -> None:
    """The hub of `loop` stopped."""
    global _hub_loop
    with _lock:
        if _hub_loop is loop:
            _hub_loop = None


def hub_loop() -> asyncio.AbstractEventLoop | None:
    with _lock:
        loop = _hub_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def bus_loop() -> asyncio.AbstractEventLoop | None:
    """Where this process's sends run (None: nobody here could hear one)."""
    loop = hub_loop()
    if loop is not None:
        return loop
    if isinstance(get_channel_layer(), InMemoryChannelLayer):
        return None  # an in-process layer, and no socket in this process
    return process_loop()


def publish(group: str, message: dict[str, Any]) -> None:
    """Send `message` to `group` (see the module's docstring); never waits, never raises
    for the layer's sake."""
    loop = bus_loop()
    if loop is None:
        return
    work = _send(group, message)
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    try:
        if running is loop:
            _keep(loop.create_task(work))
        else:
            asyncio.run_coroutine_threadsafe(work, loop)
    except RuntimeError:  # the loop closed meanwhile: nobody there to hear it
        work.close()


_pending: set[asyncio.Task[None]] = set()


def _keep(task: asyncio.Task[None]) -> None:
    """A task the loop holds only weakly: kept until it is done."""
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _send(group: str, message: dict[str, Any]) -> None:
    try:
        await get_channel_layer().group_send(group, message)
    except Exception as error:
        FAILURES.note(error, group)


def check(timeout: float = 3.0) -> None:
    """Publish to a group nobody hears and wait for it: raises when the layer cannot take
    it (no connection, no permission) within `timeout` seconds. Not on the bus loop."""
    loop = bus_loop()
    if loop is None:
        return  # the in-memory layer, and nothing listening here: nothing to reach
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        raise RuntimeError("livebus.check() must not be called on the bus loop")
    future: Future[None] = asyncio.run_coroutine_threadsafe(
        get_channel_layer().group_send(HEALTH_GROUP, {"type": "healthz.ping"}), loop
    )
    try:
        future.result(timeout)
    except TimeoutError:
        future.cancel()
        raise


def what_failed(error: BaseException) -> str:
    """A failure of the layer as an operator reads it: what is missing."""
    if isinstance(error, NoPermissionError):
        return (
            f"the Redis account lacks a permission the site needs ({error}); it needs"
            " PUBLISH, SUBSCRIBE, UNSUBSCRIBE and PING (see docs/operations.md)"
        )
    if isinstance(error, RedisError | OSError):
        return f"no connection to Redis ({type(error).__name__}: {error})"
    return f"{type(error).__name__}: {error}"


class _Failures:
    """Failed sends, logged at most once a minute per kind, with a count of the others."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last: dict[str, tuple[float, int]] = {}

    def note(self, error: BaseException, group: str) -> None:
        kind = type(error).__name__
        now = time.monotonic()
        with self.lock:
            at, skipped = self.last.get(kind, (-REPEAT_LOG_SECONDS, 0))
            if now - at < REPEAT_LOG_SECONDS:
                self.last[kind] = (at, skipped + 1)
                return
            self.last[kind] = (now, 0)
        more = f" ({skipped} more failed since the last word)" if skipped else ""
        extra = {OUTAGE_MARK: "lost"} if isinstance(error, RedisError | OSError) else {}
        logger.warning(
            "channel layer: a publish to %s failed: %s%s; open screens catch up from the database",
            group,
            what_failed(error),
            more,
            extra=extra,
        )


FAILURES = _Failures()
