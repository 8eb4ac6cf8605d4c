"""Random full 22-player games through the rules engine: games per second.

    .venv/bin/python bench/engine_games.py [--seconds 10] [--players 22]

Every option is on (cupid, poison, decider, authority, dummy boy, hide roles in heaven);
games alternate between virtual and real time. Moves are random and legal (the same
player as the property tests, `tests/engine/randomplay.py`): talk, wills, heaven talk,
objections, night actions, votes with ties, and clock ticks that bring time-ups, alerts,
sudden deaths and outages. Prints games per second and moves per game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine import randomplay as rp
from villages.engine.cast import Options, TimeOptions
from villages.engine.state import Phase


def options_for(game_no: int) -> Options:
    realtime = game_no % 2 == 1
    return Options(
        time=TimeOptions(realtime=True, day_seconds=300, night_seconds=120)
        if realtime
        else TimeOptions(),
        cupid=True,
        poison=True,
        decider=True,
        authority=True,
        hide_roles_in_heaven=True,
        dummy_boy=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--players", type=int, default=22)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    moves: list[int] = []
    winners: Counter[str] = Counter()
    started = time.perf_counter()
    deadline = started + args.seconds
    game_no = 0
    while time.perf_counter() < deadline:
        seed = args.seed * 1_000_003 + game_no
        g = rp.start(args.players, options_for(game_no), seed)
        n = rp.play(g, random.Random(seed))
        if g.state.phase is not Phase.ENDED:
            raise SystemExit(f"game {seed} did not end in {n} moves")
        moves.append(n)
        winners[str(g.state.winner)] += 1
        game_no += 1
    elapsed = time.perf_counter() - started
    print(f"{args.players}-player games, all options: {game_no} in {elapsed:.1f} s")
    print(f"games per second: {game_no / elapsed:.1f}")
    print(
        f"moves per game: mean {statistics.mean(moves):.0f}, "
        f"median {statistics.median(moves):.0f}, max {max(moves)}"
    )
    print(f"moves per second: {sum(moves) / elapsed:.0f}")
    print("winners: " + ", ".join(f"{w} {n}" for w, n in winners.most_common()))


if __name__ == "__main__":
    main()
