"""Roles, sub-roles and teams (SPEC §4), as plain data."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    VILLAGER = "villager"  # 村人
    SEER = "seer"  # 占い師
    MEDIUM = "medium"  # 霊能者
    GUARD = "guard"  # 狩人
    COMMON = "common"  # 共有者
    POISON = "poison"  # 埋毒者
    WOLF = "wolf"  # 人狼
    MADMAN = "madman"  # 狂人
    FANATIC = "fanatic"  # 狂信者
    FOX = "fox"  # 妖狐
    CUPID = "cupid"  # キューピッド


class SubRole(StrEnum):
    LOVERS = "lovers"  # 恋人
    DECIDER = "decider"  # 決定者 (never told)
    AUTHORITY = "authority"  # 権力者


class Team(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"
    FOX = "fox"
    LOVERS = "lovers"


class Winner(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"
    FOX = "fox"
    LOVERS = "lovers"
    DRAW = "draw"


ROLE_TEAM: dict[Role, Team] = {
    Role.VILLAGER: Team.VILLAGE,
    Role.SEER: Team.VILLAGE,
    Role.MEDIUM: Team.VILLAGE,
    Role.GUARD: Team.VILLAGE,
    Role.COMMON: Team.VILLAGE,
    Role.POISON: Team.VILLAGE,
    Role.WOLF: Team.WOLVES,
    Role.MADMAN: Team.WOLVES,
    Role.FANATIC: Team.WOLVES,
    Role.FOX: Team.FOX,
    Role.CUPID: Team.LOVERS,
}


def team_of(role: Role, sub_roles: frozenset[SubRole]) -> Team:
    """A lover plays for the lovers whatever the main role (SPEC §9)."""
    if SubRole.LOVERS in sub_roles:
        return Team.LOVERS
    return ROLE_TEAM[role]


def seen_as_wolf(role: Role) -> bool:
    """What the seer and the medium learn: only wolves show as 狼."""
    return role is Role.WOLF
