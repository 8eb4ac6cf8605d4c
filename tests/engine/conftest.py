"""The engine's tests need no Django: they must run with `-p no:django` and without
settings. Autouse fixtures of `tests/conftest.py` that reach for Django are overridden
here by name with no-ops (a closer conftest's fixture wins)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """No passwords in the engine."""
