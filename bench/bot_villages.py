"""K all-bot villages played at the same time to the end (issue 11; target on this 2-core
machine: 50 villages at once, 0 errors, 0 sudden deaths). Also the soak test.

    .venv/bin/python bench/bot_villages.py [--villages 50] [--minutes 0] [--delay 1]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/jinro_bench \\
    REDIS_URL=redis://127.0.0.1:6379/12 .venv/bin/python bench/bot_villages.py ...

Embedded default (no DATABASE_URL): a throwaway SQLite database and one `manage.py
runsite` whose ticker sweeps (the bots look on that sweep). With DATABASE_URL and
REDIS_URL: the production layout's clock, one `celery beat` and one `celery worker`
(prefork, concurrency 1), against the bench's own database and Celery queue.

This process builds the villages through the services (a random size from 8 to 22 and a
random set of options each, virtual time; the host fills every seat with bots, so each
starts at once) and keeps `--villages` of them playing: with `--minutes`, a village that
ends is replaced by a new one until the time is up, then the last ones are played out.
It reports games per minute, the CPU per game of each server process, errors in their
logs, sudden deaths, and each process's memory at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, start_celery, start_site

FLAGS = ("cupid", "poison", "decider", "authority", "hide_roles_in_heaven", "dummy_boy")
NAME = "bench-bots"


class Tree:
    """A server process and its children (a prefork worker's), by /proc."""

    def __init__(self, name: str, popen: subprocess.Popen, log: Path) -> None:
        self.name, self.popen, self.log = name, popen, log

    def pids(self) -> list[int]:
        found, kids = [self.popen.pid], {}
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                kids.setdefault(ppid, []).append(int(proc.name))
        for pid in found:
            found += kids.get(pid, [])
        return found

    def cpu_seconds(self) -> float:
        total = 0.0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total

    def rss_mib(self) -> float:
        total = 0.0
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            total += sum(int(x.split()[1]) for x in status if x.startswith("VmRSS:")) / 1024
        return total

    def errors(self) -> int:
        text = self.log.read_text(errors="replace")
        return text.count("Traceback") + text.count(" ERROR")

    def stop(self) -> None:
        self.popen.terminate()
        try:
            self.popen.wait(30)
        except subprocess.TimeoutExpired:
            self.popen.kill()


def service_cpu() -> float:
    """CPU seconds of Redis and every PostgreSQL process (the shared services)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            name, _, rest = (proc / "stat").read_text().partition(") ")
        except OSError:
            continue
        if name.split("(", 1)[1].startswith(("redis-server", "postgres")):
            fields = rest.split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--villages", type=int, default=50, help="played at the same time")
    parser.add_argument("--minutes", type=float, default=0, help="keep them coming this long")
    parser.add_argument("--delay", type=int, default=1, help="JINRO_BOT_DELAY, seconds")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    services = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
    os.environ["JINRO_BOT_DELAY"] = str(args.delay)
    os.environ["JINRO_MAX_ACTIVE_VILLAGES"] = "100000"
    os.environ["CELERY_QUEUE"] = f"jinro-bench-bots-{os.getpid()}"
    from common import bench_staff, setup_django

    work = setup_django()

    from django.db import connections

    from villages.models import Seat, Village
    from villages.services import bots, lifecycle

    Village.objects.filter(name=NAME).delete()
    staff = bench_staff()
    rng = random.Random(args.seed)

    def new_village() -> int:
        players = rng.randint(8, 22)
        options = {name: rng.random() < 0.4 for name in FLAGS}
        village = lifecycle.create_village(user=staff, name=NAME, capacity=players, options=options)
        bots.add_bots(village_id=village.pk, user=staff)
        return village.pk

    connections.close_all()
    if services:
        layout = "PostgreSQL + Redis: one celery beat, one celery worker (prefork, 1 child)"
        processes = [
            Tree(
                "celery worker",
                start_celery(
                    ["worker", "--concurrency=1", "--without-gossip", "--without-mingle"],
                    work / "worker.log",
                ),
                work / "worker.log",
            ),
            Tree(
                "celery beat",
                start_celery(
                    ["beat", "--schedule", str(work / "beat-schedule")], work / "beat.log"
                ),
                work / "beat.log",
            ),
        ]
    else:
        layout = "embedded: SQLite, one runsite whose ticker sweeps"
        site = start_site(work, ticker=True)
        processes = [Tree("runsite (daphne + ticker)", site.popen, site.log)]
    time.sleep(3)  # let them settle before the first reading
    rss_start = {p.name: p.rss_mib() for p in processes}
    cpu_start = {p.name: p.cpu_seconds() for p in processes}
    shared_start = service_cpu() if services else 0.0
    print(f"{layout}; {os.cpu_count()} cores; logs in {work}", flush=True)

    began = time.monotonic()
    playing = [new_village() for _ in range(args.villages)]
    built = time.monotonic() - began
    print(f"{len(playing)} villages built and started in {built:.1f} s", flush=True)
    ended: list[int] = []
    stop_new = began + args.minutes * 60
    last_report = began
    try:
        while playing:
            time.sleep(1)
            for p in processes:
                if p.popen.poll() is not None:
                    sys.exit(f"{p.name} died; see {p.log}")
            done = set(
                Village.objects.filter(pk__in=playing, status=Village.Status.ENDED).values_list(
                    "pk", flat=True
                )
            )
            playing = [v for v in playing if v not in done]
            ended += done
            if time.monotonic() < stop_new:
                playing += [new_village() for _ in done]
            if time.monotonic() - last_report > 30:
                last_report = time.monotonic()
                rss = ", ".join(f"{p.name} {p.rss_mib():.0f} MiB" for p in processes)
                print(
                    f"  {time.monotonic() - began:5.0f} s: {len(ended)} ended, "
                    f"{len(playing)} playing; {rss}",
                    flush=True,
                )
            if time.monotonic() - began > max(args.minutes * 60, 0) + 900:
                print("  gave up waiting: 15 minutes past the end", flush=True)
                break
        wall = time.monotonic() - began
        cpu = {p.name: p.cpu_seconds() - cpu_start[p.name] for p in processes}
        rss_end = {p.name: p.rss_mib() for p in processes}
        shared = service_cpu() - shared_start if services else 0.0
        errors = {p.name: p.errors() for p in processes}
    finally:
        for p in processes:
            p.stop()

    villages = Village.objects.filter(pk__in=ended)
    winners = villages.exclude(winner="").count()
    abandoned = villages.filter(abandoned=True).count()
    sudden = Seat.objects.filter(village__in=villages, death_cause="sudden").count()
    seats = Seat.objects.filter(village__in=villages).count()
    games = max(1, len(ended))
    print(f"\n{len(ended)} games ended in {wall / 60:.1f} min ({seats} seats, all bots)")
    print(f"  games per minute: {len(ended) / (wall / 60):.1f}")
    print(f"  with a winner: {winners}; abandoned: {abandoned}; sudden deaths: {sudden}")
    for p in processes:
        print(
            f"  {p.name}: CPU {cpu[p.name]:.1f} s = {cpu[p.name] / games:.2f} s per game, "
            f"{100 * cpu[p.name] / wall:.0f}% of a core; errors in its log: {errors[p.name]}; "
            f"RSS {rss_start[p.name]:.0f} → {rss_end[p.name]:.0f} MiB"
        )
    if services:
        print(f"  Redis + PostgreSQL: CPU {shared:.1f} s = {shared / games:.2f} s per game")
    print(f"  (this process built the villages: {built:.1f} s for the first {args.villages})")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
