"""The cast table of SPEC §3 (配役), options, dealing and validation."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from .errors import BadRequest, TooFewPlayers, _
from .roles import Role, SubRole
from .rules import Rules

# One row per number of players, in the seed's order of columns:
# villager, seer, medium, guard, common, wolf, madman, fanatic, fox.
_COLUMNS = (
    Role.VILLAGER,
    Role.SEER,
    Role.MEDIUM,
    Role.GUARD,
    Role.COMMON,
    Role.WOLF,
    Role.MADMAN,
    Role.FANATIC,
    Role.FOX,
)
_ROWS: dict[int, tuple[int, ...]] = {
    8: (5, 1, 0, 0, 0, 2, 0, 0, 0),
    9: (5, 1, 1, 0, 0, 2, 0, 0, 0),
    10: (5, 1, 1, 0, 0, 2, 1, 0, 0),
    11: (5, 1, 1, 1, 0, 2, 1, 0, 0),
    12: (6, 1, 1, 1, 0, 2, 1, 0, 0),
    13: (5, 1, 1, 1, 2, 2, 1, 0, 0),
    14: (5, 1, 1, 1, 2, 2, 0, 1, 1),
    15: (5, 1, 1, 1, 2, 2, 2, 0, 1),
    16: (6, 1, 1, 1, 2, 3, 1, 0, 1),
    17: (7, 1, 1, 1, 2, 3, 1, 0, 1),
    18: (7, 1, 1, 1, 2, 3, 1, 0, 2),
    19: (9, 1, 1, 1, 2, 3, 1, 0, 1),
    20: (10, 1, 1, 1, 2, 3, 1, 0, 1),
    21: (11, 1, 1, 1, 2, 3, 1, 0, 1),
    22: (12, 1, 1, 1, 2, 3, 1, 0, 1),
}
CAST_TABLE: dict[int, dict[Role, int]] = {
    n: {role: count for role, count in zip(_COLUMNS, row, strict=True) if count}
    for n, row in _ROWS.items()
}
MIN_PLAYERS = min(CAST_TABLE)
MAX_PLAYERS = max(CAST_TABLE)

# The dummy boy (身代わり君) is never dealt these.
DUMMY_FORBIDDEN = frozenset({Role.WOLF, Role.FOX, Role.POISON, Role.CUPID})
# An AIWolf agent's seat is dealt only the roles the contest's protocol knows.
AGENT_ROLES = frozenset({Role.VILLAGER, Role.SEER, Role.MEDIUM, Role.GUARD, Role.WOLF, Role.MADMAN})


@dataclass(frozen=True)
class TimeOptions:
    realtime: bool = False
    day_seconds: int = 0
    night_seconds: int = 0


@dataclass(frozen=True)
class Options:
    """What the host chose (村作成オプション)."""

    time: TimeOptions = TimeOptions()
    cupid: bool = False
    poison: bool = False
    decider: bool = False
    authority: bool = False
    hide_roles_in_heaven: bool = False
    dummy_boy: bool = False
    # Open to the AIWolf contest's agents (a practice village): villages/aiwolf.
    agents: bool = False

    def active(self, players: int, rules: Rules) -> Options:
        """The options in force for `players`: one below its minimum has no effect."""
        return Options(
            time=self.time,
            cupid=self.cupid and players >= rules.cupid_min_players,
            poison=self.poison and players >= rules.poison_min_players,
            decider=self.decider and players >= rules.decider_min_players,
            authority=self.authority and players >= rules.authority_min_players,
            hide_roles_in_heaven=self.hide_roles_in_heaven,
            dummy_boy=self.dummy_boy,
            agents=self.agents,
        )


# The host's on/off options, by their field names (the create form, the API, the stored JSON).
OPTION_FLAGS: tuple[str, ...] = tuple(f.name for f in fields(Options) if f.name != "time")


def option_minimums(rules: Rules) -> dict[str, int]:
    """The smallest village each numbered option needs (for the create form)."""
    return {
        "cupid": rules.cupid_min_players,
        "poison": rules.poison_min_players,
        "decider": rules.decider_min_players,
        "authority": rules.authority_min_players,
    }


def role_counts(players: int, options: Options, rules: Rules) -> dict[Role, int]:
    """The table row for `players` with the options applied."""
    if players not in CAST_TABLE:
        raise TooFewPlayers()
    active = options.active(players, rules)
    counts = Counter(CAST_TABLE[players])
    if active.cupid:
        counts[Role.VILLAGER] -= 1
        counts[Role.CUPID] += 1
    if active.poison:
        counts[Role.VILLAGER] -= 2
        counts[Role.POISON] += 1
        counts[Role.WOLF] += 1
    return {role: n for role, n in counts.items() if n > 0}


def sub_role_count(players: int, options: Options, rules: Rules) -> dict[SubRole, int]:
    active = options.active(players, rules)
    counts: dict[SubRole, int] = {}
    if active.decider:
        counts[SubRole.DECIDER] = 1
    if active.authority:
        counts[SubRole.AUTHORITY] = 1
    return counts


@dataclass(frozen=True)
class Cast:
    roles: Mapping[int, Role]
    sub_roles: Mapping[int, frozenset[SubRole]]


AGENTS_DO_NOT_FIT = _(
    "この配役では人狼知能エージェント{agents}人に配れる役職（村人・占い師・霊能者・狩人・人狼・狂人）"
    "が{fit}人分しかありません。"
)


def deal(
    seat_nos: Sequence[int],
    options: Options,
    rules: Rules,
    rng: random.Random,
    dummy_seat: int | None = None,
    agent_seats: Sequence[int] = (),
) -> Cast:
    """Deal the roles of the table row at random: the dummy boy never gets a forbidden
    role, an agent's seat only one of AGENT_ROLES (BadRequest where the row cannot)."""
    counts = role_counts(len(seat_nos), options, rules)
    deck = [role for role, n in sorted(counts.items()) for _ in range(n)]
    rng.shuffle(deck)
    agents = [no for no in seat_nos if no in set(agent_seats) and no != dummy_seat]
    fit = sum(role in AGENT_ROLES for role in deck)
    roles: dict[int, Role] = {}
    if dummy_seat is not None:
        # The dummy's card, among those that leave enough protocol roles for the agents.
        allowed = [
            i
            for i, role in enumerate(deck)
            if role not in DUMMY_FORBIDDEN and fit - (role in AGENT_ROLES) >= len(agents)
        ]
        if not allowed:
            raise BadRequest(AGENTS_DO_NOT_FIT, agents=len(agents), fit=fit)
        roles[dummy_seat] = deck.pop(rng.choice(allowed))
    for no in agents:
        allowed = [i for i, role in enumerate(deck) if role in AGENT_ROLES]
        if not allowed:
            raise BadRequest(AGENTS_DO_NOT_FIT, agents=len(agents), fit=fit)
        roles[no] = deck.pop(rng.choice(allowed))
    others = [no for no in seat_nos if no != dummy_seat and no not in roles]
    for no, role in zip(others, deck, strict=True):
        roles[no] = role
    # Sub-roles go to people and bots first: the protocol has no word for them.
    sub_roles: dict[int, set[SubRole]] = {no: set() for no in seat_nos}
    takers = sorted(no for no in seat_nos if no != dummy_seat and no not in agents)
    for sub_role, n in sub_role_count(len(seat_nos), options, rules).items():
        pool = takers if len(takers) >= n else sorted(no for no in seat_nos if no != dummy_seat)
        for no in rng.sample(pool, n):
            sub_roles[no].add(sub_role)
    return Cast(roles=roles, sub_roles={no: frozenset(s) for no, s in sub_roles.items()})


