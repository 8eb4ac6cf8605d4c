"""What the log is spared while Redis is away, and what it keeps (the console handler's
filters, `jinro_site.logfilters`)."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from jinro_site import logfilters
from jinro_site.logfilters import OUTAGE_MARK, QuietRedisOutage, RefusalsAreNotFaults

pytestmark = [pytest.mark.timeout(60)]


# --- What the log is spared ---------------------------------------------------------------


def record(
    error: BaseException | None,
    name: str = "channels_redis.pubsub",
    message: str = "Unexpected",
    **extra,
) -> logging.LogRecord:
    try:
        if error is not None:
            raise error
    except BaseException:
        info = sys.exc_info()
    else:
        info = None
    logger = logging.getLogger(name)
    return logger.makeRecord(name, logging.ERROR, __file__, 1, message, (), info, extra=extra)


def test_an_outage_is_one_warning_not_a_traceback_a_second():
    quiet = QuietRedisOutage()
    first = record(RedisConnectionError("refused"))
    assert quiet.filter(first) and first.levelno == logging.WARNING and first.exc_info is None
    assert "refused" in first.getMessage()
    assert not quiet.filter(record(RedisConnectionError("refused")))
    assert quiet.filter(record(ValueError("a real bug"))), "other errors pass as they are"
    # daphne stopping with sockets open cancels each channel's unsubscribe: no traceback
    assert not quiet.filter(record(asyncio.CancelledError(), message=CLEANUP))


CLEANUP = "Unexpected exception while cleaning-up channel:"  # channels-redis's words


def test_only_the_cancelled_unsubscribe_at_shutdown_is_left_out_not_every_cancellation():
    """Issue 40: the filter left out every record that carried a CancelledError, whoever
    logged it and why, on the handler that every record of the site goes through. Left
    out is channels-redis's line for a channel whose unsubscribe was cancelled (daphne
    stopping with sockets open), nothing else."""
    quiet = QuietRedisOutage()
    cancelled = asyncio.CancelledError
    assert not quiet.filter(record(cancelled(), "channels_redis.pubsub", CLEANUP))
    for other in (
        record(cancelled(), "daphne.server", "Exception inside application: "),
        record(cancelled(), "villages.services.push", "after a commit, publish failed"),
        record(cancelled(), "channels_redis.pubsub", "Unexpected exception in receive task"),
        record(cancelled(), "jinro_site.other", CLEANUP),
        record(ValueError("a real bug"), "channels_redis.pubsub", CLEANUP),
    ):
        assert quiet.filter(other), f"{other.name}: {other.getMessage()} was left out"


def probe(mark: str) -> logging.LogRecord:
    """The socket hub's warning of a lost layer, or of pushes flowing again."""
    made = record(None, "villages.consumers.hub", **{OUTAGE_MARK: mark})
    made.levelno, made.levelname, made.msg = logging.WARNING, "WARNING", f"probe: {mark}"
    return made


def said(message: str, *args: object) -> logging.LogRecord:
    """A socket's warning that gives the error in its message (no traceback)."""
    return logging.LogRecord(
        "villages.consumers.base", logging.WARNING, __file__, 1, message, args, None
    )


def wrapped(cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise RuntimeError("the cache could not read the session") from inner
    except RuntimeError as outer:
        return outer


def test_a_redis_outage_is_one_warning_going_one_coming_back_with_a_count():
    """Issue 32 item 17: a 15-second outage wrote ~1,400 lines in daphne's log. Everything
    that used Redis logged its failure: channels-redis's loop, daphne for each socket that
    connected, the health check (and Django's line for its 503), the pushes of each commit,
    a request whose session the cache could not read. Through the console handler's one
    filter, the log keeps the probe's two warnings, the second counting what it left."""
    quiet = QuietRedisOutage()
    kept = [r for r in [probe("lost")] if quiet.filter(r)]
    during = [
        record(RedisConnectionError("Error 111"), "channels_redis.pubsub"),
        record(OSError("Connection reset"), "channels_redis.pubsub"),
        record(RedisConnectionError("Error 111"), "daphne.server"),
        said("village %s: channel layer unavailable: %s", 1, RedisConnectionError("111")),
        record(RedisConnectionError("Error 111"), "jinro_site.views"),
        record(None, "django.request", status_code=503),
        record(RedisConnectionError("Error 111"), "villages.services.push"),
        record(wrapped(RedisConnectionError("Error 111")), "django.request", status_code=500),
        probe("lost"),  # another loop's probe
    ] * 25
    kept += [r for r in during if quiet.filter(r)]
    assert [r.name for r in kept] == ["villages.consumers.hub"]
    back = probe("back")
    assert quiet.filter(back)
    assert f"{len(during)} log records about it were left out" in back.getMessage()
    assert not quiet.filter(probe("back")), "another loop's probe says it once more"
    # Once it is back, a fault is a fault again, and a 503 is written.
    assert quiet.filter(record(None, "django.request", status_code=503))
    assert quiet.filter(record(ValueError("a real bug"), "daphne.server"))


def test_an_outage_seen_first_by_an_error_is_that_error_as_one_line():
    """The first error may come before the probe's tick: it stands for the warning, as one
    line; the probe's own "lost" is then left out, and "back" counts it."""
    quiet = QuietRedisOutage()
    first = record(RedisConnectionError("Error 111"), "daphne.server")
    assert quiet.filter(first) and first.exc_info is None and first.levelno == logging.WARNING
    assert "Redis unreachable" in first.getMessage() and "Error 111" in first.getMessage()
    assert not quiet.filter(probe("lost"))
    back = probe("back")
    assert quiet.filter(back) and "1 log records about it were left out" in back.getMessage()


def test_without_a_probe_an_outage_ends_after_a_quiet_while(monkeypatch):
    """A process with no channel layer probe (a Celery worker) never hears "back": after
    QUIET_FOR seconds with no error about Redis, the next error is a new outage's warning,
    which says how many records the last one left out."""
    clock = [1000.0]
    monkeypatch.setattr(logfilters.time, "monotonic", lambda: clock[0])
    quiet = QuietRedisOutage()
    assert quiet.filter(record(RedisConnectionError("Error 111"), "celery.worker"))
    for _ in range(7):
        clock[0] += 1
        assert not quiet.filter(record(RedisConnectionError("Error 111"), "celery.worker"))
    clock[0] += QuietRedisOutage.QUIET_FOR
    again = record(RedisConnectionError("Error 111"), "celery.worker")
    assert quiet.filter(again) and "7 records of an earlier outage left out" in again.getMessage()


def test_the_settings_put_the_filter_on_the_console_handler(settings):
    """One filter on the handler sees every logger's records (a filter on one logger saw
    only channels-redis's)."""
    console = settings.LOGGING["handlers"]["console"]
    assert console["filters"] == ["quiet_redis_outage"]
    assert settings.LOGGING["filters"]["quiet_redis_outage"]["()"].endswith("QuietRedisOutage")


def test_a_refusal_for_load_is_logged_as_information_not_as_a_fault():
    refusals = RefusalsAreNotFaults()
    for status in (429, 503):
        refused = record(None, "django.request", status_code=status)
        assert refusals.filter(refused) and refused.levelno == logging.INFO
    fault = record(None, "django.request", status_code=500)
    assert refusals.filter(fault) and fault.levelno == logging.ERROR
