"""The faults the ratings audit of issue 15 found, each as a test of the fit or the table.

Synthetic bots have true ratings on the Elo scale; 2-player games are drawn from the model, k-player
matches place the bots by strength plus Gumbel noise (pairwise marginals exactly Bradley–Terry).
Every generator has a fixed seed: nothing can flake.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from arena.league.aggregate import PairingAggregate, is_current
from arena.league.bradley_terry import (
    ANCHOR,
    ELO_PER_NATURAL,
    BradleyTerryFit,
    _Spread,
    fit_aggregate,
    fit_bradley_terry,
)
from arena.league.result import StoredResult
from arena.league.table import LeagueTable

WIDE = {"a": 1000.0, "b": 1250.0, "c": 1500.0, "d": 1750.0, "e": 2000.0}


def _two_player(rng: np.random.Generator, truth: dict[str, float], games: int, tag: str = "") -> list[StoredResult]:
    results = []
    for x, y in itertools.combinations(sorted(truth), 2):
        p = 1.0 / (1.0 + 10.0 ** ((truth[y] - truth[x]) / 400.0))
        for g, won in enumerate(rng.random(games) < p):
            bots = (x, y) if g % 2 == 0 else (y, x)
            placings = (1, 2) if bool(won) == (bots[0] == x) else (2, 1)
            results.append(StoredResult(f"{tag}{x}{y}{g}", bots, (0, 0), placings))
    return results


def _k_player(rng: np.random.Generator, truth: dict[str, float], k: int, games: int) -> list[StoredResult]:
    results = []
    for table in itertools.combinations(sorted(truth), k):
        strength = np.array([truth[b] for b in table]) / ELO_PER_NATURAL
        for g in range(games):
            performance = strength + rng.gumbel(size=k)
            placings = tuple(int(1 + np.sum(performance > p)) for p in performance)
            results.append(StoredResult(f"{''.join(table)}{g}", table, (0,) * k, placings))
    return results


def _bot_coverage(truth: dict[str, float], fits: list[BradleyTerryFit]) -> tuple[float, float]:
    """Coverage of the bots' own intervals (truth relative to the mean), and the worst bot's."""
    mean = sum(truth.values()) / len(truth)
    per_bot = dict.fromkeys(truth, 0)
    for fit in fits:
        for bot, rating in truth.items():
            low, high = fit.interval(bot)
            per_bot[bot] += low <= rating - mean + ANCHOR <= high
    return sum(per_bot.values()) / (len(fits) * len(truth)), min(per_bot.values()) / len(fits)


def test_two_player_dispersion_is_one_so_wide_spreads_and_few_matches_cover() -> None:
    rng = np.random.default_rng(15)
    fits = [fit_bradley_terry(_two_player(rng, WIDE, 15)) for _ in range(150)]
    overall, worst = _bot_coverage(WIDE, fits)
    assert overall >= 0.92
    assert worst >= 0.88


def test_two_player_standard_error_is_the_models_own() -> None:
    """Win/loss games cannot be overdispersed: the interval is the posterior's, nothing estimated."""
    results = [StoredResult(f"m{i}", ("a", "b"), (0, 0), (1, 2) if i % 5 else (2, 1)) for i in range(50)]
    fit = fit_bradley_terry(results)
    d = (fit.ratings["a"] - fit.ratings["b"]) / ELO_PER_NATURAL
    p = 1.0 / (1.0 + math.exp(-d))
    precision = (ELO_PER_NATURAL / 400.0) ** 2
    expected = ELO_PER_NATURAL * math.sqrt(2.0 / (2.0 * 50 * p * (1.0 - p) + precision))
    assert fit.difference("a", "b")[1] == pytest.approx(expected, rel=1e-6)


@pytest.fixture(scope="module")
def wide_four_player_fits() -> list[BradleyTerryFit]:
    """150 leagues of the WIDE bots, every 4-player table 6 times (30 matches)."""
    rng = np.random.default_rng(44)
    return [fit_bradley_terry(_k_player(rng, WIDE, 4, 6)) for _ in range(150)]


def test_four_player_prior_weight_so_wide_spreads_and_few_matches_cover(
    wide_four_player_fits: list[BradleyTerryFit],
) -> None:
    overall, worst = _bot_coverage(WIDE, wide_four_player_fits)
    assert overall >= 0.92
    assert worst >= 0.88


def test_four_player_intervals_at_wide_spreads_are_as_wide_as_the_ratings_vary(
    wide_four_player_fits: list[BradleyTerryFit],
) -> None:
    """The weight 3/(k+1), exact for equal bots, made them about a quarter too wide here (in the
    calibration benchmark: 97.6% coverage where 95% is meant); the dispersion of bots 250 points
    apart is measured now, not assumed."""
    mean = sum(WIDE.values()) / len(WIDE)
    errors = [f.ratings[b] - ANCHOR - (WIDE[b] - mean) for f in wide_four_player_fits for b in WIDE]
    stderrs = [f.stderr(b) for f in wide_four_player_fits for b in WIDE]
    ratio = math.sqrt(np.mean(np.square(stderrs)) / np.mean(np.square(errors)))
    assert 0.93 <= ratio <= 1.07
    dispersion = np.mean([f.dispersion[4] for f in wide_four_player_fits])
    assert 1.0 <= dispersion <= 1.4  # equal bots: 5/3


