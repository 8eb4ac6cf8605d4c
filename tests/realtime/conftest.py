"""Realtime tests: sockets on the configured channel layer (in-memory, or Redis in CI's
PostgreSQL + Redis step), services called as requests call them, pushes on commit.

Every test that writes needs `transaction=True`: pushes are sent by on_commit hooks,
which a test wrapped in one transaction would never run.
"""

import pytest


@pytest.fixture(autouse=True)
def _quiet_settings(settings):
    """No rate limits, no per-address seat limit: the tests play many users from one place."""
    settings.JINRO_RATE_LIMIT_ENABLED = False
    settings.JINRO_ONE_SEAT_PER_IP = False
    settings.JINRO_MAX_ACTIVE_VILLAGES = 1000


@pytest.fixture(autouse=True)
async def _sockets_closed():
    """Every socket a test opened is disconnected when it ends (sockets.close_all), and no
    task is left for the loop's own cancellation at close (sockets.end_leftover_tasks)."""
    yield
    from .sockets import close_all, end_leftover_tasks

    await close_all()
    await end_leftover_tasks()


@pytest.fixture(scope="module")
def sweeper_rules():
    """The rules of a module's `sweepers` (a module may give its own)."""
    from .processes import SHORT_RULES

    return SHORT_RULES


@pytest.fixture(scope="module")
def sweepers(django_db_setup, tmp_path_factory, sweeper_rules):
    """Two Celery workers and two beats with `sweeper_rules` (processes.SHORT_RULES unless
    the module says), for the tests of one module (two beats are against the deployment
    rule, which is exactly why the sweep must stand them)."""
    from .processes import Sweepers

    running = Sweepers(tmp_path_factory.mktemp("sweepers"), sweeper_rules)
    try:
        running.start_workers(2)
        running.start_beats(2)
        yield running
    finally:
        running.stop()
