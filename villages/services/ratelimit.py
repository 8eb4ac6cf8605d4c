"""Fixed-window rate limits in the cache (SPEC §12 `RATE_LIMIT_ENABLED`).

Registration and login are limited per client address, posting per user. The counters
live in Django's cache: per process with the default local-memory cache, shared by every
process once CACHES points at a shared cache.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

from .config import flag
from .errors import RateLimited

logger = logging.getLogger(__name__)

# (requests, seconds)
REGISTER_LIMIT = (10, 3600)  # per address
LOGIN_LIMIT = (20, 600)  # per address
POST_LIMIT = (20, 10)  # lines (talk, will, heaven) per user
MAIL_LIMIT = (5, 3600)  # confirmation mails per user


def rate_limit(scope: str, key: str, limit: tuple[int, int]) -> None:
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
        raise RateLimited()


def _count(name: str, window: int) -> int:
    cache.add(name, 0, timeout=window)
    try:
        return int(cache.incr(name))
    except ValueError:  # expired between add and incr
        cache.set(name, 1, timeout=window)
        return 1


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
