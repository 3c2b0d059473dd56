"""What a leaderboard costs: the table fitted from a pairing aggregate, at 100,000 results.

The arena keeps each league's results summed by pairing (``arena.league.aggregate``), updated by
the script that stores each result, and ``GetLeaderboard`` fits the table from that. This measures,
in-process, the fit from an aggregate of ``--results`` random 2-player and 4-player results among
``--bots`` bots (random pairings, the stronger bot of a pair winning more often): the aggregate's
size (fields, and bytes in its stored form), the time to fit the table (wall and CPU: on a shared
machine the CPU time is the figure to compare), and the fit's peak memory (tracemalloc, in a
second run). The audit measured the old path, refitting from every stored result, at 1.5-3 s for
100,000 results and 4 s and 900 MiB at 1,000 bots.

    .venv/bin/python benchmarks/bench_leaderboard.py [--results 100000] [--bots 20 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Sequence

import numpy as np

from arena.league.aggregate import PairingAggregate
from arena.league.result import StoredResult
from arena.league.table import LeagueTable


def aggregate(results: int, bots: int, players: int, seed: int) -> PairingAggregate:
    """``results`` random results among ``bots`` bots of spread strengths, summed by pairing."""
    rng = np.random.default_rng([seed, bots, players])
    strength = rng.normal(0.0, 1.0, bots)
    names = [f"bot{i:04d}" for i in range(bots)]
    total = PairingAggregate()
    for i in range(results):
        seats = rng.choice(bots, size=players, replace=False)
        performance = strength[seats] + rng.gumbel(size=players)
        placings = tuple(int(1 + np.sum(performance > p)) for p in performance)
        total.add(StoredResult(f"m{i}", tuple(names[s] for s in seats), (0,) * players, placings))
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--bots", type=int, nargs="+", default=[20, 1000])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    print(f"leaderboard from a pairing aggregate of {args.results} results")
    print(f"{'bots':>6} {'players':>7} {'pairs':>8} {'stored KiB':>11} {'fit s':>7} {'cpu s':>7} {'peak MiB':>9}")
    for bots in args.bots:
        for players in args.players:
            total = aggregate(args.results, bots, players, args.seed)
            fields = total.to_fields()
            size = sum(len(k) + len(v) for k, v in fields.items()) / 1024
            stored = PairingAggregate.from_fields(fields)
            started, cpu = time.perf_counter(), time.process_time()
            table = LeagueTable.from_aggregate(stored)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
            assert len(table.rows) == bots
            tracemalloc.start()
            LeagueTable.from_aggregate(stored)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(
                f"{bots:>6} {players:>7} {len(total.pairs):>8} {size:>11.0f} {elapsed:>7.2f} {cpu:>7.2f} {peak:>9.0f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
