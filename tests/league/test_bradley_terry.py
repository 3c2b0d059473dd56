"""Bradley–Terry: recovers known strengths, and its 95% intervals cover about 95% of the time.

Synthetic bots have true ratings on the Elo scale. Two-player games are drawn from the model
itself; k-player matches place the bots by strength plus standard Gumbel noise, whose pairwise
marginals are exactly Bradley–Terry (the difference of two Gumbels is logistic), so the pairwise
fit targets the true differences there too. Every generator has a fixed seed: nothing can flake.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from arena.league.bradley_terry import ANCHOR, ELO_PER_NATURAL, BradleyTerryFit, fit_bradley_terry
from arena.league.result import StoredResult

TRUE = {"a": 1300.0, "b": 1420.0, "c": 1500.0, "d": 1560.0, "e": 1720.0}


def _two_player(rng: np.random.Generator, truth: dict[str, float], games: int) -> list[StoredResult]:
    results = []
    for x, y in itertools.combinations(sorted(truth), 2):
        p = 1.0 / (1.0 + 10.0 ** ((truth[y] - truth[x]) / 400.0))
        wins = rng.random(games) < p
        for g, won in enumerate(wins):
            bots = (x, y) if g % 2 == 0 else (y, x)
            first_won = bool(won) == (bots[0] == x)
            placings = (1, 2) if first_won else (2, 1)
            results.append(StoredResult(f"{x}{y}{g}", bots, (0, 0), placings))
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


def _coverage(fits: list[tuple[dict[str, float], BradleyTerryFit]]) -> float:
    covered = total = 0
    for truth, fit in fits:
        for x, y in itertools.combinations(sorted(truth), 2):
            low, high = fit.difference_interval(x, y)
            covered += low <= truth[x] - truth[y] <= high
            total += 1
    return covered / total


def test_recovers_the_true_order_and_anchors_the_mean() -> None:
    rng = np.random.default_rng(5211)
    fit = fit_bradley_terry(_two_player(rng, TRUE, 60))
    assert sorted(fit.ratings, key=fit.ratings.__getitem__) == sorted(TRUE, key=TRUE.__getitem__)
    assert np.mean(list(fit.ratings.values())) == pytest.approx(ANCHOR, abs=1e-6)
    for bot, rating in TRUE.items():
        low, high = fit.interval(bot)
        assert low < fit.ratings[bot] < high
        assert abs(rating - fit.ratings[bot]) < 3 * fit.stderr(bot)


def test_recovers_the_order_from_four_player_matches() -> None:
    rng = np.random.default_rng(7)
    fit = fit_bradley_terry(_k_player(rng, TRUE, 4, 60))
    assert sorted(fit.ratings, key=fit.ratings.__getitem__) == sorted(TRUE, key=TRUE.__getitem__)
    for bot, rating in TRUE.items():
        assert abs(rating - fit.ratings[bot]) < 3 * fit.stderr(bot)


def test_intervals_cover_about_95_percent_two_players() -> None:
    rng = np.random.default_rng(20250601)
    truth = {"a": 1350.0, "b": 1450.0, "c": 1550.0, "d": 1650.0}
    fits = [(truth, fit_bradley_terry(_two_player(rng, truth, 30))) for _ in range(150)]
    assert 0.88 <= _coverage(fits) <= 0.99


def test_intervals_cover_about_95_percent_four_players() -> None:
    rng = np.random.default_rng(424242)
    fits = [(TRUE, fit_bradley_terry(_k_player(rng, TRUE, 4, 12))) for _ in range(100)]
    assert 0.88 <= _coverage(fits) <= 0.99


def test_perfect_record_stays_finite_with_a_wide_interval() -> None:
    results = [StoredResult(f"m{i}", ("champ", f"x{i % 3}"), (1, 0), (1, 2)) for i in range(30)]
    results += [StoredResult(f"n{i}", ("x0", "x1"), (1, 0), (1 + i % 2, 2 - i % 2)) for i in range(10)]
    fit = fit_bradley_terry(results)
    assert math.isfinite(fit.ratings["champ"])
    assert fit.ratings["champ"] == max(fit.ratings.values())
    low, high = fit.interval("champ")
    assert high - low > 400


def test_deals_change_neither_ratings_nor_intervals() -> None:
    """Duplicate deals: the fit sums results by pairing, so grouping into deals changes nothing
    (the weights are fixed by the table size; the deal's cancelled luck only makes them safe)."""
    rng = np.random.default_rng(99)
    paired, unpaired = [], []
    for deal in range(300):
        luck = rng.normal(0.0, 3.0)
        for rotation, bots in enumerate((("a", "b"), ("b", "a"))):
            seat0_wins = luck + rng.logistic() > 0
            placings = (1, 2) if seat0_wins else (2, 1)
            match = f"m{deal}.{rotation}"
            paired.append(StoredResult(match, bots, (0, 0), placings, deal_id=f"d{deal}"))
            unpaired.append(StoredResult(match, bots, (0, 0), placings))
    with_deals, without = fit_bradley_terry(paired), fit_bradley_terry(unpaired)
    assert with_deals.ratings == without.ratings
    assert with_deals.difference("a", "b") == without.difference("a", "b")


def test_bots_without_results_and_no_results() -> None:
    fit = fit_bradley_terry([], bots=("a", "b"))
    assert fit.bots == () and fit.ratings == {}
    assert fit_bradley_terry([]).bots == ()


def test_a_few_cancelling_deals_do_not_give_a_zero_width_interval() -> None:
    # Every deal is won by seat 0 both times: the deals cancel exactly, but ten is not enough to know.
    results = [
        StoredResult(f"m{d}.{r}", bots, (1, 0), (1, 2), deal_id=f"d{d}")
        for d in range(10)
        for r, bots in enumerate((("a", "b"), ("b", "a")))
    ]
    fit = fit_bradley_terry(results)
    assert fit.ratings["a"] == pytest.approx(fit.ratings["b"])
    assert fit.difference("a", "b")[1] > 60
