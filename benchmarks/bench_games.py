"""Rules-engine throughput: in-process random self-play through the public game interface.

For each player count: whole games per second and decisions (one seat's action) per second, on
one core, with the policy a uniform random choice among ``legal_actions`` (with ``--observe``, each
seat to move is also sent its ``observe`` view first, as a referee does). Separately: the cost of
one ``observe`` call, and of ``observe`` followed by ``to_jsonable`` (what a seat is sent).
Run with ``make bench`` or ``python benchmarks/bench_games.py [--game G] [--option KEY=VALUE ...]
[--observe] [--target N] [--target-players P] [--seconds S]``; see BENCHMARKS.md. Rates are per second of
wall-clock time, and per second of this process's CPU time (on a shared machine the wall clock also counts
others' work).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from typing import Any

from arena import catalogue
from arena.games import GameRules, get_game, to_jsonable
from arena.wire.common import options_from_proto

TARGET_GAMES_PER_SECOND = 2_500
"""The default goal (``--target``) for 4-player random self-play on one core."""
TARGET_PLAYERS = 4
"""The default player count of the goal (``--target-players``)."""


Options = dict[str, Any]


def play_one(
    rules: GameRules[Any, Any, Any], players: int, seed: int, observe: bool = False, options: Options | None = None
) -> int:
    """One random game through the public interface; returns the number of decisions taken."""
    rng = random.Random(seed)
    state = rules.initial_state(players, seed, options)
    decisions = 0
    while seats := rules.to_move(state):
        actions = {}
        for seat in seats:
            if observe:
                rules.observe(state, seat)
            actions[seat] = rng.choice(rules.legal_actions(state, seat))
        state = rules.apply(state, actions)
        decisions += len(seats)
    if rules.outcome(state) is None:
        raise AssertionError("a game with nobody to move must have an outcome")
    return decisions


def selfplay(
    rules: GameRules[Any, Any, Any], players: int, seconds: float, observe: bool, options: Options
) -> tuple[int, int, float, float]:
    """Play games for about ``seconds``; returns (games, decisions, elapsed seconds, CPU seconds)."""
    for seed in range(20):  # warm the legal-action cache, as a long-running referee has it warm
        play_one(rules, players, -1 - seed, observe, options)
    games = decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        decisions += play_one(rules, players, games, observe, options)
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return games, decisions, now - start, time.process_time() - cpu_start


def sample_states(rules: GameRules[Any, Any, Any], players: int, games: int, options: Options) -> list[Any]:
    """Every state of a few random games, the starts of turns at every stage of a match."""
    states = []
    for seed in range(games):
        rng = random.Random(seed)
        state = rules.initial_state(players, seed, options)
        while seats := rules.to_move(state):
            states.append(state)
            state = rules.apply(state, {seat: rng.choice(rules.legal_actions(state, seat)) for seat in seats})
    return states


def observe_cost(
    rules: GameRules[Any, Any, Any], players: int, seconds: float, serialise: bool, options: Options
) -> tuple[float, int]:
    """Microseconds per ``observe`` call (plus ``to_jsonable`` if ``serialise``), and calls made."""
    states = sample_states(rules, players, 20, options)
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for state in states:
            for seat in range(players):
                view = rules.observe(state, seat)
                if serialise:
                    to_jsonable(view)
            calls += players
    return (time.perf_counter() - start) / calls * 1e6, calls


def main() -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=catalogue.DEFAULT_GAME, choices=catalogue.names())
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option (value: JSON or text)"
    )
    parser.add_argument("--observe", action="store_true", help="observe for each seat to move, as a referee does")
    parser.add_argument(
        "--target", type=float, default=TARGET_GAMES_PER_SECOND, help="games/s goal (default %(default)s)"
    )
    parser.add_argument(
        "--target-players", type=int, default=TARGET_PLAYERS, help="the goal's player count (default %(default)s)"
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per configuration (default 3)")
    args = parser.parse_args()
    rules = get_game(args.game)
    options = options_from_proto(dict(option.partition("=")[::2] for option in args.option))
    slice_ = args.seconds / args.repeats
    observing = ", observe per decision" if args.observe else ""
    shown = "".join(f" {key}={value}" for key, value in options.items())
    print(
        f"{args.game}{shown} rules engine, random self-play{observing}, one core; best (median) of {args.repeats} runs"
    )
    print(f"python {platform.python_version()} ({platform.python_implementation()}), {platform.machine()}")
    print(f"{'players':>7}  {'games/s':>16}  {'decisions/s':>18}  {'decisions/game':>14}  {'games/cpu-s':>11}")
    best: dict[int, float] = {}
    best_cpu: dict[int, float] = {}
    for players in rules.player_counts:
        runs = [selfplay(rules, players, slice_, args.observe, options) for _ in range(args.repeats)]
        games_rate = sorted(g / t for g, _, t, _ in runs)
        decision_rate = sorted(d / t for _, d, t, _ in runs)
        cpu_rate = max(g / cpu for g, _, _, cpu in runs)
        per_game = sum(d for _, d, _, _ in runs) / sum(g for g, _, _, _ in runs)
        best[players] = games_rate[-1]
        best_cpu[players] = cpu_rate
        print(
            f"{players:>7}  {games_rate[-1]:>7,.0f} ({statistics.median(games_rate):>6,.0f})  "
            f"{decision_rate[-1]:>8,.0f} ({statistics.median(decision_rate):>7,.0f})  {per_game:>14.0f}  "
            f"{cpu_rate:>11,.0f}"
        )
    if args.target_players in best:
        ratio = best[args.target_players] / args.target
        print(
            f"{args.target_players}-player: {best[args.target_players]:,.0f} games/s vs target "
            f"{args.target:,.0f} games/s: ratio {ratio:.2f} ({'met' if ratio >= 1 else 'NOT met'}); "
            f"per CPU-second {best_cpu[args.target_players]:,.0f}: "
            f"ratio {best_cpu[args.target_players] / args.target:.2f}"
        )
    print()
    print(f"{'players':>7}  {'observe µs/call':>15}  {'observe+to_jsonable µs/call':>27}")
    for players in rules.player_counts:
        plain = min(observe_cost(rules, players, slice_ / 2, False, options)[0] for _ in range(args.repeats))
        json_ready = min(observe_cost(rules, players, slice_ / 2, True, options)[0] for _ in range(args.repeats))
        print(f"{players:>7}  {plain:>15.2f}  {json_ready:>27.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
