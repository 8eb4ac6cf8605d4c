"""User names are one per person regardless of letter case and of width (issue 39, item
9): 「Alice」 and 「alice」, or 「Ａｌｉｃｅ」, name the same account. Django keeps a name
NFKC-normalised (`AbstractBaseUser.normalize_username`), which folds the width; letter
case is folded here, by registration, by the admin's forms, by a unique index on the
lower-cased name (migration 0005) and by a system check that lists the names a database
held before that index."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth import get_user_model


def holder_of(name: str, *, besides: int | None = None) -> str | None:
    """The user name already held that `name` may not stand beside (itself, or one that
    differs from it only in case or width), or None. `besides`: a user it may be (its own
    name, when an admin edits it)."""
    User = get_user_model()
    field = f"{User.USERNAME_FIELD}__iexact"
    found = User._default_manager.filter(**{field: User.normalize_username(name)})
    if besides is not None:
        found = found.exclude(pk=besides)
    return found.values_list(User.USERNAME_FIELD, flat=True).first()


def case_clashes(names: Iterable[str]) -> list[list[str]]:
    """The groups of names (two or more) that differ only in letter case."""
    groups: dict[str, list[str]] = defaultdict(list)
    for name in names:
        groups[name.lower()].append(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)
