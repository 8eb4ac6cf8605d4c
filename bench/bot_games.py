"""How the site's bots play together (issue 39): whole villages through the rules engine
alone, seeded, with the bots' own strategy at every seat (`tests/engine/botplay.py`, the
site's pacing in miniature). No Django, no database.

    .venv/bin/python bench/bot_games.py [--games 1000] [--at-13 500] [--at-22 300] [--seed 1]

Prints one table (Markdown, as docs/benchmarks.md keeps it):
- over `--games` all-bot 8-seat villages: draws, and days that needed a revote;
- over `--games` 8-seat villages where a person is the lone seer and names a wolf on day
  2 (in one of several wordings) and votes for it: how often that wolf is executed that
  day (villages whose seer was bitten on night 1 are not counted and drawn again);
- the village's win rate at 8, 13 and 22 seats (the 8-seat villages above, then
  `--at-13` and `--at-22` more), with its 95 % interval and the other winners.
Then the CPU time it took. The targets are the issue's: draws ≤ 1 %, revote days ≤ 10 %,
the seer's wolf executed ≥ 80 %, the village winning 35–65 % at each size.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine.botplay import Figures, all_bots, lone_seer


def share(n: int, of: int) -> str:
    return f"{100 * n / of:.1f} %" if of else "–"


def interval(n: int, of: int) -> str:
    """A 95 % (Wilson) interval of n/of, in per cent."""
    if not of:
        return "–"
    p, z = n / of, 1.96
    middle = (p + z * z / (2 * of)) / (1 + z * z / of)
    half = z * math.sqrt(p * (1 - p) / of + z * z / (4 * of * of)) / (1 + z * z / of)
    return f"{100 * (middle - half):.0f}–{100 * (middle + half):.0f} %"


def villages(players: int, count: int, seed: int) -> list[Figures]:
    return [all_bots(players, seed * 1_000_003 + n) for n in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="8-seat villages, each kind")
    parser.add_argument("--at-13", type=int, default=500, help="13-seat villages")
    parser.add_argument("--at-22", type=int, default=300, help="22-seat villages")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.process_time()

    rows = []
    eight = villages(8, args.games, args.seed)
    draws = sum(1 for f in eight if f.winner == "draw")
    days = sum(f.vote_days for f in eight)
    revotes = sum(f.revote_days for f in eight)
    rows.append(
        ("draws, all-bot 8 seats", f"{args.games} villages", share(draws, args.games), "≤ 1 %")
    )
    rows.append(("days with a revote, 8 seats", f"{days} days", share(revotes, days), "≤ 10 %"))

    followed = bitten = 0
    seed = args.seed * 7_000_003
    counted = 0
    while counted < args.games:
        seed += 1
        outcome = lone_seer(seed)
        if outcome is None:
            bitten += 1
            continue
        counted += 1
        followed += outcome
    rows.append(
        (
            "a lone seer's wolf (day 2) executed that day",
            f"{counted} villages ({bitten} more drawn: seer bitten)",
            share(followed, counted),
            "≥ 80 %",
        )
    )

    for players, games in ((8, eight), (13, villages(13, args.at_13, args.seed)),
                           (22, villages(22, args.at_22, args.seed))):  # fmt: skip
        winners = Counter(f.winner for f in games)
        won = winners["village"]
        others = ", ".join(
            f"{w} {share(n, len(games))}" for w, n in winners.most_common() if w != "village"
        )
        rows.append(
            (
                f"village wins, {players} seats",
                f"{len(games)} villages",
                f"{share(won, len(games))} ({interval(won, len(games))}); {others}",
                "35–65 %",
            )
        )

    print("| figure | over | measured | target |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nCPU time: {time.process_time() - started:.0f} s (seed {args.seed})")


if __name__ == "__main__":
    main()