def agents_fit(
    players: int, options: Options, rules: Rules, agents: int, dummy: bool
) -> int | None:
    """How many agent seats the row for `players` can deal a protocol role to (the dummy
    boy's card taken first), or None if `agents` fit."""
    counts = role_counts(players, options, rules)
    fit = sum(n for role, n in counts.items() if role in AGENT_ROLES)
    if dummy:
        # The dummy takes a protocol role unless a card it may take lies outside them.
        spare = any(role not in AGENT_ROLES and role not in DUMMY_FORBIDDEN for role in counts)
        fit -= 0 if spare else 1
    return None if agents <= fit else fit


def validate_cast(
    seat_nos: Sequence[int],
    cast: Cast,
    options: Options,
    rules: Rules,
    dummy_seat: int | None = None,
    agent_seats: Sequence[int] = (),
) -> None:
    """Raise BadRequest unless `cast` is a legal cast for these seats and options."""
    if set(cast.roles) != set(seat_nos):
        raise BadRequest(_("配役がすべての席を過不足なく指定していません。"))
    expected = role_counts(len(seat_nos), options, rules)
    if Counter(cast.roles.values()) != Counter(expected):
        raise BadRequest(_("配役がこの人数とオプションの配役表と一致しません。"))
    if dummy_seat is not None and cast.roles[dummy_seat] in DUMMY_FORBIDDEN:
        raise BadRequest(_("身代わり君にその役職は割り当てられません。"))
    if any(cast.roles[no] not in AGENT_ROLES for no in agent_seats if no in cast.roles):
        raise BadRequest(_("人狼知能エージェントの席に割り当てられない役職があります。"))
    if not set(cast.sub_roles) <= set(seat_nos):
        raise BadRequest(_("兼任役職の席番号が正しくありません。"))
    given = Counter(s for subs in cast.sub_roles.values() for s in subs)
    if SubRole.LOVERS in given:
        raise BadRequest(_("恋人はキューピッドが決めます。"))
    if given != Counter(sub_role_count(len(seat_nos), options, rules)):
        raise BadRequest(_("兼任役職の数がオプションと一致しません。"))
    if dummy_seat is not None and cast.sub_roles.get(dummy_seat):
        raise BadRequest(_("身代わり君に兼任役職は割り当てられません。"))
