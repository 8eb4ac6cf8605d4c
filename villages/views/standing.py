"""What a screen knows of the person in front of it, beside the viewer's view of the game:
logged in or not, kicked from this village, banned (the notice to show)."""

from __future__ import annotations

from dataclasses import dataclass

from villages.services.persist import Loaded


@dataclass(frozen=True)
class Local:
    authenticated: bool = False
    kicked: bool = False  # kicked from this village (it may not sit again)
    ban: str = ""  # the notice of the bans in force


def local_for(user_id: int | None, loaded: Loaded) -> Local:
    from accounts.bans import notice_for

    if user_id is None:
        return Local()
    return Local(authenticated=True, kicked=user_id in loaded.kicked_users, ban=notice_for(user_id))
