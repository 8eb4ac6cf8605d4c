"""The game's settings (SPEC §12), read when asked, never at import time."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from villages.engine import Rules

PREFIX = "JINRO_"
_rules: Rules | None = None


def rules() -> Rules:
    """The engine's numbers from the `JINRO_*` settings.

    Read on first use and kept (a push asks once per viewer, a page many times); a
    changed setting (tests, `override_settings`) is read again.
    """
    global _rules
    if _rules is None:
        _rules = Rules.from_mapping(
            {
                name[len(PREFIX) :]: getattr(settings, name)
                for name in dir(settings)
                if name.startswith(PREFIX)
            }
        )
    return _rules


@receiver(setting_changed)
def _read_rules_again(*, setting: str, **kwargs: Any) -> None:
    global _rules
    if setting.startswith(PREFIX):
        _rules = None


def flag(name: str) -> bool:
    return bool(getattr(settings, f"{PREFIX}{name}"))


def number(name: str) -> int:
    return int(getattr(settings, f"{PREFIX}{name}"))


def bot_delay() -> float:
    """Seconds a bot waits after a change of its village before it looks again:
    JINRO_BOT_DELAY, but at most a third of the sudden-death grace. When the time of a
    day runs out, every bot owes a vote within the grace; with a short grace (3 s in the
    acceptance checks) and a 2-second delay, one second was left for the sweep to let a
    22-bot village vote, and a loaded CI machine lost 18 bots of one village to sudden
    death (tests/realtime/test_celery_bots.py)."""
    return min(float(number("BOT_DELAY")), rules().sudden_death_grace / 3)
