"""The sequential probability ratio test "is the candidate better than the baseline?", pure.

Hypotheses on the candidate's Elo advantage in head-to-head play (logistic Elo: an advantage of
``E`` means an expected score ``s = 1/(1 + 10^(-E/400))`` per game against the baseline):
``H0: E = elo0`` against ``H1: E = elo1`` (``elo1 > elo0``), with error rates ``alpha`` (accepting
H1 when H0 holds) and ``beta`` (rejecting H1 when it holds). Results arrive in *units*, each with
a score in ``[0, 1]``:

- 2 players, duplicate pairs (:data:`PENTANOMIAL`): one deal played twice with the seats swapped;
  the unit's score is the candidate's points over both games, halved (0, ¼, ½, ¾ or 1), so the
  deal's luck cancels as in fishtest's pentanomial model;
- k players (:data:`TRINOMIAL`): one match with both versions at the table (and fixed fillers);
  the unit's score is 1 if the candidate placed above the baseline, ½ if level, 0 below.

The log-likelihood ratio is the generalised SPRT of fishtest (M. Van den Bergh): the outcome
frequencies are fitted twice by maximum likelihood, once under each hypothesis's mean score, and
``LLR = N · Σ p̂ᵢ log(p₁ᵢ / p₀ᵢ)``. So no variance or draw rate is assumed: the data's own spread
(low for duplicate pairs) sets the pace. ``p̂`` includes ``PRIOR_UNITS`` pseudo-units (see
there), which keep the first few units from deciding on a spread they cannot yet show.
``Sprt.llrs`` computes the LLR of many tallies at once (a simulation's).

The test stops when the LLR leaves ``(log β, log(1/α))``: above, H1 is accepted ("better");
below, rejected. These are Wald's bounds for the true error rates: a likelihood ratio that reaches
``1/α`` is at least ``1/α`` times as likely under H1 as under H0, so ``P0(accept) ≤ α·P1(accept)
≤ α`` (and ``P1(reject) ≤ β``) whatever the overshoot; exactly so for a simple likelihood ratio,
and ``benchmarks/bench_sprt.py`` checks it for this generalised one (exactly at 4 players). The
usual ``log((1-β)/α)`` and ``log(β/(1-α))`` bound them only by ``α/(1-β)`` and ``β/(1-α)``: with
the small steps of a close test the error rates were almost exactly α and β. Wald's bounds cost
about 2% more matches.

:func:`estimate` gives the Elo difference with a 95% interval (normal on the mean score, mapped to
Elo) and the likelihood of superiority ``LOS = Φ((s̄ - ½)/se)``.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import statistics
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from arena.errors import SprtError

FloatArray = npt.NDArray[np.float64]

PENTANOMIAL: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Unit scores of a duplicate pair (2 players): the candidate's points over both games, halved."""
TRINOMIAL: tuple[float, ...] = (0.0, 0.5, 1.0)
"""Unit scores of one k-player match: the candidate below, level with, or above the baseline."""
REGULARISATION = 1e-3
"""Added to empty outcome counts, so that a one-sided start still has a finite LLR (as fishtest)."""
PRIOR_UNITS = 8.0
"""Pseudo-units added to the frequencies the LLR is fitted to, spread as independent undrawn
games at an even score would fall (pentanomial ¼, 0, ½, 0, ¼; trinomial ½, 0, ½). Without them
a start of a few identical units (say three pairs of one win each) has a variance near zero and an
LLR that leaps to a bound. Their weight fades as 8/N."""


class Decision(enum.Enum):
    """Where the test stands."""

    CONTINUE = "continue"
    ACCEPT = "accept"
    """H1: the candidate is better (by elo1)."""
    REJECT = "reject"
    """H0: it is not (by more than elo0)."""


