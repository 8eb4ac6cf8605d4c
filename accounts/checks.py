"""System checks of the accounts' data (run by `manage.py migrate`, and by `manage.py check
--database default`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core import checks
from django.db import DatabaseError

from .names import case_clashes


@checks.register(checks.Tags.database)
def username_case_clashes(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """accounts.W001: user names that differ only in letter case, made before names were
    unique regardless of case (migration 0005 leaves its index out while any are left)."""
    User = get_user_model()
    found: list[checks.CheckMessage] = []
    for alias in databases or ():
        try:
            names = list(
                User._default_manager.using(alias).values_list(User.USERNAME_FIELD, flat=True)
            )
        except DatabaseError:  # not migrated yet
            continue
        for group in case_clashes(names):
            found.append(
                checks.Warning(
                    f"User names that differ only in letter case: {', '.join(group)}",
                    hint="Rename all but one of them in the admin, then run "
                    "`manage.py migrate accounts 0004 && manage.py migrate` to make the "
                    "unique index on the lower-cased name (accounts/migrations/0005).",
                    id="accounts.W001",
                )
            )
    return found
