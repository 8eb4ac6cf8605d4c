"""Fixtures of the API tests: an `Api` over Django's test client, a moderator, a clean cache."""

from __future__ import annotations

import pytest

from .client import Api, Caller, DjangoTransport


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache, which outlives a test's database."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api(db) -> Api:
    return Api(DjangoTransport())


@pytest.fixture
def staff(api: Api) -> Caller:
    return api.staff()
