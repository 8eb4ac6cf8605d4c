"""`manage.py runsite`: the whole site in one process.

daphne serves HTTP and WebSockets; in embedded mode (no REDIS_URL) a ticker in the same
process runs the deadline sweep that Celery beat runs in production.
"""

import argparse
import asyncio
import sys

import daphne.server  # first: installs Twisted's asyncio reactor  # isort: skip
from channels.routing import get_default_application
from daphne.access import AccessLogGenerator
from daphne.endpoints import build_endpoint_description_strings
from django.conf import settings
from django.core.management.base import BaseCommand

from jinro_site.runtime import SweepTicker
from villages.tasks import run_sweep


class Command(BaseCommand):
    help = (
        "Serve the site with daphne (HTTP + WebSocket); without REDIS_URL also run the "
        "sweep ticker in this process."
    )
    requires_system_checks = []

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to bind")
        parser.add_argument("--port", type=int, default=8000, help="port to bind")
        parser.add_argument(
            "--ticker",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="run the sweep ticker (default: on without REDIS_URL; with it, beat sweeps)",
        )
        parser.add_argument(
            "--access-log",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="print one line per request to stdout",
        )

    def handle(
        self,
        *args: object,
        host: str,
        port: int,
        ticker: bool | None,
        access_log: bool,
        **options: object,
    ) -> None:
        self.check(display_num_errors=False)
        # The application the settings name (jinro_site.asgi), found by its name: the
        # site's wiring sits above this command, which only serves it.
        application = get_default_application()
        run_ticker = settings.EMBEDDED if ticker is None else ticker
        tickers: list[SweepTicker] = []

        def ready() -> None:
            # daphne has made the reactor's asyncio loop current; the loop runs next.
            if run_ticker:
                tickers.append(
                    SweepTicker(
                        target=run_sweep,
                        interval=settings.JINRO_SWEEP_INTERVAL,
                        loop=asyncio.get_event_loop(),
                    )
                )
                tickers[0].start()
            mode = "embedded" if settings.EMBEDDED else "redis"
            sweeper = "in-process ticker" if run_ticker else "none here (Celery beat)"
            self.stdout.write(
                f"jinro_site ({mode} mode) at http://{host}:{port}/ — sweep: {sweeper}. "
                "Stop with Ctrl-C.",
            )
            self.stdout.flush()

        server = daphne.server.Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            action_logger=AccessLogGenerator(sys.stdout) if access_log else None,
            ready_callable=ready,
        )
        try:
            server.run()
        finally:
            for running in tickers:
                running.stop(timeout=5)
