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


class QuietRedisOutage(logging.Filter):
    """channels-redis's receive loop logs a traceback each second while Redis is away:
    keep the first of an outage, as one line, and drop the rest until Redis answers.

    It also logs a traceback for every socket open when daphne stops: each socket's
    channel is unsubscribed as its task is cancelled, and daphne's shutdown cancels that
    cleanup too (a CancelledError). Nothing is wrong then (the subscriptions end with the
    process's connection), so those are dropped."""

    QUIET_FOR = 60.0

    def __init__(self) -> None:
        super().__init__()
        self.last = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError):
            return False
        if not isinstance(error, RedisError | OSError):
            return True
        now = time.monotonic()
        if now - self.last < self.QUIET_FOR:
            self.last = now
            return False
        self.last = now
        record.msg = f"channel layer: Redis unreachable: {type(error).__name__}: {error}"
        record.args = ()
        record.exc_info = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
