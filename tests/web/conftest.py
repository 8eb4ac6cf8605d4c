"""Villages in known states for the page tests, built through the services only."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from villages.models import Icon, Village
from villages.services import lifecycle, play
from villages.views.render import clear_caches

# Seats 1–2 wolves, 3 the seer, 4–8 villagers: the 8-player row of the cast table.
CAST8 = {
    "1": "wolf",
    "2": "wolf",
    "3": "seer",
    "4": "villager",
    "5": "villager",
    "6": "villager",
    "7": "villager",
    "8": "villager",
}


@dataclass
class Game:
    village: Village
    users: list = field(default_factory=list)  # users[i] holds seat i + 1
    staff: object = None

    @property
    def id(self) -> int:
        return self.village.pk

    def client(self, seat_no: int | None) -> Client:
        c = Client()
        if seat_no is not None:
            c.force_login(self.users[seat_no - 1])
        return c

    def user(self, seat_no: int):
        return self.users[seat_no - 1]


@pytest.fixture(autouse=True)
def _fresh_cache(settings):
    settings.JINRO_RATE_LIMIT_ENABLED = False
    clear_caches()
    yield
    clear_caches()


def make_users(n: int, prefix: str = "player"):
    User = get_user_model()
    return [
        User.objects.create_user(f"{prefix}{i}", password="pw-Secret-123") for i in range(1, n + 1)
    ]


def waiting_village(n: int = 8, capacity: int = 8, **options) -> Game:
    users = make_users(n)
    staff = get_user_model().objects.create_user("staff", password="pw-Secret-123", is_staff=True)
    village = lifecycle.create_village(
        user=users[0], name="テスト村", comment="よろしく", capacity=capacity, options=options
    )
    icons = list(Icon.objects.choosable())
    for i, user in enumerate(users):
        lifecycle.sit(
            village_id=village.pk,
            user=user,
            handle_name=f"村人{i + 1}号",
            icon_id=icons[i % len(icons)].pk,
        )
    return Game(village=village, users=users, staff=staff)


def started_village() -> Game:
    game = waiting_village()
    lifecycle.fix_cast(village_id=game.id, user=game.staff, roles=CAST8, sub_roles={})
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    game.village.refresh_from_db()
    return game


def to_day_two(game: Game) -> None:
    """Night 1: the wolves bite seat 8, the seer divines seat 1 (a wolf)."""
    play.post_message(village_id=game.id, user=game.user(1), text="WOLF-SECRET-PLAN 8を噛もう")
    play.post_message(village_id=game.id, user=game.user(4), text="MONOLOGUE-OF-FOUR")
    play.night_action(village_id=game.id, user=game.user(1), action="attack", targets=[8])
    play.night_action(village_id=game.id, user=game.user(3), action="divine", targets=[1])
    game.village.refresh_from_db()


def play_to_end(game: Game) -> None:
    """Day 2 executes wolf 1; night 2 the wolf bites 7; day 3 executes wolf 2: the village wins."""
    to_day_two(game)
    for voter in (2, 3, 4, 5, 6, 7):
        play.vote(village_id=game.id, user=game.user(voter), target=1)
    play.vote(village_id=game.id, user=game.user(1), target=3)
    play.night_action(village_id=game.id, user=game.user(2), action="attack", targets=[7])
    play.night_action(village_id=game.id, user=game.user(3), action="divine", targets=[2])
    for voter in (3, 4, 5, 6):
        play.vote(village_id=game.id, user=game.user(voter), target=2)
    play.vote(village_id=game.id, user=game.user(2), target=3)
    game.village.refresh_from_db()


# Seats 1–2 wolves, 3 the madman, 4 the seer, 5 the medium, 6 the guard, 7–11 villagers.
CAST11 = dict(
    enumerate(["wolf", "wolf", "madman", "seer", "medium", "guard"] + ["villager"] * 5, start=1)
)


def started_eleven() -> Game:
    game = waiting_village(n=11, capacity=11)
    roles = {str(no): role for no, role in CAST11.items()}
    lifecycle.fix_cast(village_id=game.id, user=game.staff, roles=roles, sub_roles={})
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    game.village.refresh_from_db()
    return game


def act(game: Game, seat_no: int, action: str, target: int) -> None:
    play.night_action(village_id=game.id, user=game.user(seat_no), action=action, targets=[target])


def execute(game: Game, target: int, living: list[int], last: int) -> None:
    """Every living player votes `target`, who votes `last`."""
    for voter in living:
        if voter != target:
            play.vote(village_id=game.id, user=game.user(voter), target=target)
    play.vote(village_id=game.id, user=game.user(target), target=last)


def play_eleven_to_end(game: Game) -> None:
    """Every kind of ability result, learned at the mornings of days 2, 3 and 4:

    night 1  the wolves bite 7; the seer divines wolf 1           → seer: 1 is a wolf
    day 2    1 is executed
    night 2  the guard guards the seer, whom wolf 2 attacks; the  → guard: guarded;
             seer divines the madman 3                              seer: 3 human;
                                                                    medium: 1 a wolf
    day 3    8 is executed
    night 3  the guard guards 5; wolf 2 bites the seer as it       → guard: null (no entry
             divines 2 (it learns nothing)                           for the seer);
                                                                    medium: 8 human
    day 4    2 is executed: the village wins.
    """
    act(game, 1, "attack", 7)
    act(game, 4, "divine", 1)
    execute(game, 1, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11], last=4)
    act(game, 6, "guard", 4)
    act(game, 4, "divine", 3)
    act(game, 2, "attack", 4)
    execute(game, 8, [2, 3, 4, 5, 6, 8, 9, 10, 11], last=2)
    act(game, 6, "guard", 5)
    act(game, 4, "divine", 2)
    act(game, 2, "attack", 4)
    execute(game, 2, [2, 3, 5, 6, 9, 10, 11], last=3)
    game.village.refresh_from_db()


@pytest.fixture
def waiting(db) -> Game:
    return waiting_village()


@pytest.fixture
def started(db) -> Game:
    return started_village()


@pytest.fixture
def day_two(db) -> Game:
    game = started_village()
    to_day_two(game)
    return game


@pytest.fixture
def ended(db) -> Game:
    game = started_village()
    play_to_end(game)
    return game
