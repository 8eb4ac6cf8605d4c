"""Past logs at scale (issue 12): the search, a 3,000-line past log, a replay step and the
statistics page, timed over HTTP through daphne on a database of many finished villages.

    createdb -h 127.0.0.1 -U postgres jinro_bench_logs
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench_logs \\
        .venv/bin/python bench/logs.py [--villages 10000] [--minutes 45] [--requests 30]

The villages are games played through the services (lifecycle.sit, vote_start, then
play.post_message / vote / night_action) by the site's own bot strategies deciding for
every seat, with people's accounts from a pool of 300, 8 to 16 seats and random options,
so that the statistics and the ranking have something to count. They are kept between
runs: a run adds villages until it has `--villages` of them or `--minutes` have passed,
and reports how many it had. One more village holds a day of 3,000 lines.

Targets: each search ≤ 50 ms, the statistics page ≤ 100 ms (it is cached until a village
ends: the first, uncached answer is reported too), a replay step ≤ 20 ms. Times are the
client's, on one kept-alive connection, after two warm-up requests.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
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
    from villages.services.persist import snapshot_of

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
    from villages.models import Village

    pool = bench_users("lg", POOL)
    have = Village.objects.filter(name__startswith=NAME, status=Village.Status.ENDED).count()
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
        from villages.services.persist import snapshot_of

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--villages", type=int, default=10_000)
    parser.add_argument("--minutes", type=float, default=45)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL to a database of the bench's own (see the docstring)")
    work = setup_django()
    deadline = time.monotonic() + args.minutes * 60
    print(f"generating up to {args.villages} finished villages for {args.minutes} min ...")
    t0 = time.monotonic()
    have = generate(args.villages, deadline)
    print(f"  {have} finished bench villages after {time.monotonic() - t0:.0f} s")
    long_id, long_lines = long_village()
    from django.utils import timezone

    from villages.models import Village

    finished = Village.objects.filter(status=Village.Status.ENDED).count()
    since = (timezone.localdate() - timezone.timedelta(days=30)).isoformat()
    site = start_site(work)
    client = Client(site)
    try:
        rows = [
            ("search: village name", f"/villages/ended/?q={quote(NAME)}12"),
            ("search: a player", "/villages/ended/?player=lg17"),
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
        print(f"\n{finished} finished villages ({have} bench games); {args.requests} requests each")
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
