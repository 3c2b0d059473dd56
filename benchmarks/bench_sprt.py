"""How many matches does ``arena sprt`` need, and do its error rates hold? (simulation)

Each run is one SPRT of :mod:`arena.league.sprt` (elo0 = 0, α = β = 0.05) fed simulated units
until it decides, with the candidate's true advantage at elo0 (how often it is wrongly accepted:
α, at most 0.05) or at elo1 (how often it is rightly accepted: the power, at least 0.95):

- 2 players: duplicate pairs (pentanomial). Each game of the pair is won with a logistic
  probability shifted by the deal's luck for the seat that holds the good cards (the same seat
  in both games, so it cancels in the pair); the luck is small, as in 5211. The candidate's
  log-odds are set so that its expected score per game is exactly the true advantage's (luck
  averages a logistic towards ½). Two matches a pair.
- 4 players: both versions at one table with two fillers; the placings are a Gumbel race
  (Plackett–Luce), whose head-to-head marginal is exactly the logistic Elo (trinomial, one match
  a unit).

Prints the average and 90th percentile of the matches played per test, α and power, per setting,
each rate with its simulation standard error. An SPRT decided at the first unit past Wald's bounds
has error rates of almost exactly α and β when the steps are small (elo1 = 20), so a rate is
marked outside its goal only when it is significantly so (by more than two standard errors).

    .venv/bin/python benchmarks/bench_sprt.py [--runs 200] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from arena.league.bradley_terry import ELO_PER_NATURAL
from arena.league.sprt import Decision, Sprt, Tally, score_of_elo

DEAL_LUCK = 0.35
"""Standard deviation of a deal's advantage to one seat, in log-odds (5211's is small)."""
MAX_MATCHES = 40_000
BATCH = 8
"""Units simulated between two looks at the LLR (the decision is taken at the first unit that crosses)."""


def log_odds(elo: float, luck: float = DEAL_LUCK) -> float:
    """The log-odds ``d`` whose expected score under the deal's luck, ``E σ(d + L)``, is ``elo``'s."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    target = score_of_elo(elo)
    low, high = -10.0, 10.0
    for _ in range(80):
        middle = 0.5 * (low + high)
        if float(np.sum(weights / (1.0 + np.exp(-(middle + luck * nodes))))) < target:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def run(rng: np.random.Generator, test: Sprt, elo: float, players: int) -> tuple[Decision, int]:
    """One test until it decides; (decision, matches played)."""
    tally = Tally.pentanomial() if players == 2 else Tally.trinomial()
    delta = log_odds(elo) if players == 2 else elo / ELO_PER_NATURAL
    per_unit = 2 if players == 2 else 1
    while tally.units * per_unit < MAX_MATCHES:
        for _ in range(BATCH):
            if players == 2:
                luck = rng.normal(0.0, DEAL_LUCK)
                first = rng.random() < 1.0 / (1.0 + math.exp(-(delta + luck)))
                second = rng.random() < 1.0 / (1.0 + math.exp(-(delta - luck)))
                tally.add((int(first) + int(second)) / 2)
            else:
                performance = np.array([delta, 0.0, 0.0, 0.0]) + rng.gumbel(size=4)
                tally.add(1.0 if performance[0] > performance[1] else 0.0)
            decision = test.decide(tally)
            if decision is not Decision.CONTINUE:
                return decision, tally.units * per_unit
    return Decision.CONTINUE, tally.units * per_unit


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="tests per setting and hypothesis")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="50 runs per setting")
    args = parser.parse_args(argv)
    runs = 50 if args.quick else args.runs
    print(f"SPRT elo0 = 0, alpha = beta = 0.05: {runs} simulated tests per setting and true advantage")
    print(f"{'elo1':>5} {'players':>7} {'true':>5} {'mean':>7} {'p90':>7} {'accepted':>9}    (matches per test)")
    started = time.perf_counter()
    ok = True
    for elo1, players in itertools.product((50.0, 20.0), (2, 4)):
        test = Sprt(0.0, elo1)
        for true in (0.0, elo1):
            rng = np.random.default_rng([args.seed, int(elo1), players, int(true)])
            outcomes = [run(rng, test, true, players) for _ in range(runs)]
            matches = [m for _, m in outcomes]
            accepted = sum(d is Decision.ACCEPT for d, _ in outcomes) / runs
            label = "alpha" if true == 0.0 else "power"
            se = math.sqrt(max(accepted * (1.0 - accepted), 1e-4) / runs)
            goal = accepted - 2 * se <= 0.05 if true == 0.0 else accepted + 2 * se >= 0.95
            ok &= goal or args.quick
            print(
                f"{elo1:>5.0f} {players:>7} {true:>5.0f} {np.mean(matches):>7.0f} {np.percentile(matches, 90):>7.0f}"
                f" {accepted:>9.3f} ± {se:.3f}  ({label}{'' if goal else ', outside its goal'})"
            )
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
