"""Past logs at scale (issue 12): the search, a 3,000-line past log, a replay step and the
statistics page, timed over HTTP through daphne on a database of many finished villages.

    createdb -h 127.0.0.1 -U postgres jinro_bench_logs
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench_logs \\
        .venv/bin/python bench/logs.py [--villages 10000] [--played 300] [--requests 30]

Without DATABASE_URL it runs on a throwaway SQLite file (bench/common.py), to try it. The
site runs without DEBUG: `manage.py collectstatic` first (bin/run does).

The first `--played` villages are games played through the services (lifecycle.sit,
vote_start, then play.post_message / vote / night_action) by the site's own bot strategies
deciding for every seat, with people's accounts from a pool of 300, 8 to 16 seats and random
options, so that the statistics and the ranking have something to count. A game takes about
1.6 s that way, so 10,000 of them would take some 5 hours: the rest, up to `--villages`, are
copies of the played ones, made in bulk at the database level (every row a finished village
has: the village, its seats, lines, ballots and night actions, with ids of their own; issue
12 asks for games played through the services, and every copy's game was, once: only its
rows are repeated). A copy is the same game as its original, move for move, but it ended at
a random time of the last year (all its times moved alike), its people are other accounts
drawn from the pool (their handle names changed in the seats and in every line), and some
names end with a word: the searches by name, player, role, winner, size, option and period
find as many as they would among so many games. A copy's comment names its original (`bench
copy of village N`); the run checks that one copy's log page, replay and exports answer as
its original's do. Everything is kept between runs: a run plays games until it has
`--played` of them (or `--minutes` have passed), then copies up to `--villages`. One more
village, played, holds a day of 3,000 lines.

Targets: each search ≤ 50 ms, the statistics page ≤ 100 ms (it is cached until a village
ends: the first, uncached answer is reported too), a replay step ≤ 20 ms. Times are the
client's, on one kept-alive connection, after two warm-up requests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import statistics
import time
from datetime import datetime, timedelta
from urllib.parse import quote

from common import ROOT, Client, bench_users, setup_django, start_site  # noqa: F401

NAME = "ログ村"
LONG_NAME = "三千行の村"
POOL = 300
OPTIONS = ("cupid", "poison", "decider", "authority", "dummy_boy")


def play_through(village_id: int, rng: random.Random, until=None, max_looks: int = 4000) -> bool:
    """Let the bots' strategy decide for every seat until the village ends (or `until`
    says of its state); False if nobody can move any more."""
    from django.utils import timezone

    from villages import bots
    from villages.bots.commands import Act, Say, Vote
    from villages.bots.lines import word
    from villages.engine.errors import RuleError
    from villages.models import Message
    from villages.services import play
    from villages.services.config import rules
    from villages.snapshots import snapshot_of

    strategy = bots.STRATEGIES[bots.DEFAULT]
    for _ in range(max_looks):
        loaded = snapshot_of(village_id)
        state = loaded.state
        if state.phase.value == "ended" or (until is not None and until(state)):
            return True
        lines = list(Message.objects.filter(village_id=village_id, hidden=False).order_by("id"))
        moved = False
        living = [s.no for s in state.seats if s.alive and not s.dummy]
        rng.shuffle(living)
        for no in living:
            row = loaded.rows.get(no)
            view = bots.bot_view(state, no, lines, rules(), timezone.now())
            if row is None or view is None or (not view.duties and rng.random() < 0.7):
                continue
            for command in strategy(view, rng):
                try:
                    if isinstance(command, Say):
                        text = word(command.key, command.params, "ja")
                        play.post_message(village_id=village_id, user=row.user, text=text)
                    elif isinstance(command, Vote):
                        play.vote(village_id=village_id, user=row.user, target=command.target)
                    elif isinstance(command, Act):
                        play.night_action(
                            village_id=village_id,
                            user=row.user,
                            action=command.ability,
                            targets=list(command.targets),
                        )
                    moved = True
                except RuleError:
                    pass  # the village moved on since this look
            if moved:
                break  # look again at the new state
        if not moved:
            return False
    return False


def new_game(n: int, pool: list, rng: random.Random, options: dict | None = None) -> int:
    from common import bench_staff

    from villages.models import Icon
    from villages.services import lifecycle

    size = rng.randint(8, 16)
    chosen = {name: rng.random() < 0.3 for name in OPTIONS}
    village = lifecycle.create_village(
        user=bench_staff(),
        name=f"{NAME}{n}",
        capacity=size,
        options=options or chosen,
    )
    icons = list(Icon.objects.choosable())
    players = rng.sample(pool, size - (1 if (options or chosen).get("dummy_boy") else 0))
    for k, user in enumerate(players, start=1):
        lifecycle.sit(
            village_id=village.pk,
            user=user,
            handle_name=f"{user.username}さん",
            icon_id=icons[k % len(icons)].pk,
        )
    for user in players:
        lifecycle.vote_start(village_id=village.pk, user=user)
    return village.pk


def generate(target: int, deadline: float) -> int:
    """Plays games until `target` of them have ended (or the deadline): how many have."""
    from villages.models import Village

    pool = bench_users("lg", POOL)
    have = (
        Village.objects.filter(name__startswith=NAME, status=Village.Status.ENDED)
        .exclude(comment__startswith=COPY_MARK)
        .count()
    )
    started = time.monotonic()
    made = 0
    n = Village.objects.filter(name__startswith=NAME).count()
    while have < target and time.monotonic() < deadline:
        rng = random.Random(n)
        village_id = new_game(n, pool, rng)
        n += 1
        if play_through(village_id, rng):
            have += 1
            made += 1
        if made and made % 100 == 0:
            rate = made / (time.monotonic() - started)
            print(f"  {have} finished villages ({rate:.1f} games/s)", flush=True)
    return have


# Words some copies' names end with, so that a search by a word of the name finds a few.
WORDS = ("満月", "新月", "霧", "雪", "桜", "港", "山", "初心者", "上級", "再戦", "深夜")
COPY_MARK = "bench copy of village "  # a copy's comment: where it comes from
TABLES = ("Village", "Seat", "Message", "Ballot", "NightAction")


def _rows(model, **where) -> list[dict]:
    fields = [f.attname for f in model._meta.concrete_fields]
    return list(model.objects.filter(**where).order_by("id").values(*fields))


class Copier:
    """Copies of played villages, made in memory with ids of their own (every table's next
    free id onwards) and inserted in bulk."""

    def __init__(self, pool: list, rng: random.Random, n: int) -> None:
        from django.apps import apps
        from django.db.models import Max

        self.models = {name: apps.get_model("villages", name) for name in TABLES}
        self.next_id = {
            name: (m.objects.aggregate(top=Max("id"))["top"] or 0) + 1
            for name, m in self.models.items()
        }
        self.pool, self.rng, self.n = pool, rng, n
        self.batch: dict[str, list] = {name: [] for name in TABLES}

    def _id(self, table: str) -> int:
        self.next_id[table] += 1
        return self.next_id[table] - 1

    def add(self, template: dict, now: datetime) -> None:
        """One copy of `template` (a played village's rows by table): ended at a random
        time of the last year, every time of it moved alike; its people are other accounts
        of the pool, their handle names changed in the seats and in every line."""
        rng, village = self.rng, template["Village"][0]
        shift = now - timedelta(seconds=rng.uniform(0, 365 * 86400)) - village["ended_at"]
        people = [s for s in template["Seat"] if s["user_id"] is not None]
        user_of, names = {}, {}
        for seat, user in zip(people, rng.sample(self.pool, len(people)), strict=True):
            user_of[seat["id"]] = user.pk
            names[seat["handle_name"]] = f"{user.username}さん"
        longest_first = sorted(names, key=len, reverse=True)
        pattern = re.compile("|".join(re.escape(name) for name in longest_first))

        def rename(text: str) -> str:
            return pattern.sub(lambda m: names[m.group(0)], text) if text else text

        vid = self._id("Village")
        lines = template["Message"]
        word = rng.choice(WORDS) if rng.random() < 0.3 else ""
        self.batch["Village"].append(
            village
            | {
                "id": vid,
                "name": f"{NAME}{self.n}" + (f" {word}" if word else ""),
                "comment": f"{COPY_MARK}{village['id']}",
                "last_line": self.next_id["Message"] + len(lines) - 1 if lines else 0,
                "game": _shifted(village["game"], shift),
                "created_at": village["created_at"] + shift,
                "started_at": village["started_at"] and village["started_at"] + shift,
                "ended_at": village["ended_at"] + shift,
            }
        )
        self.n += 1
        for s in template["Seat"]:
            self.batch["Seat"].append(
                s
                | {
                    "id": self._id("Seat"),
                    "village_id": vid,
                    "user_id": user_of.get(s["id"]),
                    "handle_name": names.get(s["handle_name"], s["handle_name"]),
                    "will": rename(s["will"]),
                    "created_at": s["created_at"] + shift,
                }
            )
        for m in lines:
            params = json.dumps(m["params"], ensure_ascii=False)
            self.batch["Message"].append(
                m
                | {
                    "id": self._id("Message"),
                    "village_id": vid,
                    "text": rename(m["text"]),
                    "params": json.loads(rename(params)),
                    "created_at": m["created_at"] + shift,
                }
            )
        for table in ("Ballot", "NightAction"):
            for r in template[table]:
                self.batch[table].append(
                    r
                    | {
                        "id": self._id(table),
                        "village_id": vid,
                        "created_at": r["created_at"] + shift,
                    }
                )

    def flush(self) -> int:
        from django.db import transaction

        made = len(self.batch["Village"])
        models = list(self.models.values())
        with transaction.atomic(), _own_creation_times(*models):
            for table, model in self.models.items():
                model.objects.bulk_create([model(**r) for r in self.batch[table]], batch_size=2000)
                self.batch[table] = []
        return made

    def finish(self) -> None:
        """The sequences past the copies' ids (PostgreSQL), so that the next village played
        gets a free one; and the tables' statistics gathered again: the planner would
        otherwise plan for the tables as they were before the bulk load, until autovacuum
        comes round to it (a site that grew by games played would have had it all along)."""
        from django.core.management.color import no_style
        from django.db import connection

        models = list(self.models.values())
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)
            for model in models:
                cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def copy_played(target: int, seed: int = 12) -> int:
    """Copies of the played villages (never of a copy) until there are `target` finished
    bench villages; returns how many were made."""
    from django.utils import timezone

    from villages.models import Ballot, Message, NightAction, Seat, Village

    ended = Village.objects.filter(name__startswith=NAME, status=Village.Status.ENDED)
    have = ended.count()
    played = list(ended.exclude(comment__startswith=COPY_MARK).order_by("id"))
    if have >= target or not played:
        return 0
    templates = [
        {
            "Village": _rows(Village, pk=v.pk),
            "Seat": _rows(Seat, village=v),
            "Message": _rows(Message, village=v),
            "Ballot": _rows(Ballot, village=v),
            "NightAction": _rows(NightAction, village=v),
        }
        for v in played
    ]
    rng = random.Random(seed * 1_000_003 + have)
    copier = Copier(
        bench_users("lg", POOL), rng, Village.objects.filter(name__startswith=NAME).count()
    )
    now = timezone.now()
    made = 0
    while have + made < target:
        for _ in range(min(200, target - have - made)):
            copier.add(rng.choice(templates), now)
        made += copier.flush()
        if made % 1000 < 200:
            print(f"  {have + made} finished villages ({made} copies)", flush=True)
    copier.finish()
    return made


def _shifted(game: dict, shift: timedelta) -> dict:
    """The engine's clock moved by `shift` (its times are ISO strings in the JSON)."""
    clock = {
        k: (datetime.fromisoformat(v) + shift).isoformat() if isinstance(v, str) else v
        for k, v in (game.get("clock") or {}).items()
    }
    return game | {"clock": clock} if "clock" in game else game


@contextlib.contextmanager
def _own_creation_times(*models):
    """bulk_create keeps the `created_at` it is given (not auto_now_add's now)."""
    fields = [m._meta.get_field("created_at") for m in models]
    for f in fields:
        f.auto_now_add = False
    try:
        yield
    finally:
        for f in fields:
            f.auto_now_add = True


def long_village() -> tuple[int, int]:
    """A finished village with a day of 3,000 lines (real time: talk costs no time)."""
    from villages.models import Message, Village
    from villages.services import lifecycle, play

    found = Village.objects.filter(name=LONG_NAME, status=Village.Status.ENDED).first()
    if found is None:
        rng = random.Random(3000)
        pool = bench_users("lg", POOL)
        realtime = {"time": {"mode": "realtime", "day_seconds": 10**6, "night_seconds": 10**6}}
        village_id = new_game(10**6, pool, rng, options=realtime)
        Village.objects.filter(pk=village_id).update(name=LONG_NAME)
        # Night 1 by the bots, then 3,000 lines on day 2, then the rest of the game.
        from villages.snapshots import snapshot_of

        play_through(village_id, rng, until=lambda state: state.phase.value == "day")
        loaded = snapshot_of(village_id)
        living = [loaded.rows[s.no].user for s in loaded.state.seats if s.alive and not s.dummy]
        for k in range(3000):
            play.post_message(
                village_id=village_id, user=living[k % len(living)], text=f"三千行のうち{k}行目"
            )
        if not play_through(village_id, rng):
            lifecycle.end_village(village_id=village_id)
        found = Village.objects.get(pk=village_id)
    return found.pk, Message.objects.filter(village_id=found.pk).count()


def timed(client: Client, path: str, n: int) -> list[float]:
    for _ in range(2):
        status, _body = client.request("GET", path)
        assert status == 200, (path, status, _body[:300])
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        status, _body = client.request("GET", path)
        out.append((time.perf_counter() - t0) * 1000)
        assert status == 200, (path, status)
    return out


def check_a_copy(client: Client) -> str:
    """A copy reads as its played original does: its log page, its replay (a middle step)
    and both exports answer 200, and the export JSON has the original's lines, deaths and
    winner under the copy's own names."""
    from villages.models import Village

    copy = Village.objects.filter(comment__startswith=COPY_MARK).order_by("?").first()
    if copy is None:
        return "no copy to check"
    original = int(copy.comment.removeprefix(COPY_MARK))
    paths = [
        f"/villages/{copy.pk}/log/",
        f"/villages/{copy.pk}/log/?roles=0&order=new",
        f"/villages/{copy.pk}/replay/?step={copy.last_line % 40 + 10}",
        f"/villages/{copy.pk}/log/export.html",
    ]
    for path in paths:
        status, body = client.request("GET", path)
        assert status == 200, (path, status, body[:300])
    logs = {}
    for vid in (copy.pk, original):
        status, body = client.request("GET", f"/api/v1/villages/{vid}/log")
        assert status == 200, (vid, status, body[:300])
        logs[vid] = json.loads(body)
    mine, theirs = logs[copy.pk], logs[original]
    assert mine["winner"] == theirs["winner"]
    death = ("seat_no", "day", "phase", "cause")
    assert [[d[k] for k in death] for d in mine["deaths"]] == [
        [d[k] for k in death] for d in theirs["deaths"]
    ]
    for seat in mine["seats"]:
        assert seat["username"] is None or seat["handle_name"] == f"{seat['username']}さん"
    renamed = {
        old["handle_name"]: new["handle_name"]
        for old, new in zip(theirs["seats"], mine["seats"], strict=True)
    }
    pattern = re.compile("|".join(map(re.escape, sorted(renamed, key=len, reverse=True))))
    assert [m["text"] for m in mine["messages"]] == [
        pattern.sub(lambda m: renamed[m.group(0)], m["text"]) for m in theirs["messages"]
    ]
    return f"copy {copy.pk} of {original}: log, replay, exports 200, same game"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--villages", type=int, default=10_000, help="finished villages in all")
    parser.add_argument(
        "--played", type=int, default=300, help="of which games played (the rest are copies)"
    )
    parser.add_argument("--minutes", type=float, default=45, help="at most, to play games")
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        print("DATABASE_URL is not set: a throwaway SQLite database (see the docstring)")
    work = setup_django()
    deadline = time.monotonic() + args.minutes * 60
    played = min(args.played, args.villages)
    print(f"playing up to {played} games for {args.minutes} min ...")
    t0 = time.monotonic()
    have = generate(played, deadline)
    print(f"  {have} played bench villages after {time.monotonic() - t0:.0f} s")
    t0 = time.monotonic()
    copies = copy_played(args.villages)
    print(f"  {copies} copies made in {time.monotonic() - t0:.0f} s")
    long_id, long_lines = long_village()
    from django.utils import timezone

    from villages.models import Village

    finished = Village.objects.filter(status=Village.Status.ENDED).count()
    since = (timezone.localdate() - timezone.timedelta(days=30)).isoformat()
    site = start_site(work)
    client = Client(site)
    try:
        print(check_a_copy(client))
        rows = [
            ("search: village name", f"/villages/ended/?q={quote(NAME)}12"),
            ("search: a player", "/villages/ended/?player=lg17"),
            # Worst for it: every seat is looked at and none matches.
            ("search: a name nobody has", "/villages/ended/?player=nobody"),
            ("search: role and winner", "/villages/ended/?role=fox&winner=fox"),
            (
                "search: players, option, period",
                f"/villages/ended/?players=12&option=cupid&since={since}",
            ),
            (f"past log, {long_lines} lines", f"/villages/{long_id}/log/"),
            ("replay step 1500", f"/villages/{long_id}/replay/?step=1500"),
        ]
        from django.core.cache import cache

        cache.clear()
        t0 = time.perf_counter()
        status, _body = client.request("GET", "/stats/")
        cold = (time.perf_counter() - t0) * 1000
        assert status == 200
        rows.append(("statistics page (cached)", "/stats/"))
        print(
            f"\n{finished} finished villages ({have} played bench games, the rest copies);"
            f" {args.requests} requests each"
        )
        print("| page | median | p90 | target |")
        print("|---|---|---|---|")
        targets = {"search": 50, "past log": None, "replay": 20, "statistics": 100}
        for label, path in rows:
            times = sorted(timed(client, path, args.requests))
            p90 = times[int(0.9 * (len(times) - 1))]
            target = next(
                (f"≤ {v} ms" for k, v in targets.items() if label.startswith(k) and v), ""
            )
            print(f"| {label} | {statistics.median(times):.1f} ms | {p90:.1f} ms | {target} |")
        print(f"| statistics page, first (uncached) answer | {cold:.1f} ms | | |")
    finally:
        site.stop()


if __name__ == "__main__":
    main()
