"""Celery tasks: thin adapters that only call services.

A task's commits are published like any commit (`jinro_site.livebus.publish`, from the
task's own thread); Celery's Django fixup closes stale database connections around each
task.
"""

from datetime import datetime

from celery import shared_task

from villages.services import clock


def run_sweep() -> None:
    """The one sweep entry point of both runtimes (embedded ticker and Celery beat)."""
    clock.sweep_due_villages()  # looked up at each call: tests may replace it


def next_sweep_due() -> datetime | None:
    """When the sweep next has something to do (the embedded ticker sleeps until then)."""
    return clock.next_due()


@shared_task(name="villages.tasks.sweep", ignore_result=True)
def sweep() -> None:
    """Settle every village whose deadline is due (scheduled by beat; idempotent)."""
    run_sweep()


@shared_task(name="villages.tasks.ping")
def ping() -> str:
    """Round-trip check of broker, worker and result backend."""
    return "pong"
