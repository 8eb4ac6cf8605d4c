"""A client of the public API (shared/API.md) for tests, and a driver that plays villages.

One `Api` talks either through Django's test client (`DjangoTransport`) or to a live
server over real HTTP (`HttpTransport`); everything above the transport is the same.

    api = Api(DjangoTransport())
    table = open_village(api, players=8, options={"cupid": True}, cast=[...])
    final = play_to_end(table, village_wins())

Each player registers through the API from an address of its own (127.x.y.z), so the
default settings (one seat per address, rate-limited registration) hold as in production.
The driver knows the roles the way a bot would: each player reads its own `/state`.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

PASSWORD = "Kagome-kagome-1234"
TEAM_OF_ROLE = {
    "villager": "village",
    "seer": "village",
    "medium": "village",
    "guard": "village",
    "common": "village",
    "poison": "village",
    "wolf": "wolves",
    "madman": "wolves",
    "fanatic": "wolves",
    "fox": "fox",
    "cupid": "lovers",
}

_serial = itertools.count(1)
# Loopback addresses are all ours on Linux: one per player keeps "one seat per address"
# and the per-address registration limit as they are in production.
_ip_base = 20 + os.getpid() % 200


def next_ip() -> str:
    n = next(_serial)
    return f"127.{_ip_base}.{n // 250 % 250}.{n % 250 + 1}"


def unique_name(prefix: str = "u") -> str:
    return f"{prefix}{os.getpid() % 10000}x{next(_serial)}"


# ---------------------------------------------------------------------------
# Transports


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any

    @property
    def code(self) -> str | None:
        """The API error code, if this is an error."""
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None


class ApiFailure(AssertionError):
    pass


class DjangoTransport:
    """Django's test client: in-process, inside the test's transaction."""

    def __init__(self, client: Any = None) -> None:
        from django.test import Client

        self.client = client or Client()

    def send(
        self, method: str, path: str, body: Any = None, *, token: str | None, ip: str | None
    ) -> Reply:
        extra: dict[str, str] = {}
        if token:
            extra["HTTP_AUTHORIZATION"] = f"Token {token}"
        if ip:
            extra["REMOTE_ADDR"] = ip
        data = "" if body is None else json.dumps(body)
        response = self.client.generic(
            method, f"/api/v1/{path}", data, content_type="application/json", **extra
        )
        raw = response.content
        return Reply(response.status_code, json.loads(raw) if raw else None)


class HttpTransport:
    """Real HTTP to a live server; each call comes from the caller's own loopback address."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80

    def send(
        self, method: str, path: str, body: Any = None, *, token: str | None, ip: str | None
    ) -> Reply:
        connection = http.client.HTTPConnection(
            self.host, self.port, timeout=30, source_address=(ip, 0) if ip else None
        )
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        try:
            data = None if body is None else json.dumps(body).encode()
            connection.request(method, f"/api/v1/{path}", body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        return Reply(response.status, json.loads(raw) if raw else None)


# ---------------------------------------------------------------------------
# Callers: a player (token + address) or a spectator (neither)


@dataclass
class Caller:
    api: Api
    username: str | None = None
    token: str | None = None
    ip: str | None = None
    seat_no: int | None = None

    def send(self, method: str, path: str, body: Any = None) -> Reply:
        return self.api.transport.send(method, path, body, token=self.token, ip=self.ip)

    def ok(self, method: str, path: str, body: Any = None, *, status: int = 200) -> Any:
        reply = self.send(method, path, body)
        if reply.status != status:
            raise ApiFailure(
                f"{self.username or 'spectator'}: {method} {path} {body!r} → "
                f"{reply.status} {reply.body!r} (expected {status})"
            )
        return reply.body

    def get(self, path: str) -> Any:
        return self.ok("GET", path)


@dataclass
class Api:
    transport: Any
    spectator: Caller = field(init=False)

    def __post_init__(self) -> None:
        self.spectator = Caller(self)

    def register(self, username: str | None = None, *, ip: str | None = None) -> Caller:
        name = username or unique_name()
        caller = Caller(self, username=name, ip=ip or next_ip())
        body = caller.ok(
            "POST", "auth/register", {"username": name, "password": PASSWORD}, status=201
        )
        assert body["username"] == name
        caller.token = body["token"]
        return caller

    def staff(self) -> Caller:
        """A moderator: registered through the API, made staff in the database."""
        from django.contrib.auth import get_user_model

        caller = self.register(unique_name("staff"))
        get_user_model().objects.filter(username=caller.username).update(is_staff=True)
        return caller

    def icons(self) -> list[dict[str, Any]]:
        icons = self.spectator.get("icons")["icons"]
        if not icons:  # a transactional test before this one flushed the default set
            ensure_icons()
            icons = self.spectator.get("icons")["icons"]
        return icons

    def history(self, username: str) -> dict[str, Any]:
        return self.spectator.get(f"users/{username}/history")


def ensure_icons(count: int = 24) -> None:
    """Recreate icons that a flushed (transactional) test database lost."""
    from villages.models import Icon

    have = Icon.objects.choosable().count()
    Icon.objects.bulk_create(
        Icon(name=f"test{i}", static_path="villages/icons/icon01.svg", order=i)
        for i in range(have, count)
    )


# ---------------------------------------------------------------------------
# A village under test


@dataclass
class Table:
    api: Api
    id: int
    host: Caller
    players: dict[int, Caller] = field(default_factory=dict)  # seat_no → player
    dummy_seat: int | None = None
    cast: dict[int, str] = field(default_factory=dict)  # fixed by staff, if it was
    extras: dict[str, Caller] = field(default_factory=dict)  # other callers a test needs

    def path(self, rest: str = "") -> str:
        return f"villages/{self.id}/{rest}".rstrip("/")

    def state(self, who: Caller | None = None) -> dict[str, Any]:
        return (who or self.api.spectator).get(self.path("state"))

    def messages(self, who: Caller | None = None, after: int = 0) -> list[dict[str, Any]]:
        query = f"?after={after}" if after else ""
        return (who or self.api.spectator).get(self.path(f"messages{query}"))["messages"]

    def sit(self, player: Caller, handle_name: str | None = None, **extra: Any) -> int:
        icons = self.api.icons()
        body = {
            "handle_name": handle_name or f"{player.username}さん",
            "icon": icons[len(self.players) % len(icons)]["id"],
            **extra,
        }
        seat_no = player.ok("POST", self.path("seats"), body, status=201)["seat_no"]
        player.seat_no = seat_no
        self.players[seat_no] = player
        return seat_no

    def fix_cast(
        self,
        staff: Caller,
        roles: Mapping[int, str],
        sub_roles: Mapping[int, Sequence[str]] | None = None,
    ) -> None:
        body = {
            "roles": {str(k): v for k, v in roles.items()},
            "sub_roles": {str(k): list(v) for k, v in (sub_roles or {}).items()},
        }
        staff.ok("POST", self.path("cast"), body)
        self.cast = dict(roles)

    def start(self) -> None:
        started = [p.ok("POST", self.path("start-vote"))["started"] for p in self.seated()]
        assert started[-1] and not any(started[:-1]), f"start votes answered {started}"

    def seated(self) -> list[Caller]:
        return [self.players[no] for no in sorted(self.players)]

    def player(self, seat_no: int) -> Caller:
        return self.players[seat_no]

    def own_states(self) -> dict[int, dict[str, Any]]:
        return {no: self.state(p) for no, p in sorted(self.players.items())}


def open_village(
    api: Api,
    *,
    players: int,
    options: Mapping[str, Any] | None = None,
    cast: Sequence[str] | None = None,
    sub_roles: Mapping[int, Sequence[str]] | None = None,
    staff: Caller | None = None,
    seed: int | None = 1,
    start: bool = True,
    name: str = "テスト村",
    capacity: int | None = None,
) -> Table:
    """Create a village (of `capacity`, by default `players`), seat `players` (the dummy
    boy, if on, is one of them) through the API, fix the cast if given (`cast[i]` is seat
    i+1's role) and start it."""
    options = dict(options or {})
    host = api.register()
    village = host.ok(
        "POST",
        "villages",
        {"name": name, "comment": "", "capacity": capacity or players, "options": options},
        status=201,
    )
    table = Table(api, village["id"], host)
    if seed is not None:  # deal and poison's revenge the same on every run
        from villages.models import Village

        Village.objects.filter(pk=table.id).update(seed=seed)
    if options.get("dummy_boy"):
        table.dummy_seat = 1
    while len(table.players) + (1 if table.dummy_seat else 0) < players:
        table.sit(api.register())
    if cast is not None:
        table.fix_cast(staff or api.staff(), dict(enumerate(cast, start=1)), sub_roles)
    if start:
        table.start()
    return table


# ---------------------------------------------------------------------------
# What the driver knows, and the plans that decide what everyone does


@dataclass
class GameView:
    """The whole truth as the players' own /state pages tell it, and the public state."""

    day: int
    phase: str
    roles: dict[int, str]
    sub_roles: dict[int, set[str]]
    alive: set[int]
    voted: set[int]
    dummy: int | None
    lovers: set[int]
    rng: random.Random
    attacked_tonight: int | None = None

    def living(
        self,
        *,
        but: Iterable[int] = (),
        roles: Iterable[str] | None = None,
        not_roles: Iterable[str] = (),
    ) -> list[int]:
        skip, wanted, unwanted = set(but), set(roles) if roles else None, set(not_roles)
        return sorted(
            no
            for no in self.alive
            if no not in skip
            and (wanted is None or self.roles.get(no) in wanted)
            and self.roles.get(no) not in unwanted
        )

    def voters(self) -> list[int]:
        return [no for no in self.living(but=[self.dummy] if self.dummy else []) if no]


Chooser = Callable[[GameView], int | None]


def _first(seq: Sequence[int]) -> int | None:
    return seq[0] if seq else None


@dataclass
class Plan:
    """Who the village executes each day and what each role does each night.

    `execute` returns a seat, or None for a split vote that ties. Every hook has a legal,
    deterministic default; `chatter` may post lines at the start of each phase.
    """

    execute: Chooser = lambda g: g.rng.choice(g.living(but=[g.dummy] if g.dummy else []))
    attack: Chooser | None = None
    divine: Callable[[GameView, int], int] | None = None
    guard: Callable[[GameView, int], int] | None = None
    cupid: Callable[[GameView, int], tuple[int, int]] | None = None
    chatter: Callable[[Table, GameView], None] | None = None

    def attack_target(self, g: GameView) -> int:
        if self.attack is not None:
            chosen = self.attack(g)
            if chosen is not None:
                return chosen
        if g.day == 1 and g.dummy and g.dummy in g.alive:
            return g.dummy
        target = _first(g.living(not_roles=["wolf", "fox"])) or _first(g.living(not_roles=["wolf"]))
        assert target is not None
        return target

    def divine_target(self, g: GameView, seer: int) -> int:
        if self.divine is not None:
            return self.divine(g, seer)
        others = g.living(but=[seer])
        return g.rng.choice(others)

    def guard_target(self, g: GameView, guard: int) -> int:
        if self.guard is not None:
            return self.guard(g, guard)
        others = g.living(but=[guard, g.attacked_tonight or 0])
        return others[-1] if others else g.living(but=[guard])[0]

    def cupid_targets(self, g: GameView, cupid: int) -> tuple[int, int]:
        if self.cupid is not None:
            return self.cupid(g, cupid)
        other = g.living(but=[cupid, g.dummy or 0])[0]
        return (cupid, other)

    def ballots(self, g: GameView) -> dict[int, int]:
        """voter → target for this round: everyone on the chosen one, or a split."""
        voters = g.voters()
        target = self.execute(g)
        if target is not None:
            fallback = [no for no in g.living() if no != target]
            return {v: (target if v != target else fallback[0]) for v in voters}
        return split_vote(g)


def split_vote(g: GameView) -> dict[int, int]:
    """Ballots that tie between the two lowest living seats (no authority or decider)."""
    voters = g.voters()
    a, b = g.living()[:2]
    ballots = {}
    if a in voters:
        ballots[a] = b
    if b in voters:
        ballots[b] = a
    others = [v for v in voters if v not in (a, b)]
    for i, v in enumerate(others):
        ballots[v] = (a, b)[i % 2]
    if len(others) % 2 == 1:
        last = others[-1]
        spare = [no for no in g.living() if no not in (a, b, last)]
        ballots[last] = spare[0] if spare else (b if ballots[last] == a else a)
    totals: dict[int, int] = {}
    for t in ballots.values():
        totals[t] = totals.get(t, 0) + 1
    top = max(totals.values())
    assert sum(1 for n in totals.values() if n == top) >= 2, f"not a tie: {totals}"
    return ballots


def village_wins() -> Plan:
    """The village finds the wolves: a living wolf is executed every day."""
    return Plan(execute=lambda g: _first(g.living(roles=["wolf"])))


def wolves_win() -> Plan:
    """The village executes humans; the wolves eat the rest."""
    return Plan(execute=lambda g: _first(g.living(not_roles=["wolf"], but=[g.dummy or 0])))


def fox_wins() -> Plan:
    """Wolves executed, the fox never touched (nor the poison, whose revenge is random)."""
    return Plan(
        execute=lambda g: _first(g.living(roles=["wolf"])),
        attack=lambda g: (
            None
            if g.day == 1 and g.dummy in g.alive
            else _first(g.living(not_roles=["wolf", "fox", "poison"]))
        ),
        divine=lambda g, seer: g.living(but=[seer], not_roles=["fox"])[0],
        guard=lambda g, guard: (
            g.living(but=[guard], roles=["fox"])[0]
            if g.living(roles=["fox"])
            else g.living(but=[guard])[0]
        ),
    )


def lovers_win(lovers: tuple[int, int] | None = None) -> Plan:
    """Cupid links two players who are never attacked nor executed; the wolves die."""

    def cupid(g: GameView, me: int) -> tuple[int, int]:
        if lovers is not None:
            return lovers
        return (me, g.living(but=[me, g.dummy or 0], roles=["villager"])[0])

    return Plan(
        execute=lambda g: _first(g.living(roles=["wolf"])),
        attack=lambda g: (
            None
            if g.day == 1 and g.dummy in g.alive
            else _first(g.living(not_roles=["wolf", "fox"], but=g.lovers))
        ),
        divine=lambda g, seer: g.living(but=[seer], roles=["wolf"])[0],
        cupid=cupid,
    )


def draw_by_ties() -> Plan:
    """Every round ties: the MAX_REVOTES-th tie ends the village in a draw."""
    return Plan(execute=lambda g: None)


# ---------------------------------------------------------------------------
# The driver


NIGHT_ABILITY = {"seer": "divine", "guard": "guard", "cupid": "cupid", "wolf": "attack"}


@dataclass
class Driver:
    table: Table
    plan: Plan
    seed: int = 0
    after_request: Callable[[int, str, Any], None] | None = None  # (seat, endpoint, answer)
    roles: dict[int, str] = field(default_factory=dict)
    sub_roles: dict[int, set[str]] = field(default_factory=dict)
    lovers: set[int] = field(default_factory=set)
    requests: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        for no, state in self.table.own_states().items():
            me = state["me"]
            assert me is not None and me["seat_no"] == no
            self.roles[no] = me["role"]
            self.sub_roles[no] = set(me["sub_roles"])
        if self.table.dummy_seat and self.table.cast:
            self.roles[self.table.dummy_seat] = self.table.cast[self.table.dummy_seat]

    def view(self, public: dict[str, Any]) -> GameView:
        village = public["village"]
        return GameView(
            day=village["day"],
            phase=village["phase"],
            roles=self.roles,
            sub_roles=self.sub_roles,
            alive={s["seat_no"] for s in public["seats"] if s["alive"]},
            voted={s["seat_no"] for s in public["seats"] if s["has_voted"]},
            dummy=self.table.dummy_seat,
            lovers=self.lovers,
            rng=self.rng,
        )

    def act(self, seat_no: int, method: str, rest: str, body: Any) -> Any:
        answer = self.table.player(seat_no).ok(method, self.table.path(rest), body)
        self.requests += 1
        if self.after_request is not None:
            self.after_request(seat_no, rest, answer)
        return answer

    def say(self, seat_no: int, text: str, channel: str = "talk", volume: str = "normal") -> Any:
        status = 200 if channel == "will" else 201
        answer = self.table.player(seat_no).ok(
            "POST",
            self.table.path("messages"),
            {"text": text, "channel": channel, "volume": volume},
            status=status,
        )
        self.requests += 1
        if self.after_request is not None:
            self.after_request(seat_no, "messages", answer)
        return answer

    def play_night(self, g: GameView) -> None:
        actors = []
        wolves = g.living(roles=["wolf"], but=[g.dummy or 0])
        if wolves:
            actors.append((wolves[0], "attack"))
        for role in ("cupid", "seer", "guard"):
            for no in g.living(roles=[role], but=[g.dummy or 0]):
                if (role == "cupid" and g.day != 1) or (role == "guard" and g.day < 2):
                    continue
                actors.append((no, NIGHT_ABILITY[role]))
        actors.sort(key=lambda a: ("cupid", "attack", "divine", "guard").index(a[1]))
        for no, ability in actors:
            if ability == "attack":
                targets = [self.plan.attack_target(g)]
                g.attacked_tonight = targets[0]
            elif ability == "divine":
                targets = [self.plan.divine_target(g, no)]
            elif ability == "guard":
                targets = [self.plan.guard_target(g, no)]
            else:
                targets = list(self.plan.cupid_targets(g, no))
                self.lovers.update(targets)
                for lover in targets:
                    self.sub_roles.setdefault(lover, set()).add("lovers")
            answer = self.act(no, "POST", "night-action", {"action": ability, "targets": targets})
            if answer.get("dawn"):
                return

    def play_day(self, g: GameView) -> None:
        ballots = self.plan.ballots(g)
        for voter in sorted(ballots):
            if voter in g.voted:
                continue
            answer = self.act(voter, "POST", "vote", {"target": ballots[voter]})
            if answer["tally_done"]:
                return

    def play(self, *, max_phases: int = 80) -> dict[str, Any]:
        """Play until the village ends; returns the spectator's final /state."""
        for _ in range(max_phases):
            public = self.table.state()
            g = self.view(public)
            if g.phase == "ended":
                return public
            if self.plan.chatter is not None:
                self.plan.chatter(self.table, g)
                public = self.table.state()
                g = self.view(public)
                if g.phase != "night" and g.phase != "day":
                    continue
            if g.phase == "night":
                self.play_night(g)
            elif g.phase == "day":
                self.play_day(g)
            else:
                raise ApiFailure(f"cannot play a village in phase {g.phase}")
        raise ApiFailure(f"village {self.table.id} did not end within {max_phases} phases")


def play_to_end(table: Table, plan: Plan | None = None, **kwargs: Any) -> dict[str, Any]:
    return Driver(table, plan or Plan(), **kwargs).play()


# ---------------------------------------------------------------------------
# Expected results, computed from SPEC §9 here rather than taken from the site


def expected_winner(final: Mapping[str, Any]) -> str:
    """SPEC §9 on the final revealed seats (the game ended because it had to)."""
    seats = final["seats"]
    living = [s for s in seats if s["alive"]]
    if not living:
        return "draw"
    wolves = sum(1 for s in living if s["role"] == "wolf")
    foxes = sum(1 for s in living if s["role"] == "fox")
    humans = len(living) - wolves - foxes
    if wolves and humans > wolves:
        return "draw"  # only a draw by revotes ends a village in this state
    if any("lovers" in (s["sub_roles"] or []) for s in living):
        return "lovers"
    if foxes:
        return "fox"
    return "village" if not wolves else "wolves"


def team_of(role: str, sub_roles: Iterable[str]) -> str:
    return "lovers" if "lovers" in set(sub_roles) else TEAM_OF_ROLE[role]


def check_history(table: Table, final: Mapping[str, Any]) -> None:
    """Each player's `users/{username}/history` records this game as the final state says."""
    winner = final["winner"]
    by_seat = {s["seat_no"]: s for s in final["seats"]}
    for no, player in table.players.items():
        seat = by_seat[no]
        team = team_of(seat["role"], seat["sub_roles"])
        won = winner != "draw" and team == winner
        history = table.api.history(player.username)
        games = [g for g in history["games"] if g["village_id"] == table.id]
        assert len(games) == 1, f"{player.username}: {history}"
        game = games[0]
        expected = {
            "role": seat["role"],
            "sub_roles": sorted(seat["sub_roles"]),
            "team": team,
            "won": won,
            "survived": seat["alive"],
        }
        got = {k: game[k] for k in expected} | {"sub_roles": sorted(game["sub_roles"])}
        assert got == expected, f"seat {no} history {got} != {expected}"
        assert game["ended_at"] and game["village_name"]
        stats = history["stats"]
        assert stats["games"] == len(history["games"])
        assert stats["wins"] == sum(g["won"] for g in history["games"])
        by_role = stats["by_role"][seat["role"]]
        assert by_role["games"] >= 1 and by_role["wins"] >= int(won)
