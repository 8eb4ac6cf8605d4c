"""The game's settings (SPEC §12), read when asked, never at import time."""

from __future__ import annotations

from django.conf import settings

from villages.engine import Rules


def rules() -> Rules:
    """The engine's numbers from the `JINRO_*` settings."""
    prefix = "JINRO_"
    return Rules.from_mapping(
        {
            name[len(prefix) :]: getattr(settings, name)
            for name in dir(settings)
            if name.startswith(prefix)
        }
    )


def flag(name: str) -> bool:
    return bool(getattr(settings, f"JINRO_{name}"))


def number(name: str) -> int:
    return int(getattr(settings, f"JINRO_{name}"))