def score_of_elo(elo: float) -> float:
    """The expected score per game of an advantage of ``elo`` (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of_score(score: float) -> float:
    """The Elo advantage of an expected score (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclasses.dataclass(frozen=True, slots=True)
class Sprt:
    """A test's hypotheses and error rates (see the module docstring)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or self.elo1 <= self.elo0:
            raise SprtError(f"elo1 must be above elo0: elo0 {self.elo0:g}, elo1 {self.elo1:g}")
        if max(abs(self.elo0), abs(self.elo1)) >= 1000:
            raise SprtError(f"elo0 and elo1 must be within ±1000: {self.elo0:g}, {self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5, not {value:g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H1 is rejected: ``log(β)``."""
        return math.log(self.beta)

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log(1/α)``."""
        return -math.log(self.alpha)

    def llr(self, tally: Tally) -> float:
        """The generalised log-likelihood ratio of H1 against H0 for these units."""
        return float(self.llrs(tally.scores, np.asarray(tally.counts, dtype=np.float64))[()])

    def llrs(self, scores: Sequence[float], counts: FloatArray) -> FloatArray:
        """:meth:`llr` of many tallies at once: ``counts`` has the outcome counts (in the order of
        ``scores``) along its last axis; the result has the other axes (a simulation's tests)."""
        counts = np.asarray(counts, dtype=np.float64)
        n = counts.sum(axis=-1)
        reference = np.asarray(_reference(scores))
        smoothed = counts + PRIOR_UNITS * reference
        smoothed = np.where(smoothed > 0.0, smoothed, REGULARISATION)
        p = smoothed / smoothed.sum(axis=-1, keepdims=True)
        p0 = _constrained(p, scores, score_of_elo(self.elo0))
        p1 = _constrained(p, scores, score_of_elo(self.elo1))
        llr: FloatArray = np.where(n > 0, n * np.sum(p * np.log(p1 / p0), axis=-1), 0.0)
        return llr

    def decide(self, tally: Tally) -> Decision:
        """Accept, reject, or go on."""
        llr = self.llr(tally)
        if llr >= self.upper:
            return Decision.ACCEPT
        if llr <= self.lower:
            return Decision.REJECT
        return Decision.CONTINUE


@dataclasses.dataclass(slots=True)
class Tally:
    """Counts of units by score (``scores`` is :data:`PENTANOMIAL` or :data:`TRINOMIAL`)."""

    scores: tuple[float, ...]
    counts: list[int] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [0] * len(self.scores)
        if len(self.counts) != len(self.scores):
            raise SprtError(f"{len(self.counts)} counts for {len(self.scores)} outcomes")

    @classmethod
    def pentanomial(cls) -> Tally:
        """An empty tally of duplicate pairs."""
        return cls(PENTANOMIAL)

    @classmethod
    def trinomial(cls) -> Tally:
        """An empty tally of k-player matches."""
        return cls(TRINOMIAL)

    @property
    def units(self) -> int:
        """Units counted."""
        return sum(self.counts)

    def add(self, score: float) -> None:
        """Count one unit of this score (one of ``scores``).

        Raises ``SprtError`` naming a score that is not one of ``scores``.
        """
        for i, s in enumerate(self.scores):
            if abs(s - score) < 1e-9:
                self.counts[i] += 1
                return
        raise SprtError(f"a unit score must be one of {self.scores}, not {score!r}")

    def mean(self) -> float:
        """The mean unit score (½ if empty)."""
        n = self.units
        return sum(c * s for c, s in zip(self.counts, self.scores, strict=True)) / n if n else 0.5

    def variance(self) -> float:
        """The variance of one unit's score."""
        n = self.units
        if n == 0:
            return 0.0
        mean = self.mean()
        return sum(c * (s - mean) ** 2 for c, s in zip(self.counts, self.scores, strict=True)) / n


@dataclasses.dataclass(frozen=True, slots=True)
class Estimate:
    """The candidate's Elo advantage over the baseline, per game, with a 95% interval, and LOS."""

    elo: float
    low: float
    high: float
    los: float
    """Likelihood of superiority: the probability that the candidate is the stronger."""


def estimate(tally: Tally, level: float = 0.95) -> Estimate:
    """The Elo difference and its interval from the mean unit score, and the LOS."""
    n = tally.units
    mean = tally.mean()
    se = math.sqrt(tally.variance() / n) if n else math.inf
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
    low, high = (-math.inf, math.inf) if not math.isfinite(se) else (mean - z * se, mean + z * se)
    if se == 0.0:
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    elif math.isfinite(se):
        los = statistics.NormalDist().cdf((mean - 0.5) / se)
    else:
        los = 0.5
    return Estimate(elo_of_score(mean), elo_of_score(low), elo_of_score(high), los)


def _reference(scores: Sequence[float]) -> list[float]:
    """Independent undrawn games at an even score: the mass at the extreme and middle outcomes."""
    pair = len(scores) == len(PENTANOMIAL)  # a pair of undrawn games: one win each half the time
    weights = [1.0 if s in (0.0, 1.0) else 2.0 if pair and s == 0.5 else 0.0 for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


def _constrained(p: FloatArray, scores: Sequence[float], mean: float) -> FloatArray:
    """The frequencies nearest ``p`` (maximum likelihood; outcomes along the last axis) whose mean
    score is ``mean``: ``pᵢ / (1 + λ(sᵢ - mean))`` with λ solving ``Σ pᵢ (sᵢ - mean) / (1 + λ(sᵢ - mean)) = 0``."""
    p = np.asarray(p, dtype=np.float64)
    d = np.asarray(scores, dtype=np.float64) - mean
    lo = max((-1.0 / x for x in d if x > 0), default=-1e9)  # keep every 1 + λ·d positive
    hi = min((-1.0 / x for x in d if x < 0), default=1e9)
    # Newton's method from λ = 0, kept inside a shrinking bracket (bisecting when it would leave it).
    shape = p.shape[:-1]
    a = np.full(shape, lo + 1e-12 * (hi - lo))
    b = np.full(shape, hi - 1e-12 * (hi - lo))
    lam = np.zeros(shape)
    for _ in range(100):
        denominator = 1.0 + lam[..., None] * d
        value = np.sum(p * d / denominator, axis=-1)  # decreasing in λ
        done = np.abs(value) < 1e-13
        if np.all(done):
            break
        a = np.where(value > 0.0, lam, a)
        b = np.where(value > 0.0, b, lam)
        slope = -np.sum(p * d * d / denominator**2, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(slope < 0.0, lam - value / slope, 0.5 * (a + b))
        lam = np.where(done, lam, np.where((a < step) & (step < b), step, 0.5 * (a + b)))
    q = p / (1.0 + lam[..., None] * d)
    result: FloatArray = q / q.sum(axis=-1, keepdims=True)
    return result
