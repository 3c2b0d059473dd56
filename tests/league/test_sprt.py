"""The SPRT statistics: bounds, the generalised LLR, decisions, the Elo estimate and the LOS."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.errors import SprtError
from arena.league.sprt import PENTANOMIAL, Decision, Sprt, Tally, _constrained, elo_of_score, estimate, score_of_elo
from benchmarks.bench_sprt import exact


def test_bounds_are_walds_for_the_true_error_rates() -> None:
    """log(1/α) and log(β) bound the error rates by α and β; log((1-β)/α) and log(β/(1-α)) only by
    α/(1-β) and β/(1-α), so a test stopped as they are crossed had error rates of almost exactly α
    and β, and half the simulations landed above."""
    test = Sprt(0.0, 10.0)
    assert test.upper == pytest.approx(math.log(1 / 0.05))
    assert test.lower == pytest.approx(math.log(0.05))
    strict = Sprt(0.0, 5.0, alpha=0.01, beta=0.1)
    assert (strict.upper, strict.lower) == pytest.approx((math.log(100.0), math.log(0.1)))


def test_the_exact_error_rates_at_four_players_are_within_alpha_and_beta() -> None:
    """Head-to-head units of a 4-player test are wins or losses: its error rates, computed exactly
    (dynamic programming over the wins), obey Wald's inequalities P0(accept) ≤ α·P1(accept) and
    P1(reject) ≤ β·P0(reject), with the pseudo-units and the generalised LLR."""
    test = Sprt(0.0, 50.0)
    alpha, null_matches = exact(test, 0.0)
    power, matches = exact(test, 50.0)
    assert alpha <= 0.05 * power
    assert 1.0 - power <= 0.05 * (1.0 - alpha)
    assert 250 <= null_matches <= 300 and 260 <= matches <= 320  # the design's 250 a test, and Wald's cost


def test_an_empty_tally_goes_on() -> None:
    test = Sprt(0.0, 20.0)
    assert test.llr(Tally.pentanomial()) == 0.0
    assert test.decide(Tally.trinomial()) is Decision.CONTINUE


def test_the_constrained_fit_has_the_hypothesis_mean() -> None:
    p = [0.1, 0.2, 0.4, 0.2, 0.1]
    for mean in (0.3, 0.5, 0.6, 0.9):
        q = _constrained(np.asarray(p, dtype=np.float64), PENTANOMIAL, mean)
        assert sum(q) == pytest.approx(1.0)
        assert sum(qi * s for qi, s in zip(q, PENTANOMIAL, strict=True)) == pytest.approx(mean, abs=1e-9)
    assert _constrained(np.asarray(p, dtype=np.float64), PENTANOMIAL, 0.5) == pytest.approx(p)  # already that mean


def test_the_llr_agrees_with_its_normal_approximation() -> None:
    tally = Tally(PENTANOMIAL, [40, 210, 420, 250, 80])
    test = Sprt(0.0, 20.0)
    s0, s1, mean, var = score_of_elo(0.0), score_of_elo(20.0), tally.mean(), tally.variance()
    approx = tally.units / 2 * ((mean - s0) ** 2 - (mean - s1) ** 2) / var
    assert test.llr(tally) == pytest.approx(approx, rel=0.03)


def test_the_llr_is_antisymmetric_and_grows_with_wins() -> None:
    test = Sprt(-15.0, 15.0)
    assert test.llr(Tally(PENTANOMIAL, [5, 20, 50, 20, 5])) == pytest.approx(0.0, abs=1e-9)
    llrs = [Sprt(0.0, 10.0).llr(Tally((0.0, 0.5, 1.0), [30 - w, 10, w])) for w in range(31)]
    assert llrs == sorted(llrs)


def test_decisions_at_the_bounds() -> None:
    test = Sprt(0.0, 50.0)
    better, worse = Tally.trinomial(), Tally.trinomial()
    for _ in range(60):
        better.add(1.0)
        worse.add(0.0)
    assert test.decide(better) is Decision.ACCEPT
    assert test.decide(worse) is Decision.REJECT
    assert test.llr(better) >= test.upper and test.llr(worse) <= test.lower


def test_a_simulated_equal_candidate_is_rejected_and_a_better_one_accepted() -> None:
    rng = random.Random(7)
    test = Sprt(0.0, 60.0)
    for elo, expected in ((0.0, Decision.REJECT), (120.0, Decision.ACCEPT)):
        p = score_of_elo(elo)
        tally = Tally.pentanomial()
        decision = Decision.CONTINUE
        for _ in range(5000):
            tally.add(((rng.random() < p) + (rng.random() < p)) / 2)
            decision = test.decide(tally)
            if decision is not Decision.CONTINUE:
                break
        assert decision is expected


def test_estimate_and_los() -> None:
    tally = Tally((0.0, 0.5, 1.0), [25, 0, 75])
    result = estimate(tally)
    assert result.elo == pytest.approx(elo_of_score(0.75))
    assert result.low < result.elo < result.high
    assert result.los > 0.999
    even = estimate(Tally((0.0, 0.5, 1.0), [10, 0, 10]))
    assert even.elo == pytest.approx(0.0, abs=1e-9) and even.los == pytest.approx(0.5)
    assert elo_of_score(score_of_elo(37.0)) == pytest.approx(37.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((10.0, 0.0), "elo1 must be above elo0: elo0 10, elo1 0"),
        ((0.0, 5.0, 0.7), "alpha must be"),
        ((0.0, 5.0, 0.05, 0.0), "beta must be"),
    ],
)
def test_bad_parameters_are_named(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(SprtError, match=message):
        Sprt(*args)


def test_a_unit_score_must_be_an_outcome() -> None:
    with pytest.raises(SprtError, match="one of"):
        Tally.pentanomial().add(0.3)


def test_a_few_identical_units_do_not_decide() -> None:
    """Twenty pairs of one win each show no spread: without the pseudo-units their variance is zero and
    the LLR leaps past the lower bound (-3.08 < -3.00); with them the test goes on."""
    test = Sprt(0.0, 50.0)
    for counts in ([0, 0, 20, 0, 0], [0, 0, 0, 20, 0], [0, 0, 0, 0, 2], [2, 0, 0, 0, 0]):
        assert test.decide(Tally(PENTANOMIAL, counts)) is Decision.CONTINUE, counts
