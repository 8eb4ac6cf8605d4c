"""daphne's two sweeps over its connections, a slice at a time.

daphne's `Server` walks every connection it holds in two periodic sweeps, each in one turn
of the event loop: `application_checker` (every second: reap the ASGI applications that
finished, cancel those that outlived their closed connection) and `timeout_checker`
(every two seconds: each connection's timeouts, and the WebSocket pings that fall due).
With 4,400 sockets (bench/ws_latency.py at 200 villages) the two held the loop for 5.5 ms
and 35 ms on average (46 ms during the posting, 108 ms at most), and every frame to be
sent meanwhile waited behind them: a steady stall of the live screen, a fiftieth of the
time, whatever the load.

`spread_sweeps()` makes daphne's servers do the same work in slices: every `TICK` seconds
each sweep takes the next part of the connections it listed at the start of its round, so
that each connection is still looked at once per period (1 s, 2 s), and a turn of the loop
looks at a tenth or a twentieth of them. A round begins a period after the last one began,
as daphne's sweeps do: an idle server wakes no more often than before. What each look does
is daphne's (see `_reap` below for the application checker; the timeout checker calls each
connection's own `check_timeouts`). tests/web/test_daphne_sweeps.py fails if an upgrade of daphne
changes the names or the bookkeeping this relies on.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

logger = logging.getLogger("daphne.server")  # daphne's own logger: its messages, its place

TICK = 0.1  # seconds between two slices of a sweep
APPLICATIONS_EVERY = 1.0  # daphne's period for application_checker
TIMEOUTS_EVERY = 2.0  # daphne's period for timeout_checker


class Round:
    """One sweep's rounds: the connections listed when a round begins, handed out a slice
    per tick so that the round lasts `period` seconds at most; the next round begins a
    period after this one began (daphne's pace), however few the connections."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.listed: list[Any] = []
        self.at = 0
        self.step = 1
        self.began = -period

    def next_slice(self, connections: dict[Any, Any], now: float) -> list[Any]:
        if not self.listed:
            if now - self.began < self.period:
                return []
            self.listed, self.at, self.began = list(connections), 0, now
            self.step = max(1, math.ceil(len(self.listed) * TICK / self.period))
        part = self.listed[self.at : self.at + self.step]
        self.at += self.step
        if self.at >= len(self.listed):
            self.listed = []  # let the closed ones go
        return part

    def wait(self, now: float) -> float:
        """Seconds until the next slice is due."""
        if self.listed:
            return TICK
        return max(TICK, self.began + self.period - now)


def _round(server: Any, name: str, period: float) -> Round:
    found: Round | None = server.__dict__.get(name)
    if found is None:
        found = server.__dict__[name] = Round(period)
    return found


def _reap(server: Any, protocol: Any) -> None:
    """daphne's application check of one connection: an application that outlived its
    closed connection by `application_close_timeout` is cancelled; a finished one is let
    go (its exception logged, and shown to a client still connected); a connection closed
    with no application left is forgotten."""
    details = server.connections.get(protocol)
    if details is None:
        return
    closed_at = details.get("disconnected")
    instance = details.get("application_instance")
    if (
        closed_at
        and instance is not None
        and not instance.done()
        and time.time() - closed_at > server.application_close_timeout
    ):
        logger.warning(
            "Application instance %r for connection %s took too long to shut down and was killed.",
            instance,
            repr(protocol),
        )
        instance.cancel()
    if instance is not None and instance.done():
        try:
            error = instance.exception()
        except (CancelledError, asyncio.CancelledError):
            error = None
        if isinstance(error, KeyboardInterrupt):  # the protocol asks the server to stop
            server.stop()
        elif error is not None:
            logger.error("Exception inside application: %s", error, exc_info=error)
            if not closed_at:
                protocol.handle_exception(error)
        del details["application_instance"]
        instance = None
    if instance is None and closed_at:
        del server.connections[protocol]


_clock = time.monotonic


def _later(delay: float, sweep: Callable[[], None]) -> None:
    from twisted.internet import reactor as installed  # daphne's: daphne.server installed it

    reactor: Any = installed  # (twisted's stubs type the module, not the reactor)
    reactor.callLater(delay, sweep)


def application_checker(self: Any) -> None:
    """daphne's `Server.application_checker`, a slice per tick."""
    rounds, now = _round(self, "_jinro_applications", APPLICATIONS_EVERY), _clock()
    for protocol in rounds.next_slice(self.connections, now):
        _reap(self, protocol)
    _later(rounds.wait(now), self.application_checker)


def timeout_checker(self: Any) -> None:
    """daphne's `Server.timeout_checker`, a slice per tick."""
    rounds, now = _round(self, "_jinro_timeouts", TIMEOUTS_EVERY), _clock()
    for protocol in rounds.next_slice(self.connections, now):
        if protocol in self.connections:
            protocol.check_timeouts()
    _later(rounds.wait(now), self.timeout_checker)


SWEEPS: dict[str, Callable[[Any], None]] = {
    "application_checker": application_checker,
    "timeout_checker": timeout_checker,
}


def spread_sweeps() -> None:
    """Make daphne's `Server` sweep its connections a slice per tick (see the module).
    Only where daphne serves: `daphne.server` (which installs twisted's reactor) is
    imported by daphne's command and by `manage.py runsite` before the application."""
    daphne_server = sys.modules.get("daphne.server")
    if daphne_server is not None:
        for name, sweep in SWEEPS.items():
            setattr(daphne_server.Server, name, sweep)
