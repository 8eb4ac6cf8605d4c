"""Celery tasks: thin adapters that only call services.

Every task body runs on the worker process's long-lived event loop
(`jinro_site.runtime.run_sync_on_loop`), so channel-layer sends from services are safe.
"""

from celery import shared_task

from jinro_site.runtime import run_sync_on_loop
from villages.services import clock


def run_sweep() -> None:
    """The one sweep entry point of both runtimes (embedded ticker and Celery beat)."""
    clock.sweep_due_villages()


@shared_task(name="villages.tasks.sweep", ignore_result=True)
def sweep() -> None:
    """Settle every village whose deadline is due (scheduled by beat; idempotent)."""
    run_sync_on_loop(run_sweep)


@shared_task(name="villages.tasks.ping")
def ping() -> str:
    """Round-trip check of broker, worker and result backend."""
    return "pong"
