"""Logging filters (settings.LOGGING): what the site's log should not be flooded with."""

from __future__ import annotations

import asyncio
import logging
import time

from redis.exceptions import RedisError

REFUSED_FOR_LOAD = {429, 503}  # rate_limited, overloaded: the site shedding load, no fault


class RefusalsAreNotFaults(logging.Filter):
    """Django logs every 4xx and 5xx answer on `django.request` (with `status_code` in the
    record, as its logging documentation says). A refusal for load (429 with Retry-After,
    503 overloaded) is the site working as meant: kept at INFO, not a warning or an error
    per refused request while the site is busiest."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) in REFUSED_FOR_LOAD:
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


# The channel layer's probe (jinro_site.redis_layer) marks its two warnings with this
# `extra` key: "lost" when Redis stops answering, "back" when pushes flow again.
OUTAGE_MARK = "redis_outage"


def _about_redis(record: logging.LogRecord) -> bool:
    """The record's exception (or one its message gives) is Redis not answering: a
    redis-py error anywhere in its chain, or a socket error of channels-redis's loop."""
    args = record.args if isinstance(record.args, tuple) else ()
    given = [record.exc_info[1] if record.exc_info else None]
    given += [a for a in args if isinstance(a, BaseException)]
    for error in given:
        seen = 0
        while error is not None and seen < 10:
            if isinstance(error, RedisError):
                return True
            error, seen = error.__cause__ or error.__context__, seen + 1
    exc = record.exc_info[1] if record.exc_info else None
    return isinstance(exc, OSError) and record.name.startswith("channels_redis")


# What channels-redis's pub/sub layer logs (on its module's logger) when a receive that was
# cancelled fails to unsubscribe its channel.
CLEANUP_LOGGER = "channels_redis.pubsub"
CLEANUP_MESSAGE = "Unexpected exception while cleaning-up channel"


def shutdown_cleanup(record: logging.LogRecord) -> bool:
    """The record is channels-redis's for a channel's unsubscribe that was itself
    cancelled (daphne stopping with the socket open): that logger, that message, a
    CancelledError."""
    error = record.exc_info[1] if record.exc_info else None
    return (
        isinstance(error, asyncio.CancelledError)
        and record.name == CLEANUP_LOGGER
        and record.getMessage().startswith(CLEANUP_MESSAGE)
    )


class QuietRedisOutage(logging.Filter):
    """While Redis is away, everything that uses it fails and says so: channels-redis's
    receive loop each second, daphne for each socket that connects, the health check and
    Django for each request, the pushes of each commit, the cache — a full traceback each
    time (a 15-second outage wrote 1,400 lines). On the console handler, this filter
    keeps one warning when Redis goes (the probe's "lost Redis", or the first error if it
    comes first, as one line) and one when it is back (the probe's, with how long it was
    away and how many records about it were left out), and counts the rest.

    A process without the probe (a Celery worker) never hears that Redis is back: after
    QUIET_FOR seconds without an error about it, the next one is a new outage, and its
    warning counts what the last one left out.

    It also drops the traceback channels-redis logs for every socket open when daphne
    stops (`shutdown_cleanup`): each socket's channel is unsubscribed as its task is
    cancelled, and daphne's shutdown cancels that cleanup too. Nothing is wrong then (the
    subscriptions end with the process's connection). Any other record of a
    cancellation passes as it is."""

    QUIET_FOR = 60.0

    def __init__(self) -> None:
        super().__init__()
        self.down_since: float | None = None  # monotonic, while Redis is away
        self.last = 0.0  # the last record about the outage
        self.left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if shutdown_cleanup(record):
            return False
        now = time.monotonic()
        mark = getattr(record, OUTAGE_MARK, None)
        if mark == "back":
            return self._back(record, now)
        if self.down_since is not None and now - self.last >= self.QUIET_FOR:
            self._over()  # no word of it for a while (no probe here): a new one starts
        if mark == "lost" or _about_redis(record) or self._health_refusal(record):
            return self._during(record, now, first=mark == "lost")
        return True

    def _during(self, record: logging.LogRecord, now: float, *, first: bool) -> bool:
        self.last = now
        if self.down_since is not None:
            self.left_out += 1
            return False
        self.down_since = now
        text = record.getMessage()
        if not first:  # an error before the probe's warning: that warning, as one line
            error = record.exc_info[1] if record.exc_info else None
            what = f"{type(error).__name__}: {error}" if error else text
            text = f"Redis unreachable ({record.name}): {what}"
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        earlier = (
            f"; {self.left_out} records of an earlier outage left out" if self.left_out else ""
        )
        record.msg = f"{text} (until it is back, records about it are counted{earlier})"
        record.args = ()
        self.left_out = 0
        return True

    def _back(self, record: logging.LogRecord, now: float) -> bool:
        if self.down_since is None:
            # Another loop's probe saying it again, or an outage nothing else noticed.
            return now - self.last >= self.QUIET_FOR
        away = now - self.down_since
        record.msg = (
            f"{record.getMessage()}; Redis was away {away:.0f} s, "
            f"{self.left_out} log records about it were left out"
        )
        record.args = ()
        self.down_since, self.left_out, self.last = None, 0, now
        return True

    def _over(self) -> None:
        self.down_since = None

    def _health_refusal(self, record: logging.LogRecord) -> bool:
        """Django's line for each 503 of the health check while Redis is away (the check's
        own line carries the error)."""
        return (
            self.down_since is not None
            and record.name == "django.request"
            and getattr(record, "status_code", None) == 503
        )
