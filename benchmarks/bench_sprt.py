"""How many matches does ``arena sprt`` need, and do its error rates hold? (simulation, and exact at 4 players)

Each run is one SPRT of :mod:`arena.league.sprt` (elo0 = 0, α = β = 0.05) fed simulated units
until it decides (at the first unit whose LLR is past a bound), with the candidate's true advantage
at elo0 (how often it is wrongly accepted: α, goal at most 0.05) or at elo1 (how often it is
rightly accepted: the power, goal at least 0.95):

- 2 players: duplicate pairs (pentanomial). Each game of the pair is won with a logistic
  probability shifted by the deal's luck for the seat that holds the good cards (the same seat
  in both games, so it cancels in the pair); the luck is small, as in 5211. The candidate's
  log-odds are set so that its expected score per game is exactly the true advantage's (luck
  averages a logistic towards ½). Two matches a pair.
- 4 players: both versions at one table with two fillers; the placings are a Gumbel race
  (Plackett–Luce), whose head-to-head marginal is exactly the logistic Elo (trinomial, one match
  a unit).

The tests of a setting run side by side (numpy), every unit's LLR computed by
:meth:`arena.league.sprt.Sprt.llrs`, the code ``arena sprt`` decides with. Prints the average and
90th percentile of the matches played per test, and α and power each with its 95% (Wilson)
interval: "met" when the rate is within its goal, and "surely" when its whole interval is. At 4
players the head-to-head units are wins or losses, so the test is a walk on (units, wins) and its
acceptance probability and mean matches are also computed exactly (:func:`exact`, dynamic
programming), free of simulation error: the "(exact)" rows.

    .venv/bin/python benchmarks/bench_sprt.py [--runs 4000] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from arena.league.bradley_terry import ELO_PER_NATURAL
from arena.league.sprt import PENTANOMIAL, TRINOMIAL, Sprt, score_of_elo

DEAL_LUCK = 0.35
"""Standard deviation of a deal's advantage to one seat, in log-odds (5211's is small)."""
MAX_MATCHES = 40_000
CHUNK = 128
"""Units simulated per test between two evaluations (each unit's LLR is still computed)."""
ALPHA_GOAL, POWER_GOAL = 0.05, 0.95


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


def units(rng: np.random.Generator, elo: float, players: int, shape: tuple[int, int]) -> npt.NDArray[np.intp]:
    """Simulated units' outcomes, as indices into the tally's scores."""
    if players == 2:
        delta = log_odds(elo)
        luck = rng.normal(0.0, DEAL_LUCK, shape)
        first = rng.random(shape) < 1.0 / (1.0 + np.exp(-(delta + luck)))
        second = rng.random(shape) < 1.0 / (1.0 + np.exp(-(delta - luck)))
        return np.asarray(2 * (first.astype(np.intp) + second.astype(np.intp)), dtype=np.intp)  # 0, ½ or 1 a pair
    candidate = elo / ELO_PER_NATURAL + rng.gumbel(size=shape)
    baseline = rng.gumbel(size=shape)
    return np.asarray(2 * (candidate > baseline).astype(np.intp), dtype=np.intp)  # the fillers never matter


def simulate(rng: np.random.Generator, test: Sprt, elo: float, players: int, runs: int) -> tuple[np.ndarray, ...]:
    """``runs`` tests until each decides: (accepted, matches played) per test."""
    scores = PENTANOMIAL if players == 2 else TRINOMIAL
    per_unit = 2 if players == 2 else 1
    counts = np.zeros((runs, len(scores)))
    active = np.arange(runs)
    accepted = np.zeros(runs, dtype=bool)
    played = np.full(runs, MAX_MATCHES)
    done = 0
    while active.size and done * per_unit < MAX_MATCHES:
        outcome = units(rng, elo, players, (active.size, CHUNK))
        step = np.zeros((active.size, CHUNK, len(scores)))
        np.put_along_axis(step, outcome[..., None], 1.0, axis=-1)
        running = counts[active][:, None, :] + np.cumsum(step, axis=1)
        llr = test.llrs(scores, running)
        crossed = (llr >= test.upper) | (llr <= test.lower)
        decided = crossed.any(axis=1)
        first = np.argmax(crossed, axis=1)
        which = active[decided]
        accepted[which] = llr[decided, first[decided]] >= test.upper
        played[which] = (done + first[decided] + 1) * per_unit
        counts[active] = running[:, -1]
        active = active[~decided]
        done += CHUNK
    return accepted, played


def exact(test: Sprt, elo: float, max_units: int = MAX_MATCHES, tail: float = 1e-9) -> tuple[float, float]:
    """A 4-player test's probability of accepting, and its mean matches, exactly: the head-to-head
    units are wins or losses (a Gumbel race has no ties), so the test is a walk on (units, wins),
    followed by dynamic programming until less than ``tail`` of the probability is undecided. Per
    number of units, the wins at which it accepts or rejects are found by bisection on the LLR of
    :meth:`arena.league.sprt.Sprt.llrs` (which grows with the wins)."""
    win = math.log(score_of_elo(test.elo1) / score_of_elo(test.elo0))
    loss = math.log(score_of_elo(-test.elo1) / score_of_elo(-test.elo0))

    def first_wins(n: npt.NDArray[np.int64], bound: float, above: bool) -> npt.NDArray[np.int64]:
        """Per n, the fewest wins whose LLR is at least (``above``), or more than, ``bound``,
        bisecting around the LLR's linear approximation."""

        def holds(w: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
            counts = np.stack([n - w, np.zeros_like(n), w], axis=-1).clip(0, None).astype(np.float64)
            llr = test.llrs(TRINOMIAL, counts)
            return np.where(w < 0, False, np.where(w > n, True, llr >= bound if above else llr > bound))

        guess = np.clip(np.round((bound - n * loss) / (win - loss)), 0, n).astype(np.int64)
        low, high = np.maximum(guess - 32, -1), np.minimum(guess + 32, n + 1)
        if np.any(holds(low)) or not np.all(holds(high)):
            raise AssertionError("the LLR is further from linear than the bisection allows")
        while np.any(high - low > 1):
            middle = (low + high) // 2
            ok = holds(middle)
            high, low = np.where(ok, middle, high), np.where(ok, low, middle)
        return high

    p = score_of_elo(elo)
    alive = np.array([1.0])
    accepted = matches = 0.0
    for start in range(1, max_units + 1, 2048):
        n = np.arange(start, min(start + 2048, max_units + 1))
        accept_from, reject_to = first_wins(n, test.upper, True), first_wins(n, test.lower, False) - 1
        for i in range(n.size):
            matches += float(alive.sum())
            step = np.zeros(alive.size + 1)
            step[:-1] += alive * (1.0 - p)
            step[1:] += alive * p
            accepted += float(step[accept_from[i] :].sum())
            step[accept_from[i] :] = 0.0
            step[: max(reject_to[i] + 1, 0)] = 0.0
            alive = step
        if float(alive.sum()) < tail:
            break
    return accepted, matches


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a binomial rate."""
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def judge(null: bool, rate: float, low: float, high: float) -> tuple[bool, str]:
    """Whether an acceptance rate is within its goal (α at most 0.05 under H0, power at least 0.95
    under H1), and the verdict to print ("surely" when its whole interval is)."""
    if null:
        met, surely, label = rate <= ALPHA_GOAL, high <= ALPHA_GOAL, "alpha"
    else:
        met, surely, label = rate >= POWER_GOAL, low >= POWER_GOAL, "power"
    return met, f"{label}: {'surely met' if surely else 'met' if met else 'NOT met'}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4000, help="tests per setting and true advantage")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="500 runs per setting")
    args = parser.parse_args(argv)
    runs = 500 if args.quick else args.runs
    print(f"SPRT elo0 = 0, alpha = beta = 0.05: {runs} simulated tests per setting and true advantage")
    print(f"{'elo1':>5} {'players':>7} {'true':>5} {'mean':>7} {'p90':>7} {'accepted':>9}  {'95% interval':>15}")
    started = time.perf_counter()
    ok = True
    for elo1, players in itertools.product((50.0, 20.0), (2, 4)):
        test = Sprt(0.0, elo1)
        for true in (0.0, elo1):
            rng = np.random.default_rng([args.seed, int(elo1), players, int(true)])
            accepted, played = simulate(rng, test, true, players, runs)
            rate = float(np.mean(accepted))
            low, high = wilson(rate, runs)
            met, verdict = judge(true == 0.0, rate, low, high)
            ok &= met or args.quick
            print(
                f"{elo1:>5.0f} {players:>7} {true:>5.0f} {np.mean(played):>7.0f} {np.percentile(played, 90):>7.0f}"
                f" {rate:>9.3f}  [{low:.3f}, {high:.3f}]  {verdict}"
            )
            if players == 4:
                rate, mean = exact(test, true)
                met, verdict = judge(true == 0.0, rate, rate, rate)
                ok &= met
                print(f"{'':>19} {mean:>7.0f} {'':>7} {rate:>9.4f}  {'(exact)':<15}  {verdict}")
    print(f"(matches per test; {time.perf_counter() - started:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
