"""Median render time of the lower pane of a 22-seat village with 1,000 messages.

    .venv/bin/python bench/lower_pane.py [--runs 300]

Builds the village in a throwaway SQLite database through the services (a fixed cast,
played to day 5), adds lines to its past phases up to 1,000, then renders the lower pane
(the real view, through Django's request factory) for a living villager, a wolf and a
spectator. Closed phases come from the per-audience cache after the first render; the
figure is the steady state a player refreshing the page gets. Target: ≤ 5 ms median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TMP = tempfile.mkdtemp(prefix="jinro-bench-")
os.environ["DATABASE_URL"] = f"sqlite:///{TMP}/bench.sqlite3"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")
os.environ["JINRO_ONE_SEAT_PER_IP"] = "0"
os.environ["JINRO_RATE_LIMIT_ENABLED"] = "0"

import django  # noqa: E402

django.setup()

from common import insert_lines  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.models import AnonymousUser  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import RequestFactory  # noqa: E402

from villages.models import Icon, Message  # noqa: E402
from villages.services import lifecycle, play  # noqa: E402
from villages.views import screen  # noqa: E402

N = 22
# 22 players: 12 villagers, seer, medium, guard, 2 commons, 3 wolves, madman, fox.
CAST = (
    ["wolf"] * 3
    + ["seer", "medium", "guard", "common", "common", "madman", "fox"]
    + ["villager"] * 12
)


def build() -> tuple[int, list]:
    call_command("migrate", verbosity=0)
    User = get_user_model()
    users = [User.objects.create_user(f"b{i}", password="x") for i in range(1, N + 1)]
    staff = User.objects.create_user("staff", password="x", is_staff=True)
    village = lifecycle.create_village(user=users[0], name="ベンチ村", capacity=N)
    icons = list(Icon.objects.choosable())
    for i, u in enumerate(users):
        lifecycle.sit(
            village_id=village.pk, user=u, handle_name=f"村人{i + 1}", icon_id=icons[i % 20].pk
        )
    lifecycle.fix_cast(
        village_id=village.pk,
        user=staff,
        roles={str(i + 1): role for i, role in enumerate(CAST)},
        sub_roles={},
    )
    for u in users:
        lifecycle.vote_start(village_id=village.pk, user=u)
    seat = {i + 1: users[i] for i in range(N)}
    alive = set(seat)
    vid = village.pk
    # Nights 1–4 and days 2–4: bite a villager, divine, guard; execute a villager by day.
    villagers = [no for no in range(11, 23)]
    for night in range(1, 5):
        play.post_message(village_id=vid, user=seat[1], text=f"{night}日目の作戦")
        prey = villagers.pop()
        play.night_action(village_id=vid, user=seat[1], action="attack", targets=[prey])
        alive.discard(prey)
        if night >= 2:
            play.night_action(village_id=vid, user=seat[6], action="guard", targets=[4])
        play.night_action(village_id=vid, user=seat[4], action="divine", targets=[10 + night])
        if night == 4:
            break
        victim = villagers.pop()
        for voter in sorted(alive):
            target = victim if voter != victim else 4
            play.vote(village_id=vid, user=seat[voter], target=target)
        alive.discard(victim)
    # Fill the past phases (and a little of the current one) up to 1,000 lines.
    kinds_by_phase = {"day": ["talk"], "night": ["wolf", "common", "monologue"]}
    rows = []
    existing = Message.objects.filter(village_id=vid).count()
    groups = [(d, "day") for d in range(2, 5)] + [(d, "night") for d in range(1, 5)]
    i = 0
    while existing + len(rows) < 960:
        day, phase = groups[i % len(groups)]
        kind = kinds_by_phase[phase][i % len(kinds_by_phase[phase])]
        speaker = {"wolf": 1, "common": 8, "monologue": 15, "talk": 4 + i % 7}[kind]
        rows.append(
            Message(
                village_id=vid,
                day=day,
                phase=phase,
                kind=kind,
                seat_no=speaker,
                text=f"{i}番目の発言です。" * (1 + i % 4),
                volume=("normal", "strong", "weak")[i % 3],
            )
        )
        i += 1
    insert_lines(vid, rows)
    while Message.objects.filter(village_id=vid).count() < 1000:
        play.post_message(village_id=vid, user=seat[4 + len(rows) % 6], text="今日の議論を始めよう")
        rows.append(None)
    return vid, users


def measure(vid: int, user, runs: int) -> list[float]:
    factory = RequestFactory()
    times = []
    for _ in range(runs + 20):
        request = factory.get(f"/villages/{vid}/down/")
        request.user = user if user is not None else AnonymousUser()
        request.COOKIES = {}
        start = time.perf_counter()
        response = screen.lower(request, vid)
        times.append(time.perf_counter() - start)
        assert response.status_code == 200
    return times[20:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    vid, users = build()
    total = Message.objects.filter(village_id=vid).count()
    print(f"village {vid}: {N} seats, {total} messages")
    results = {}
    for label, user in (("villager", users[20]), ("wolf", users[0]), ("spectator", None)):
        times = measure(vid, user, args.runs)
        results[label] = statistics.median(times) * 1000
        p90 = sorted(times)[int(len(times) * 0.9)] * 1000
        print(f"lower pane, {label:9}: median {results[label]:.2f} ms, p90 {p90:.2f} ms")
    overall = statistics.median(results.values())
    print(f"median: {overall:.2f} ms (target ≤ 5 ms)")


if __name__ == "__main__":
    main()
