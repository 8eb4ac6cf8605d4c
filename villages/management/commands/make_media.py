"""Regenerate the site's own icons and sounds under ``static/villages/``."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from villages.media_gen import write_all


class Command(BaseCommand):
    help = "Generate the default player icons, option icons and sounds into static/villages/."

    def add_arguments(self, parser):
        parser.add_argument(
            "--static-dir",
            type=Path,
            default=None,
            help="Static root to write into (default: BASE_DIR/static).",
        )

    def handle(self, *args, **options):
        static_dir = options["static_dir"] or Path(settings.BASE_DIR) / "static"
        written = write_all(static_dir)
        if options["verbosity"] >= 2:
            for path in written:
                self.stdout.write(str(path))
        self.stdout.write(self.style.SUCCESS(f"Wrote {len(written)} files under {static_dir}."))
