"""Fixed-window rate limits in the cache (SPEC §12 `RATE_LIMIT_ENABLED`).

Registration and login are limited per client address, posting per user. The counters
live in Django's cache: per process with the default local-memory cache, shared by every
process once CACHES points at a shared cache.
"""

from __future__ import annotations

import logging
import math
import time

from django.core.cache import cache

from .config import flag
from .errors import RateLimited

logger = logging.getLogger(__name__)

# (requests, seconds)
REGISTER_LIMIT = (10, 3600)  # per address
LOGIN_LIMIT = (20, 600)  # per address
POST_LIMIT = (20, 10)  # lines (talk, will, heaven) per user
MAIL_LIMIT = (5, 3600)  # confirmation mails per user


def rate_limit(scope: str, key: str, limit: tuple[int, int], *, refusal: str | None = None) -> None:
    """Count one request of `key` in `scope`; RateLimited past the limit (when enabled)."""
    if not flag("RATE_LIMIT_ENABLED"):
        return
    count, window = limit
    name = f"rl:{scope}:{key}"
    try:
        used = _count(name, window)
    except Exception:  # the cache (Redis) is down: a limit must not take the site down too
        logger.warning("rate limit not counted: the cache is unreachable", exc_info=True)
        return
    if used > count:
        raise _refused(name, limit, refusal)


def within_limit(
    scope: str, key: str, limit: tuple[int, int], *, refusal: str | None = None
) -> None:
    """RateLimited when `key` has used up its allowance in `scope`, counting nothing: for
    an allowance that only what succeeds uses (`use_allowance` counts it then)."""
    if not flag("RATE_LIMIT_ENABLED"):
        return
    name = f"rl:{scope}:{key}"
    try:
        used = int(cache.get(name) or 0)
    except Exception:  # as in rate_limit: the cache is down, nothing is refused
        logger.warning("rate limit not read: the cache is unreachable", exc_info=True)
        return
    if used >= limit[0]:
        raise _refused(name, limit, refusal)


def use_allowance(scope: str, key: str, limit: tuple[int, int]) -> None:
    """Count one success of `key` in `scope` (see `within_limit`)."""
    if not flag("RATE_LIMIT_ENABLED"):
        return
    try:
        _count(f"rl:{scope}:{key}", limit[1])
    except Exception:
        logger.warning("rate limit not counted: the cache is unreachable", exc_info=True)


def _count(name: str, window: int) -> int:
    # The window starts with its first request, and ends `window` seconds later: when it
    # started is kept beside the count, to tell a refused client when to try again.
    if cache.add(name, 0, timeout=window):
        cache.set(f"{name}:since", time.time(), timeout=window)
    try:
        return int(cache.incr(name))
    except ValueError:  # expired between add and incr
        cache.set(name, 1, timeout=window)
        cache.set(f"{name}:since", time.time(), timeout=window)
        return 1


def _refused(name: str, limit: tuple[int, int], refusal: str | None) -> RateLimited:
    """The refusal, with the seconds until the window ends (Retry-After) and, when the
    scope words its own refusal, the limit and the minutes to wait in its words."""
    count, window = limit
    try:
        since = float(cache.get(f"{name}:since") or 0)
    except Exception:
        since = 0
    now = time.time()
    wait = int(since + window - now) + 1 if since else window
    wait = max(1, min(wait, window))
    if refusal is None:
        error = RateLimited()
    else:
        hours, minutes = window // 3600 or 1, max(1, math.ceil(wait / 60))
        error = RateLimited(refusal, count=count, hours=hours, minutes=minutes)
    error.retry_after = wait
    return error


class TokenBucket:
    """`burst` at once, then `per_minute` a minute: what a WebSocket may send (SPEC §12,
    JINRO_WS_BURST and JINRO_WS_PER_MINUTE). The caller gives the time (any monotonic
    clock, in seconds); it keeps nothing else."""

    def __init__(self, burst: int, per_minute: int) -> None:
        self.burst, self.per_minute = burst, per_minute
        self.tokens, self.stamp = float(burst), None

    def take(self, now: float) -> bool:
        """One frame at `now`: True if it may pass (and is counted)."""
        if self.stamp is not None:
            refill = (now - self.stamp) * self.per_minute / 60
            self.tokens = min(self.burst, self.tokens + refill)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