def test_the_dispersion_of_equal_bots_is_measured_at_its_exact_value() -> None:
    """Under any exchangeable ranking a bot's points in one k-player match vary (k+1)/3 times as much
    as k-1 independent games; 2-player games are never given a dispersion."""
    rng = np.random.default_rng(5)
    equal = dict.fromkeys("abcdef", 1500.0)
    for k in (3, 4, 5):
        fit = fit_bradley_terry(_k_player(rng, equal, k, 20))
        assert fit.dispersion[k] == pytest.approx((k + 1) / 3, rel=0.05)
    assert fit_bradley_terry(_two_player(rng, equal, 20)).dispersion == {}


def test_the_spread_sums_are_those_of_the_matches() -> None:
    """Σ (x - μ)² and Σ p(1-p) over every bot of every match, from the aggregate, equal the direct
    sums over the results, a bot holding two seats and shared placings included."""
    results = [
        StoredResult("m1", ("a", "b", "c", "d"), (0,) * 4, (1, 2, 3, 4)),
        StoredResult("m2", ("a", "a", "c", "d"), (0,) * 4, (2, 1, 4, 2)),
        StoredResult("m3", ("d", "c", "b", "a"), (0,) * 4, (1, 1, 3, 4)),
        StoredResult("m4", ("b", "c", "d", "e"), (0,) * 4, (4, 3, 2, 1)),
    ]
    aggregate = PairingAggregate.from_results(results)
    names = sorted(aggregate.played())
    index = {b: i for i, b in enumerate(names)}
    theta = np.linspace(-1.0, 1.5, len(names))
    residual, _, expected = _Spread.of(aggregate, index).sums(4, theta, np.eye(len(names)))
    direct_residual = direct_expected = 0.0
    for result in results:
        x: dict[str, float] = {}
        mu: dict[str, float] = {}
        for game in result.pair_games():
            p = 1.0 / (1.0 + math.exp(-(theta[index[game.first]] - theta[index[game.second]])))
            for bot, score, expect in ((game.first, game.score, p), (game.second, 1 - game.score, 1 - p)):
                x[bot] = x.get(bot, 0.0) + score
                mu[bot] = mu.get(bot, 0.0) + expect
            direct_expected += 2 * p * (1 - p)
        direct_residual += sum((x[b] - mu[b]) ** 2 for b in x)
    assert residual == pytest.approx(direct_residual, rel=1e-12)
    assert expected == pytest.approx(direct_expected, rel=1e-12)


def test_an_aggregate_without_spread_statistics_keeps_the_equal_strength_weight() -> None:
    rng = np.random.default_rng(6)
    aggregate = PairingAggregate.from_results(_k_player(rng, WIDE, 4, 6))
    old = {name: value for name, value in aggregate.to_fields().items() if name[0] not in "tx"}
    old["#"] = " ".join(old["#"].split()[:2])
    assert not is_current(old) and is_current(aggregate.to_fields())
    assert not PairingAggregate.from_fields(old).current
    assert fit_aggregate(PairingAggregate.from_fields(old)).dispersion == {4: pytest.approx(5 / 3)}


def _perfect(n: int) -> BradleyTerryFit:
    results = [StoredResult(f"m{i}", ("champ", "x"), (1, 0), (1, 2)) for i in range(n)]
    return fit_bradley_terry(results)


def test_a_perfect_record_widens_the_interval_on_the_strong_side() -> None:
    small, large = _perfect(1000), _perfect(10000)
    (low1, high1), (low2, high2) = small.interval("champ"), large.interval("champ")
    assert low2 <= high1 and low1 <= high2  # they overlap
    for fit in (small, large):
        low, high = fit.interval("champ")
        rating = fit.ratings["champ"]
        assert high - rating > 1.5 * (rating - low)  # reaching far up, close below
        assert high - low > 250


def test_a_bot_without_games_is_unrated_and_changes_nothing() -> None:
    rng = np.random.default_rng(3)
    results = _two_player(rng, {"a": 1400.0, "b": 1500.0, "c": 1600.0}, 40)
    alone, with_newcomer = LeagueTable.from_results(results), LeagueTable.from_results(results, bots=("newcomer",))
    assert with_newcomer.rows[-1].bot == "newcomer"
    assert with_newcomer.rows[-1].rank == 0
    assert "newcomer" not in with_newcomer.fit.bots
    for row in alone.rows:
        other = with_newcomer.row(row.bot)
        assert (other.rating, other.rating_low, other.rating_high) == pytest.approx(
            (row.rating, row.rating_low, row.rating_high)
        )
    assert sum(r.rating for r in with_newcomer.rows[:-1]) / 3 == pytest.approx(ANCHOR)


def test_bots_tied_on_points_share_a_rank() -> None:
    cycle = [("a", "b"), ("b", "c"), ("c", "a")]
    results = [StoredResult(f"m{i}", pair, (1, 0), (1, 2)) for i, pair in enumerate(cycle)]
    results.append(StoredResult("m3", ("d", "a"), (0, 1), (2, 1)))
    results.append(StoredResult("m4", ("d", "b"), (0, 1), (2, 1)))
    results.append(StoredResult("m5", ("d", "c"), (0, 1), (2, 1)))
    table = LeagueTable.from_results(results)
    assert [(r.rank, r.bot) for r in table.rows] == [(1, "a"), (1, "b"), (1, "c"), (4, "d")]
