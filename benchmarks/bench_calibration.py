"""Are the table's 95% intervals honest? Coverage by simulation, per setting.

Synthetic bots of known strength (true ratings evenly spaced over the spread, on the Elo scale)
play round-robin leagues: at 2 players each game is drawn from the model (win probability
``1/(1 + 10^(-Δ/400))``), at k players the bots are placed by strength plus Gumbel noise (a
Plackett–Luce race, whose pairwise marginals are exactly that). Each league is fitted with
:class:`arena.league.table.LeagueTable` from its pairing aggregate, as the arena does, and we count
how often each bot's 95% interval holds its true rating relative to the average bot (what the
interval refers to: the README's ratings section), and how often the interval of each difference
of two ratings holds the true difference. Target: 93-97% for every setting, for the bots' intervals
and the differences'. "worst" is the least-covered bot, for information: with 300 leagues a single
bot's figure has a standard error of about 1.3 points.

Settings: 2 and 4 players; a narrow spread (200 rating points from the weakest to the strongest
bot) and a wide one (1000); few matches and many (per pairing at 2 players, per table of the
round robin at 4). Every league has its own seed: the figures are reproducible.

    .venv/bin/python benchmarks/bench_calibration.py [--leagues 300] [--bots 6] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence

import numpy as np

from arena.league.aggregate import PairingAggregate
from arena.league.bradley_terry import ANCHOR, ELO_PER_NATURAL
from arena.league.result import StoredResult
from arena.league.table import LeagueTable

SPREADS = {"narrow": 200.0, "wide": 1000.0}
MATCHES = {2: {"few": 4, "many": 40}, 4: {"few": 2, "many": 16}}
LOW, HIGH = 0.93, 0.97


def league(rng: np.random.Generator, truth: dict[str, float], players: int, per_table: int) -> PairingAggregate:
    """One round-robin league's results, summed by pairing."""
    aggregate = PairingAggregate()
    names = sorted(truth)
    count = 0
    for table in itertools.combinations(names, players):
        strength = np.array([truth[b] for b in table]) / ELO_PER_NATURAL
        for g in range(per_table):
            seats = table[g % players :] + table[: g % players]
            s = np.roll(strength, -(g % players))
            performance = s + rng.gumbel(size=players)
            placings = tuple(int(1 + np.sum(performance > p)) for p in performance)
            aggregate.add(StoredResult(f"m{count}", seats, (0,) * players, placings))
            count += 1
    return aggregate


def coverage(players: int, spread: float, per_table: int, leagues: int, bots: int, seed: int) -> tuple[float, ...]:
    """(bot coverage, worst bot's, difference coverage) over ``leagues`` leagues."""
    truth = {f"b{i}": ANCHOR - spread / 2 + spread * i / (bots - 1) for i in range(bots)}
    mean = sum(truth.values()) / bots
    hits = dict.fromkeys(truth, 0)
    differences = total = 0
    for rep in range(leagues):
        rng = np.random.default_rng([seed, players, int(spread), per_table, rep])
        table = LeagueTable.from_aggregate(league(rng, truth, players, per_table))
        for bot, rating in truth.items():
            row = table.row(bot)
            hits[bot] += row.rating_low <= rating - mean + ANCHOR <= row.rating_high
        for a, b in itertools.combinations(truth, 2):
            low, high = table.fit.difference_interval(a, b)
            differences += low <= truth[a] - truth[b] <= high
            total += 1
    return sum(hits.values()) / (leagues * bots), min(hits.values()) / leagues, differences / total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leagues", type=int, default=300, help="leagues per setting")
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="100 leagues per setting")
    args = parser.parse_args(argv)
    leagues = 100 if args.quick else args.leagues
    print(f"95% interval coverage, {leagues} round-robin leagues of {args.bots} bots per setting (target 93-97%)")
    print(f"{'players':>7} {'spread':>7} {'matches':>12} {'bots':>7} {'worst':>7} {'diffs':>7}  within")
    started = time.perf_counter()
    ok = True
    for players, spread_name, amount in itertools.product((2, 4), SPREADS, ("few", "many")):
        per_table = MATCHES[players][amount]
        bot, worst, diff = coverage(players, SPREADS[spread_name], per_table, leagues, args.bots, args.seed)
        unit = "pairing" if players == 2 else "table"
        inside = LOW <= bot <= HIGH and LOW <= diff <= HIGH
        ok &= inside or args.quick
        print(
            f"{players:>7} {spread_name:>7} {f'{per_table}/{unit}':>12} {bot:>7.1%} {worst:>7.1%} {diff:>7.1%}"
            f"  {'yes' if inside else 'NO'}"
        )
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
