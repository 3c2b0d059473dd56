"""Azul engine throughput: in-process random self-play through the public game interface.

Whole games per second and decisions per second on one core, for each player count and wall side,
with ``observe`` called once per decision (as the referee does) and a uniform random policy. Run
with ``python benchmarks/bench_azul.py [--seconds S]``. The Azul engine is not registered yet, so it
is used directly rather than through ``bench_games.py``.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.games.azul import GameAzul

GAME = GameAzul()


def play_one(players: int, seed: int, wall: str) -> int:
    """One random game; returns the number of decisions taken."""
    rng = random.Random(seed)
    state = GAME.initial_state(players, seed, {"wall": wall})
    decisions = 0
    while seats := GAME.to_move(state):
        actions = {}
        for seat in seats:
            GAME.observe(state, seat)
            actions[seat] = rng.choice(GAME.legal_actions(state, seat))
        state = GAME.apply(state, actions)
        decisions += len(seats)
    if GAME.outcome(state) is None:
        raise AssertionError("a finished game has an outcome")
    return decisions


def main() -> None:
    """Print games/s and decisions/s for 2-4 players on both walls."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    # CPU time as well as wall-clock time: on a shared machine the wall clock also counts other work.
    print("players wall      games/s  decisions/s  games/cpu-s  decisions/game")
    for wall in ("standard", "grey"):
        for players in (2, 3, 4):
            games = decisions = 0
            start, cpu_start = time.perf_counter(), time.process_time()
            while (elapsed := time.perf_counter() - start) < args.seconds:
                decisions += play_one(players, games, wall)
                games += 1
            cpu = time.process_time() - cpu_start
            print(
                f"{players:>7} {wall:<8} {games / elapsed:>8.0f} {decisions / elapsed:>12.0f} "
                f"{games / cpu:>12.0f} {decisions / games:>15.1f}"
            )


if __name__ == "__main__":
    main()
