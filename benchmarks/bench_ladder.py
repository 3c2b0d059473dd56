"""How many matches does a ladder need to order 5 bots, against a round-robin league of the same bots?

Simulation: 5 synthetic bots of known strength (ratings ``--gap`` Elo apart, 2 players a match, the
better bot winning with the Elo probability ``1 / (1 + 10^(-d/400))``). Each repetition plays
``--max`` matches two ways and, at each checkpoint, ranks the bots with the ladder's standings fit
(the league table's fit of the results' pairing aggregate, as the ladder's standings are) and asks
whether the order is exactly the true one:

- ladder: the real matchmaker (:func:`arena.ladder.matchmaker.pick_tables`), each bot one match at
  a time, its ratings, intervals and games refitted every ``--refit`` matches (as the live
  matchmaker refits each pass), seats rotated;
- round robin: the 10 pairs in turn (seats alternating), as a league of the same bots schedules
  them.

It prints, per checkpoint, the share of repetitions that got the order right, and for each way the
first checkpoint at which that share reaches 95%.

    .venv/bin/python benchmarks/bench_ladder.py [--reps 200] [--gap 100] [--max 700] [--seed 1]
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Callable, Sequence

from arena.ladder.matchmaker import Candidate, pick_tables
from arena.league.aggregate import PairingAggregate
from arena.league.bradley_terry import PRIOR_SD
from arena.league.result import StoredResult
from arena.league.table import PROVISIONAL_MATCHES, LeagueTable

BOTS = ("b0", "b1", "b2", "b3", "b4")
CHECKPOINTS = (50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800, 1000, 1200, 1500, 2000)
TARGET = 0.95

Scheduler = Callable[[list[StoredResult], random.Random], list[tuple[str, str]]]


def outcome(table: tuple[str, str], strength: dict[str, float], index: int, rng: random.Random) -> StoredResult:
    a, b = table
    first_wins = rng.random() < 1.0 / (1.0 + 10 ** ((strength[b] - strength[a]) / 400.0))
    placings = (1, 2) if first_wins else (2, 1)
    return StoredResult(f"m{index}", table, (1, 0) if first_wins else (0, 1), placings)


def fit_table(results: Sequence[StoredResult]) -> LeagueTable:
    """The standings' fit: the league table of the results summed by pairing."""
    return LeagueTable.from_aggregate(PairingAggregate.from_results(results))


def ordered(results: Sequence[StoredResult]) -> bool:
    """Whether the fitted table lists the bots strongest first (b0 the strongest)."""
    return [row.bot for row in fit_table(results).rows] == list(BOTS)


def round_robin() -> Scheduler:
    pairs = list(itertools.combinations(BOTS, 2))
    state = {"next": 0}

    def schedule(results: list[StoredResult], rng: random.Random) -> list[tuple[str, str]]:
        i = state["next"]
        state["next"] += 1
        a, b = pairs[i % len(pairs)]
        return [(a, b) if (i // len(pairs)) % 2 == 0 else (b, a)]

    return schedule


def ladder(refit: int) -> Scheduler:
    state: dict[str, object] = {"fitted_at": -refit, "lines": {}, "seats": {}}

    def schedule(results: list[StoredResult], rng: random.Random) -> list[tuple[str, str]]:
        if len(results) - int(state["fitted_at"]) >= refit:  # type: ignore[call-overload]
            state["fitted_at"] = len(results)
            table = fit_table(results) if results else None
            state["lines"] = (
                {row.bot: (row.rating, (row.rating_high - row.rating_low) / 3.92, row.matches) for row in table.rows}
                if table
                else {}
            )
        lines: dict[str, tuple[float, float, int]] = state["lines"]  # type: ignore[assignment]
        seats: dict[str, list[int]] = state["seats"]  # type: ignore[assignment]
        candidates = [Candidate(bot, *lines.get(bot, (1500.0, PRIOR_SD, 0)), free=1) for bot in BOTS]
        tables = pick_tables(candidates, 2, seats, rng, provisional_games=PROVISIONAL_MATCHES)
        for seating in tables:
            for seat, bot in enumerate(seating):
                seats.setdefault(bot, [0, 0])[seat] += 1
        return [(t[0], t[1]) for t in tables]

    return schedule


def trial(make: Callable[[], Scheduler], strength: dict[str, float], most: int, seed: int) -> dict[int, bool]:
    rng = random.Random(seed)
    schedule = make()
    results: list[StoredResult] = []
    right: dict[int, bool] = {}
    checkpoints = [c for c in CHECKPOINTS if c <= most]
    while checkpoints:
        for table in schedule(results, rng):
            results.append(outcome(table, strength, len(results), rng))
            if checkpoints and len(results) == checkpoints[0]:
                right[checkpoints.pop(0)] = ordered(results)
    return right


def crossing(shares: dict[int, float]) -> float | None:
    """Matches at which the share reaches the target and stays there (linear between checkpoints)."""
    points = sorted(shares.items())
    for i, (checkpoint, share) in enumerate(points):
        if all(s >= TARGET for _, s in points[i:]):
            if i == 0:
                return float(checkpoint)
            before, low = points[i - 1]
            return before + (checkpoint - before) * (TARGET - low) / (share - low)
    return None


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--gap", type=float, default=100.0, help="Elo between neighbours (default %(default)s)")
    parser.add_argument("--max", type=int, default=700, help="matches per repetition (default %(default)s)")
    parser.add_argument("--refit", type=int, default=10, help="ladder: refit every N matches (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    strength = {bot: 1500.0 - args.gap * i for i, bot in enumerate(BOTS)}
    started = time.perf_counter()
    ways: dict[str, Callable[[], Scheduler]] = {"ladder": lambda: ladder(args.refit), "round robin": round_robin}
    shares: dict[str, dict[int, float]] = {}
    for name, make in ways.items():
        tally: dict[int, int] = {}
        for rep in range(args.reps):
            for checkpoint, right in trial(make, strength, args.max, args.seed * 100_003 + rep).items():
                tally[checkpoint] = tally.get(checkpoint, 0) + right
        shares[name] = {c: n / args.reps for c, n in sorted(tally.items())}
    print(f"5 bots {args.gap:g} Elo apart, 2 players, {args.reps} repetitions: share with the exact order")
    print(f"{'matches':>8} " + " ".join(f"{name:>12}" for name in ways))
    for checkpoint in shares["ladder"]:
        print(f"{checkpoint:>8} " + " ".join(f"{shares[name][checkpoint]:>12.3f}" for name in ways))
    needed = {name: crossing(share) for name, share in shares.items()}
    for name, count in needed.items():
        shown = f"{count:.0f}" if count else f"more than {args.max}"
        print(f"{name}: {shown} matches to order them with 95% probability (interpolated between checkpoints)")
    if needed["ladder"] and needed["round robin"]:
        print(f"ladder / round robin: {needed['ladder'] / needed['round robin']:.2f}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
