"""How the writes of one process wait for each other: a bounded wait, then a refusal.

Every command of a village runs under a lock of this process for that village, held from
the start of its transaction until its push is sent, so that a village's pushes leave in
the order of its commits (a socket that sees them out of order must read the database).
On SQLite, the embedded default, the database takes one writer at a time: there the lock
is one for the whole process, so that writers queue here, in order, instead of in
SQLite's busy handler (which sleeps and retries, unfairly, for up to its timeout).

A writer waits at most `JINRO_WRITE_WAIT_MS` for its turn, counted from when its request
arrived (the wait for a request thread comes off it, so that no answer waits for both in
full); past that the site is over its capacity and the command is refused with
`Overloaded` (503 with Retry-After), having changed nothing. A thread may take the lock
again while it holds it (a command run from inside another's transaction).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

from jinro_site.runtime import ARRIVED

from .config import number
from .errors import Overloaded

_STRIPES = 64
_VILLAGES = [threading.RLock() for _ in range(_STRIPES)]
_DATABASE = threading.RLock()


def _lock_for(village_id: int) -> threading.RLock:
    if connection.vendor == "sqlite":
        return _DATABASE
    return _VILLAGES[village_id % _STRIPES]


@contextmanager
def write_turn(village_id: int) -> Iterator[None]:
    """Hold the village's turn to write (see the module's text), or raise Overloaded."""
    lock = _lock_for(village_id)
    budget = number("WRITE_WAIT_MS") / 1000
    arrived = ARRIVED.get()
    if arrived is not None:
        budget -= time.monotonic() - arrived
    if not lock.acquire(timeout=max(budget, 0)):
        raise Overloaded()
    try:
        yield
    finally:
        lock.release()
