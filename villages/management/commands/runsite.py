"""`manage.py runsite`: the whole site in one process, as `bin/run` starts it.

It checks the site, gathers the static files if they were never gathered (a page names
the hashed files that `collectstatic` writes), then becomes daphne (its `daphne` command,
on the application that ASGI_APPLICATION names). In the embedded layout (no REDIS_URL)
that process also runs the deadline sweep that Celery beat runs in production
(JINRO_SWEEP_TICKER=1).
"""

import argparse
import os
import shutil
import sys
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.core.management.base import BaseCommand


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
        self.gather_static_files()
        run_ticker = settings.EMBEDDED if ticker is None else ticker
        mode = "embedded" if settings.EMBEDDED else "redis"
        sweeper = "in-process ticker" if run_ticker else "none here (Celery beat)"
        self.stdout.write(
            f"jinro_site ({mode} mode) at http://{host}:{port}/ — sweep: {sweeper}. "
            "Stop with Ctrl-C."
        )
        self.stdout.flush()
        os.environ["JINRO_SWEEP_TICKER"] = "1" if run_ticker else "0"
        daphne = shutil.which("daphne", path=str(Path(sys.executable).parent)) or "daphne"
        command = [daphne, "--bind", host, "--port", str(port)]
        command += ["--ping-interval", str(settings.JINRO_WS_PING_SECONDS)]
        command += ["--access-log", "-"] if access_log else ["--verbosity", "0"]
        module, _dot, name = settings.ASGI_APPLICATION.rpartition(".")
        os.execvp(daphne, [*command, f"{module}:{name}"])

    def gather_static_files(self) -> None:
        """`collectstatic` when the manifest of the hashed files is missing (a first run
        without bin/run): without it every page would fail."""
        if settings.DEBUG:  # pages name the files as they are, no manifest is read
            return
        manifest = Path(settings.STATIC_ROOT) / staticfiles_storage.manifest_name
        if not manifest.exists():
            self.stdout.write("Gathering the static files (collectstatic) ...")
            call_command("collectstatic", interactive=False, verbosity=0)
