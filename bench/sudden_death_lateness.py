"""How late after its deadline does a sudden death (突然死) happen? (issue 5; target p99 ≤ 2 s)

    createdb -h 127.0.0.1 -U postgres jinro_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 SECRET_KEY=bench ALLOWED_HOSTS=127.0.0.1 \\
        .venv/bin/python bench/sudden_death_lateness.py [--villages 100] [--spread 30]

The production layout, on this machine: one `celery beat` (the sweep every
JINRO_SWEEP_INTERVAL = 1 s) and one `celery worker`, on a Celery queue of the bench's
own, against the bench's database. The bench builds `--villages` real-time villages of 8
players (a 5-second day, a 5-second grace) and brings them to day 2 spread over
`--spread` seconds, each with one player who never votes. The server alone then posts
the time-up warning and, once the grace is over, kills the non-voter.

`--embedded` measures the embedded layout instead, as `bin/run` serves: `manage.py runsite`
with its sweep ticker, on a throwaway SQLite database (leave DATABASE_URL and REDIS_URL
unset); `--code DIR` runs the site of another checkout there (a version before, to
compare).

Lateness of the sudden death = when its line was written − the sudden-death deadline the
server had set (read from the village while it waited). The time-up warning's lateness
after the end of the day is printed too. Both are server-side times (PostgreSQL rows).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

from common import bench_users, start_celery, start_site, started_village

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NAME = "bench-sudden"
DAY_SECONDS = 5
RULES_ENV = {
    "JINRO_RATE_LIMIT_ENABLED": "0",
    "JINRO_ONE_SEAT_PER_IP": "0",
    "JINRO_MAX_ACTIVE_VILLAGES": "100000",
    "JINRO_MIN_PHASE_SECONDS": "1",
    "JINRO_SUDDEN_DEATH_GRACE": "5",
    "JINRO_ALERT_FROM": "3",
    "JINRO_ALERT_EVERY": "1",
}
CAST = ["wolf", "wolf", "seer"] + ["villager"] * 5


def setup_django(embedded: bool) -> Path:
    """Django on the bench's database; the directory for the servers' logs."""
    work = Path(os.environ.get("BENCH_LOG_DIR", "/tmp")) / f"jinro-sudden-bench-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    if embedded:
        if os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL"):
            sys.exit("--embedded: leave DATABASE_URL and REDIS_URL unset (see the docstring)")
        os.environ["DATABASE_URL"] = f"sqlite:///{work}/bench.sqlite3"
    for name in () if embedded else ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            sys.exit(f"{name} must be set (see the docstring)")
    os.environ.update(RULES_ENV)
    os.environ["CELERY_QUEUE"] = f"jinro-bench-{os.getpid()}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")
    import django

    django.setup()
    return work


def start_servers(log_dir: Path, embedded: bool, code: Path | None) -> list[subprocess.Popen]:
    """What keeps the clock: the site with its ticker, or one Celery beat and one worker."""
    if embedded:
        site = start_site(log_dir, ticker=True, code=code)
        print(f"runsite with its ticker (logs: {log_dir})", flush=True)
        return [site.popen]
    worker = start_celery(
        ["worker", "--concurrency=2", "--without-gossip", "--without-mingle"],
        log_dir / "worker.log",
    )
    beat = start_celery(
        ["beat", "--schedule", str(log_dir / "beat-schedule")], log_dir / "beat.log"
    )
    from jinro_site.celery import app

    for _ in range(120):
        if app.control.ping(timeout=0.5):
            break
    print(f"one beat, one worker (logs: {log_dir})", flush=True)
    return [worker, beat]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def describe(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    return (
        f"{name} (s): p50 {statistics.median(values):.3f}  p90 {percentile(values, 0.9):.3f}  "
        f"p99 {percentile(values, 0.99):.3f}  max {max(values):.3f}  (n={len(values)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--villages", type=int, default=100)
    parser.add_argument("--spread", type=float, default=30.0, help="seconds over which days start")
    parser.add_argument("--embedded", action="store_true", help="runsite and its ticker, SQLite")
    parser.add_argument("--code", type=Path, help="with --embedded: the site of this checkout")
    args = parser.parse_args()
    log_dir = setup_django(args.embedded)

    from django.core.management import call_command
    from django.db import connections

    from villages.models import Message, Seat, Village
    from villages.services import play, push

    call_command("migrate", verbosity=0, interactive=False)
    Village.objects.filter(name=NAME).delete()
    push.publish = lambda *a, **k: None  # no socket listens: spare the bench the frames
    users = bench_users("sd", args.villages * 8)

    print(f"building {args.villages} real-time villages at night 1", flush=True)
    options = {"time": {"mode": "realtime", "day_seconds": DAY_SECONDS, "night_seconds": 3600}}
    games = [
        started_village(NAME, users[v * 8 : (v + 1) * 8], CAST, options)
        for v in range(args.villages)
    ]

    servers = start_servers(log_dir, args.embedded, args.code)
    print(f"days start over {args.spread:.0f} s", flush=True)

    def bring_to_day_two() -> None:
        begin = time.monotonic()
        for i, (village_id, seated) in enumerate(games):
            time.sleep(max(0.0, begin + args.spread * i / len(games) - time.monotonic()))
            play.night_action(village_id=village_id, user=seated[1], action="attack", targets=[4])
            play.night_action(village_id=village_id, user=seated[3], action="divine", targets=[5])
            for voter in (1, 2, 3, 5, 6, 7):  # seat 8 never votes
                play.vote(village_id=village_id, user=seated[voter], target=3 if voter != 3 else 1)
        connections.close_all()

    ids = [village_id for village_id, _ in games]
    deadlines: dict[int, datetime] = {}  # the first sudden-death deadline of each village
    day_ends: dict[int, datetime] = {}
    players = threading.Thread(target=bring_to_day_two)
    try:
        players.start()
        finish = time.monotonic() + args.spread + DAY_SECONDS + 5 + 60
        while time.monotonic() < finish:
            rows = Village.objects.filter(pk__in=ids).values_list("id", "phase", "game")
            for village_id, phase, game in rows:
                clock = game.get("clock", {})
                if clock.get("sudden_death_at") and village_id not in deadlines:
                    deadlines[village_id] = datetime.fromisoformat(clock["sudden_death_at"])
                if phase == "day" and village_id not in day_ends:
                    started = datetime.fromisoformat(clock["phase_started_at"])
                    day_ends[village_id] = started + timedelta(seconds=DAY_SECONDS)
            done = (
                Seat.objects.filter(village_id__in=ids, death_cause="sudden")
                .values("village_id")
                .distinct()
                .count()
            )
            if done >= len(ids):
                break
            time.sleep(0.05)
    finally:
        players.join()
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(30)

    deaths: dict[int, datetime] = {}
    time_ups: dict[int, datetime] = {}
    for code, firsts in (("sudden_death", deaths), ("time_up_day", time_ups)):
        for village_id, created in (
            Message.objects.filter(village_id__in=ids, code=code)
            .order_by("id")
            .values_list("village_id", "created_at")
        ):
            firsts.setdefault(village_id, created)
    late = [(deaths[v] - deadlines[v]).total_seconds() for v in deaths if v in deadlines]
    time_up_late = [(time_ups[v] - day_ends[v]).total_seconds() for v in time_ups if v in day_ends]
    print(
        f"{len(deaths)} of {len(ids)} non-voters died of sudden death "
        f"({sum(1 for v in ids if v not in deaths)} missing)"
    )
    print(describe("sudden death after its deadline", late))
    print(describe("time-up warning after the end of the day", time_up_late))


if __name__ == "__main__":
    main()
