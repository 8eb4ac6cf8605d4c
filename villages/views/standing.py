"""What a screen knows of the person in front of it, beside the viewer's view of the game:
logged in or not, kicked from this village, banned (the notice to show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from accounts.bans import has_bans, standing_of
from accounts.models import Ban
from villages.engine import Phase
from villages.snapshots import Loaded


@dataclass(frozen=True)
class Local:
    authenticated: bool = False
    kicked: str = ""  # kicked from this village (it may not sit again): "staff" or "vote"
    ban: str = ""  # the notice of the bans in force
    muted: bool = False  # a ban keeps it from talking: no talk box
    benched: bool = False  # a ban keeps it from voting and acting: no such controls
    host: bool = False  # made this village (may fill its empty seats with bots)
    staff: bool = False  # staff (before the start: may open the village to agents)


def local_for(user_id: int | None, loaded: Loaded, user: Any = None) -> Local:
    """`user` (the request's, read with its profile) spares asking whether it is banned."""
    if user_id is None:
        return Local()
    notice, kinds = standing_of(user_id) if user is None or has_bans(user) else ("", frozenset())
    host = user_id == loaded.village.created_by_id
    return Local(
        authenticated=True,
        kicked=kicked_how(loaded, user_id),
        ban=notice,
        muted=bool(kinds & {Ban.Kind.TALK, Ban.Kind.LOGIN}),
        benched=bool(kinds & {Ban.Kind.PLAY, Ban.Kind.LOGIN}),
        host=host,
        staff=not host and loaded.state.phase is Phase.WAITING and _is_staff(user_id, user),
    )


def _is_staff(user_id: int, user: Any) -> bool:
    """Asked only where it shows (a waiting village's controls): a socket has no user."""
    if user is not None:
        return bool(getattr(user, "is_staff", False))
    return get_user_model().objects.filter(pk=user_id, is_staff=True).exists()


def kicked_how(loaded: Loaded, user_id: int | None) -> str:
    """How the user was kicked from the village: "staff", "vote", or "" (it was not)."""
    if user_id is None or user_id not in loaded.kicked_users:
        return ""
    return "staff" if loaded.kicked_users[user_id] else "vote"
