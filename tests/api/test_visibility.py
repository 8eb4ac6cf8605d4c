"""Who sees what (SPEC §8), checked through the API after each step of a played game.

Unique markers (MK-<kind>-<n>) are planted in wolves' talk, commons' talk, monologues,
heaven talk, wills and public talk. After every request that changes the village, every
seat and a spectator read `/state` and `/messages`, and each answer must be exactly what
the independent oracle (`oracle.py`, written from SPEC §8) allows.
"""

from __future__ import annotations

import itertools

import pytest

from villages.models import Message
from villages.selectors import messages_for, view_for
from villages.services import moderation

from . import oracle
from .client import Api, Driver, GameView, Plan, Table, open_village

# 14 players with the cupid: wolves, commons, a fanatic (knows the wolves), a fox, lovers.
CAST = [
    "wolf",  # 1
    "wolf",  # 2
    "common",  # 3
    "common",  # 4
    "seer",  # 5
    "medium",  # 6
    "guard",  # 7
    "fanatic",  # 8
    "fox",  # 9
    "cupid",  # 10: shoots 10 and 11
    "villager",  # 11
    "villager",  # 12
    "villager",  # 13
    "villager",  # 14
]


class Watcher:
    """Checks every viewer's answers against the oracle; `full=False` checks fewer viewers."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.checks = 0

    def __call__(self, *, only: list[int | None] | None = None) -> None:
        truth = oracle.load_truth(self.table.id)
        viewers: list[int | None] = [None, *sorted(self.table.players)]
        for viewer in viewers if only is None else only:
            caller = self.table.players[viewer] if viewer is not None else None
            oracle.check_view(truth, viewer, self.table.state(caller), self.table.messages(caller))
        self.checks += 1


class Marked(Plan):
    """Day 2 executes wolf 1, night 2 the wolves eat common 3, day 3 executes wolf 2 (the
    lovers 10 and 11 live on and win). Each phase opens with marked talk of every kind."""

    def __init__(self, watch: Watcher) -> None:
        super().__init__(
            execute=lambda g: 1 if g.day == 2 else 2,
            attack=lambda g: 12 if g.day == 1 else 3,
            divine=lambda g, seer: 9 if g.day == 1 else 2,
            guard=lambda g, guard: 14,
            cupid=lambda g, cupid: (10, 11),
            chatter=self.talk,
        )
        self.watch = watch
        self.serial = itertools.count(1)

    def mark(self, kind: str) -> str:
        return f"MK-{kind}-{next(self.serial)}"

    def say(
        self,
        table: Table,
        seat: int,
        channel: str,
        kind: str,
        watch_only: list[int | None] | None = None,
    ) -> None:
        text = f"{self.mark(kind)} の発言"
        status = 200 if channel == "will" else 201
        body = {"text": text, "channel": channel, "volume": "weak"}
        table.player(seat).ok("POST", table.path("messages"), body, status=status)
        self.watch(only=watch_only)

    def talk(self, table: Table, g: GameView) -> None:
        living, dead = g.living(), sorted(set(table.players) - g.alive)
        if g.phase == "night":
            for seat in living:
                role = g.roles[seat]
                if role in ("wolf", "common"):
                    self.say(table, seat, "talk", role)
            for seat in (5, 8, 11):  # seer, fanatic, a lover: monologues
                if seat in living:
                    self.say(table, seat, "talk", "mono")
        else:
            self.say(table, living[-1], "talk", "talk")
        for seat in sorted({*dead[:1], *dead[-1:]}):  # the first and the last to die
            self.say(table, seat, "heaven", "heaven")


def watched_game(api: Api, *, hide: bool) -> tuple[Table, Watcher]:
    table = open_village(
        api, players=14, options={"cupid": True, "hide_roles_in_heaven": hide}, start=False
    )
    watch = Watcher(table)
    plan = Marked(watch)
    plan.say(table, 1, "talk", "talk")  # before the start: public among all
    for seat in table.players:
        plan.say(table, seat, "will", "will", watch_only=[None, seat, seat % 14 + 1])
    # Seat 13 replaces its will (the first must never surface), seat 14 clears its own.
    plan.say(table, 13, "will", "will", watch_only=[13])
    table.player(14).ok("POST", table.path("messages"), {"text": " ", "channel": "will"})
    watch()
    table.fix_cast(api.staff(), dict(enumerate(CAST, start=1)))
    table.start()
    watch()

    def after_request(seat: int, endpoint: str, answer: dict) -> None:
        if endpoint == "vote" and not answer["tally_done"]:
            watch(only=[None, seat])  # a ballot changes only "has voted" until the tally
        else:
            watch()

    driver = Driver(table, plan, after_request=after_request)
    final = driver.play()
    assert final["winner"] == "lovers"
    plan.say(table, 10, "talk", "after")  # talk goes on after the end, public
    return table, watch


@pytest.mark.parametrize("hide", [False, True], ids=["roles-open-in-heaven", "roles-hidden"])
def test_every_view_after_every_step_is_what_spec_8_allows(api: Api, hide: bool):
    table, watch = watched_game(api, hide=hide)
    assert watch.checks > 50, watch.checks
    planted = {
        m
        for line in Message.objects.filter(village_id=table.id)
        for m in oracle.MARKER.findall(line.text)
    }
    kinds = {m.split("-")[1] for m in planted}
    assert kinds >= {"wolf", "common", "mono", "heaven", "will", "talk", "after"}


def test_a_dead_wolf_with_hidden_roles_hears_the_pack_but_not_the_seer(api: Api):
    """The hide option in one glance, beside the exhaustive check above."""
    table = open_village(
        api,
        players=14,
        options={"cupid": True, "hide_roles_in_heaven": True},
        cast=CAST,
    )
    driver = Driver(
        table,
        Plan(
            attack=lambda g: 12,
            divine=lambda g, s: 9,
            cupid=lambda g, c: (10, 11),
            execute=lambda g: 1,
        ),
    )
    driver.play_night(driver.view(table.state()))
    driver.play_day(driver.view(table.state()))  # wolf 1 executed: night 2
    table.player(2).ok("POST", table.path("messages"), {"text": "MK-wolf-900"}, status=201)
    table.player(5).ok("POST", table.path("messages"), {"text": "MK-mono-901"}, status=201)
    dead_wolf = table.player(1)
    texts = [m["text"] for m in table.messages(dead_wolf)]
    assert "MK-wolf-900" in texts and "MK-mono-901" not in texts
    roles = {s["seat_no"]: s["role"] for s in table.state(dead_wolf)["seats"]}
    assert roles[5] is None and roles[2] == "wolf"
    dead_villager = table.player(12)
    assert "MK-mono-901" not in [m["text"] for m in table.messages(dead_villager)]


def test_a_hidden_message_disappears_from_every_view(api: Api):
    table = open_village(api, players=8, start=False)
    line = table.player(2).ok("POST", table.path("messages"), {"text": "消される発言"}, status=201)
    row = Message.objects.get(village_id=table.id, text="消される発言")
    moderation.set_hidden([row.pk], hidden=True)  # the admin's action
    for caller in [None, *table.seated()]:
        assert line["id"] not in [m["id"] for m in table.messages(caller)]
    view = view_for(table.id, None)
    assert line["id"] not in [m["id"] for m in messages_for(view)]
