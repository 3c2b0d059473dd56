"""Coloretto rules-engine throughput: random self-play through the public interface, on one core.

Each decision: ``to_move``, ``observe`` for the seat to move, ``legal_actions``, a uniform random
choice, ``apply``; each game ends with ``outcome``. Prints whole games per second and decisions per
second for every player count (the target: 1,000 4-player games per second), in CPU time so that
other processes on the machine do not skew it.

    .venv/bin/python benchmarks/bench_coloretto.py [--seconds 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from arena.games.coloretto import GameColoretto

TARGET_GAMES_PER_SECOND = 1_000
TARGET_PLAYERS = 4


def play_one(rules: GameColoretto, players: int, seed: int) -> int:
    """One random game; returns the number of decisions."""
    rng = random.Random(seed)
    state = rules.initial_state(players, seed)
    decisions = 0
    while seats := rules.to_move(state):
        actions = {}
        for seat in seats:
            rules.observe(state, seat)
            actions[seat] = rng.choice(rules.legal_actions(state, seat))
        state = rules.apply(state, actions)
        decisions += 1
    if rules.outcome(state) is None:
        raise AssertionError("a game with nobody to move must have an outcome")
    return decisions


def selfplay(rules: GameColoretto, players: int, seconds: float) -> tuple[int, int, float]:
    """Play games for about ``seconds``; returns (games, decisions, elapsed seconds)."""
    games = decisions = 0
    start = time.process_time()
    while True:
        decisions += play_one(rules, players, games)
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per player count (default 3)")
    args = parser.parse_args()
    rules = GameColoretto()
    print(f"coloretto random self-play, one core, best of {args.repeats}; python {platform.python_version()}")
    print(f"{'players':>7}  {'games/s':>8}  {'decisions/s':>11}  {'decisions/game':>14}")
    for players in rules.player_counts:
        runs = [selfplay(rules, players, args.seconds) for _ in range(args.repeats)]
        games, decisions, elapsed = max(runs, key=lambda run: run[0] / run[2])
        print(f"{players:>7}  {games / elapsed:>8,.0f}  {decisions / elapsed:>11,.0f}  {decisions / games:>14.0f}")
        if players == TARGET_PLAYERS:
            verdict = "met" if games / elapsed >= TARGET_GAMES_PER_SECOND else "NOT met"
            print(f"         target {TARGET_GAMES_PER_SECOND:,} games/s: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
