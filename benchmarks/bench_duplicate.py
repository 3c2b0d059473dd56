"""How much do duplicate deals cut the variance of a rating difference? (5211, in-process)

Two built-in heuristic policies that differ only in effort play mini-leagues against each other:
``strong`` samples 24 hidden-card scenarios per decision, ``weak`` samples 4 (about +100 rating
points in 2-player, +40 to +50 in 4-player: a real but modest gap). With ``--players 4`` the table is completed
by two fillers (samples 8). Each repetition is one league of ``--games`` matches at that one
table, scheduled by :func:`arena.league.schedule.schedule_league` in one of two ways:

- independent: ``--games`` deals, one match each, seats rotating;
- duplicate: ``--games / k`` deals, each played k times with the seats rotated (same seed, so
  every bot plays every hand).

Each league is rated with the Bradley–Terry fit (:mod:`arena.league.bradley_terry`, deals as
clusters). Across repetitions we measure the variance of the fitted difference ``strong - weak``
under each scheme, and their ratio. A second, more precise estimate uses every unit of k
consecutive matches (a duplicate deal, or one full seat rotation of independent deals): the
variance of the strong bot's points against the weak one per unit, pooled over repetitions.

Duplicate deals can only remove the part of the variance that the deal explains. In 5211 that part
is small: replaying a 2-player deal with fresh policy randomness, the seat-0 results correlate
by only about 0.1, so expect a variance ratio of about 0.9, not the large cuts of bridge.

    .venv/bin/python benchmarks/bench_duplicate.py [--players 2] [--reps 24] [--games 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Sequence

from arena.bots.heuristic5211 import Heuristic5211
from arena.games.base import Outcome
from arena.games.g5211 import Game5211
from arena.league.bradley_terry import fit_bradley_terry
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec, MatchSpec, deal_seed, schedule_league

SAMPLES = {"strong": 24, "weak": 4, "filler1": 8, "filler2": 8}


def play(game: Game5211, match: MatchSpec, secret: bytes) -> Outcome:
    """One match between the two policies, seated as the schedule says, dealt as the worker deals it."""
    seed = deal_seed(secret, match.deal)
    policies = [Heuristic5211(seed=seed + seat, samples=SAMPLES[bot]) for seat, bot in enumerate(match.bots)]
    state = game.initial_state(len(policies), seed)
    while seats := game.to_move(state):
        actions = {
            seat: policies[seat].choose(game.observe(state, seat), game.legal_actions(state, seat)) for seat in seats
        }
        state = game.apply(state, actions)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome


def league(game: Game5211, players: int, duplicate: bool, games: int, seed: int) -> tuple[float, float, list[float]]:
    """Play one league; its fitted difference, the fit's standard error, and per-unit points."""
    spec = LeagueSpec(
        league_id=f"bench-{'dup' if duplicate else 'ind'}-{seed}",
        game="5211",
        players_per_match=players,
        bots=("strong", "weak", "filler1", "filler2")[:players],
        games_per_pairing=games // players if duplicate else games,
        seed=seed,
        duplicate=duplicate,
    )
    results = []
    points = []
    secret = seed.to_bytes(8, "big") * 4  # a fixed secret per league: the benchmark is reproducible
    for match in schedule_league(spec):
        outcome = play(game, match, secret)
        results.append(StoredResult.from_outcome(match.match_id, match.bots, outcome, deal_id=match.deal_id))
        mine, theirs = (outcome.placings[match.bots.index(b)] for b in ("strong", "weak"))
        points.append(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    diff, se = fit_bradley_terry(results).difference("strong", "weak")
    units = [sum(points[i : i + players]) for i in range(0, len(points) - players + 1, players)]
    return diff, se, units


def variance_ratio_se(a: Sequence[float], b: Sequence[float]) -> float:
    """Rough relative standard error of var(a)/var(b) (normal theory)."""
    return math.sqrt(2.0 / (len(a) - 1) + 2.0 / (len(b) - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--reps", type=int, default=24, help="leagues per scheme")
    parser.add_argument("--games", type=int, default=40, help="matches per league (a multiple of --players)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games % args.players:
        parser.error("--games must be a multiple of --players")
    game = Game5211()
    started = time.perf_counter()
    found: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for name, duplicate in (("independent", False), ("duplicate", True)):
        diffs, ses, units = [], [], []
        for rep in range(args.reps):
            # Distinct league seeds per scheme, so the two schemes never share a deal.
            diff, se, unit_points = league(
                game, args.players, duplicate, args.games, seed=args.seed * 100_003 + 2 * rep + duplicate
            )
            diffs.append(diff)
            ses.append(se)
            units.extend(unit_points)
        found[name] = (diffs, ses, units)
    elapsed = time.perf_counter() - started
    matches = 2 * args.reps * args.games
    print(
        f"{args.players}-player 5211, heuristic samples=24 vs samples=4: "
        f"{args.reps} leagues x {args.games} matches per scheme"
    )
    print(f"{matches} matches in {elapsed:.1f} s ({1000 * elapsed / matches:.1f} ms a match)\n")
    print(f"{'scheme':<12} {'mean diff':>10} {'var(diff)':>10} {'mean se^2':>10} {'var(unit)':>10}")
    for name, (diffs, ses, units) in found.items():
        print(
            f"{name:<12} {statistics.fmean(diffs):>10.1f} {statistics.variance(diffs):>10.0f} "
            f"{statistics.fmean(s * s for s in ses):>10.0f} {statistics.variance(units):>10.4f}"
        )
    ind, dup = found["independent"], found["duplicate"]
    league_ratio = statistics.variance(dup[0]) / statistics.variance(ind[0])
    unit_ratio = statistics.variance(dup[2]) / statistics.variance(ind[2])
    print(
        f"\nvariance ratio duplicate/independent, per league: {league_ratio:.2f} "
        f"(± ~{100 * variance_ratio_se(dup[0], ind[0]):.0f}%)"
    )
    print(
        f"variance ratio duplicate/independent, per {args.players}-match unit ({len(dup[2])} units each): "
        f"{unit_ratio:.2f} "
        f"(± ~{100 * variance_ratio_se(dup[2], ind[2]):.0f}%)"
    )
    print(f"=> a duplicate league of N matches is worth about {1 / unit_ratio:.1f} N independent matches")


if __name__ == "__main__":
    main()
