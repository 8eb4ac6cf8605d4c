"""Villages for the realtime tests, built through the services (so every write pushes)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from accounts.services import profile_of
from villages.line_numbers import SPAN
from villages.models import Icon, Message, Seat
from villages.services import lifecycle, play

# Eight players: seats 1-2 wolves, 3 the seer, 4-8 villagers (the table's row for 8).
CAST_8 = {1: "wolf", 2: "wolf", 3: "seer", 4: "villager", 5: "villager", 6: "villager"}
CAST_8 |= {7: "villager", 8: "villager"}
WOLVES = (1, 2)
SEER = 3
VILLAGERS = (4, 5, 6, 7, 8)

_serial = itertools.count(1)


def number(line: Message) -> int:
    """The number every viewer knows a public line by (villages.line_numbers)."""
    assert line.public
    return line.public_no * SPAN


def make_user(name: str | None = None, *, staff: bool = False) -> AbstractBaseUser:
    """An account with an API token (no password: hashing one costs a quarter second)."""
    name = name or f"user{next(_serial)}"
    user = get_user_model().objects.create_user(username=name, password=None, is_staff=staff)
    profile_of(user)
    return user


def token_of(user: AbstractBaseUser) -> str:
    return profile_of(user).api_token


def icon_id() -> int:
    icon = Icon.objects.choosable().first()
    if icon is None:  # a transactional test flushed the default set
        icon = Icon.objects.create(name="test", static_path="icons/test.png")
    return icon.pk


@dataclass
class Game:
    village_id: int
    users: dict[int, AbstractBaseUser]  # seat_no -> user
    staff: AbstractBaseUser
    roles: dict[int, str] = field(default_factory=dict)

    def user(self, seat_no: int) -> AbstractBaseUser:
        return self.users[seat_no]

    def token(self, seat_no: int) -> str:
        return token_of(self.users[seat_no])

    # -- commands, as the players' requests make them ----------------------------------

    def talk(self, seat_no: int, text: str, channel: str = "talk") -> Message | None:
        return play.post_message(
            village_id=self.village_id, user=self.user(seat_no), text=text, channel=channel
        ).message

    def act(self, seat_no: int, action: str, *targets: int) -> bool:
        return play.night_action(
            village_id=self.village_id,
            user=self.user(seat_no),
            action=action,
            targets=list(targets),
        )

    def vote(self, seat_no: int, target: int) -> bool:
        return play.vote(village_id=self.village_id, user=self.user(seat_no), target=target)

    def alive(self) -> list[int]:
        return list(
            Seat.objects.filter(village_id=self.village_id, kicked=False, alive=True)
            .order_by("seat_no")
            .values_list("seat_no", flat=True)
        )


def waiting_village(
    players: int = 8, *, options: dict[str, Any] | None = None, capacity: int | None = None
) -> Game:
    """A village with `players` seated (seat n is users[n]), before the start."""
    staff = make_user(f"staff{next(_serial)}", staff=True)
    village = lifecycle.create_village(
        user=staff, name="テスト村", capacity=capacity or players, options=options or {}
    )
    users = {}
    icon = icon_id()
    for n in range(players):
        user = make_user()
        seat = lifecycle.sit(
            village_id=village.pk, user=user, handle_name=f"p{n + 1}", icon_id=icon
        )
        users[seat] = user
    return Game(village_id=village.pk, users=users, staff=staff)


def started_village(
    cast: dict[int, str] | None = None, *, options: dict[str, Any] | None = None
) -> Game:
    """A village at night 1 with a fixed cast (default CAST_8)."""
    cast = cast or CAST_8
    game = waiting_village(len(cast), options=options)
    lifecycle.fix_cast(
        village_id=game.village_id,
        user=game.staff,
        roles={str(no): role for no, role in cast.items()},
        sub_roles={},
    )
    for user in game.users.values():
        lifecycle.vote_start(village_id=game.village_id, user=user)
    game.roles = dict(cast)
    return game


def to_day_two(game: Game, *, victim: int = 4, divined: int = 5) -> None:
    """Night 1 → day 2: the wolves bite `victim`, the seer divines `divined`."""
    game.act(WOLVES[0], "attack", victim)
    game.act(SEER, "divine", divined)
