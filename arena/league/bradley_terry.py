"""Order-independent ratings: a Bradley–Terry fit on the Elo scale, with 95% intervals.

Model: in a pairwise game (:mod:`arena.league.result`) bot ``a`` beats bot ``b`` with probability
``σ(θa - θb)``, ``σ`` the logistic function; ratings are ``anchor + 400/ln 10 · θ``, so 400
rating points are odds of 10 to 1, as in Elo. A draw counts as half a win and half a loss. A
k-player match's pairwise games each weigh ``1/(k-1)`` (as in the live Elo), so every bot's games
in one match weigh 1 together.

Fit: the maximum of the weighted log-likelihood plus a weak Gaussian prior ``θ ~ N(0, σ²)`` on
every bot, by Newton's method. The prior (default σ = 400 rating points; it weighs about as much
as three quarters of one game against an average bot) keeps the fit finite for a bot that won
or lost everything and for bots that never met, and since the likelihood only sees differences
it also fixes the level: at the optimum the ratings average exactly ``anchor`` (1500).

Intervals: the model's covariance (the inverse of the negative Hessian of the log-posterior,
projected onto mean-zero ratings, since only differences are identified) scaled by a dispersion
factor ``φ``. Pairwise games of one match are not independent (they share the match's luck,
and the matches of one duplicate deal share the cards), so ``φ`` compares the spread of the
observed score, summed per cluster of correlated games (a deal; a match when it has no deal
id), with the model's: ``φ = tr(H⁻¹J) / tr(H⁻¹L)``, ``J = Σ_clusters s sᵀ`` (with a ``C/(C-1)``
small-sample factor) and ``L`` the likelihood's Fisher information, then shrunk towards 1 as if
two more clusters had shown exactly the model's spread (so a few clusters that happen to cancel
cannot give a zero-width interval). ``φ ≈ 1`` for independent 2-player games, below 1 when
duplicate deals cancel luck, and a k-player match's weighted pairs give about
``(k+1)/(3(k-1))``. Intervals are ``rating ± 1.96·se``; they assume enough clusters (tens or
more) to estimate ``φ``. A bot whose record is perfect gets the prior's wide interval.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from arena.league.result import MatchResult, unique_results

ELO_PER_NATURAL = 400.0 / math.log(10.0)
"""Rating points per unit of log-odds."""
ANCHOR = 1500.0
PRIOR_SD = 400.0
"""Standard deviation of the Gaussian prior on each rating, in rating points."""
PSEUDO_CLUSTERS = 2.0
"""Weight of the model's own dispersion (1) when estimating it: as many clusters as this."""

FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True, eq=False)
class BradleyTerryFit:
    """Fitted ratings (Elo scale), their covariance and the dispersion factor used for it."""

    bots: tuple[str, ...]
    ratings: dict[str, float]
    covariance: FloatArray
    """Rating-point² covariance of the ratings, in the order of ``bots``."""
    dispersion: float
    clusters: int

    def stderr(self, bot: str) -> float:
        """Standard error of the bot's rating (relative to the average bot)."""
        i = self.bots.index(bot)
        return math.sqrt(max(float(self.covariance[i, i]), 0.0))

    def interval(self, bot: str, level: float = 0.95) -> tuple[float, float]:
        """The bot's rating interval at ``level`` (normal approximation)."""
        half = _z(level) * self.stderr(bot)
        return self.ratings[bot] - half, self.ratings[bot] + half

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Rating of ``a`` minus rating of ``b``, and its standard error."""
        i, j = self.bots.index(a), self.bots.index(b)
        c = self.covariance
        variance = float(c[i, i] + c[j, j] - 2.0 * c[i, j])
        return self.ratings[a] - self.ratings[b], math.sqrt(max(variance, 0.0))

    def difference_interval(self, a: str, b: str, level: float = 0.95) -> tuple[float, float]:
        """An interval at ``level`` for rating of ``a`` minus rating of ``b``."""
        diff, se = self.difference(a, b)
        return diff - _z(level) * se, diff + _z(level) * se


def fit_bradley_terry(
    results: Iterable[MatchResult],
    bots: Sequence[str] = (),
    prior_sd: float = PRIOR_SD,
    anchor: float = ANCHOR,
) -> BradleyTerryFit:
    """Fit ratings to ``results`` (each match id once; aborted matches skipped).

    ``bots`` adds bots that may have no rated result yet (they get ``anchor`` and a wide interval).
    """
    results = unique_results(results)
    names = sorted({*bots, *(b for r in results for b in r.bots)})
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    firsts: list[int] = []
    seconds: list[int] = []
    scores: list[float] = []
    weights: list[float] = []
    cluster_of: list[int] = []
    cluster_index: dict[str, int] = {}
    for result in results:
        games = result.pair_games()
        if not games:
            continue
        cluster = cluster_index.setdefault(result.cluster, len(cluster_index))
        for game in games:
            firsts.append(index[game.first])
            seconds.append(index[game.second])
            scores.append(game.score)
            weights.append(game.weight)
            cluster_of.append(cluster)
    a = np.array(firsts, dtype=np.intp)
    b = np.array(seconds, dtype=np.intp)
    s = np.array(scores, dtype=np.float64)
    w = np.array(weights, dtype=np.float64)
    precision = (ELO_PER_NATURAL / prior_sd) ** 2

    theta = _newton(n, a, b, s, w, precision)

    p = _sigmoid(theta[a] - theta[b])
    information = _laplacian(n, a, b, w * p * (1.0 - p))
    hessian = information + precision * np.eye(n)
    inverse = np.linalg.inv(hessian)
    clusters = len(cluster_index)
    residual = w * (s - p)
    per_cluster = np.zeros((clusters, n))
    np.add.at(per_cluster, (np.array(cluster_of, dtype=np.intp), a), residual)
    np.add.at(per_cluster, (np.array(cluster_of, dtype=np.intp), b), -residual)
    observed = per_cluster.T @ per_cluster
    if clusters > 1:
        observed *= clusters / (clusters - 1)
    model_trace = float(np.trace(inverse @ information))
    raw = float(np.trace(inverse @ observed)) / model_trace if model_trace > 1e-12 else 1.0
    dispersion = (clusters * raw + PSEUDO_CLUSTERS) / (clusters + PSEUDO_CLUSTERS)

    centre = np.eye(n) - np.full((n, n), 1.0 / n) if n else np.zeros((0, 0))
    covariance = dispersion * (centre @ inverse @ centre) * ELO_PER_NATURAL**2
    ratings = {name: anchor + ELO_PER_NATURAL * float(theta[i]) for name, i in index.items()}
    return BradleyTerryFit(tuple(names), ratings, covariance, dispersion, clusters)


def _newton(
    n: int, a: npt.NDArray[np.intp], b: npt.NDArray[np.intp], s: FloatArray, w: FloatArray, precision: float
) -> FloatArray:
    """The maximum of the log-posterior (it is strictly concave, so Newton with halving converges)."""
    theta = np.zeros(n)
    value = _log_posterior(theta, a, b, s, w, precision)
    for _ in range(100):
        p = _sigmoid(theta[a] - theta[b])
        residual = w * (s - p)
        gradient = np.zeros(n)
        np.add.at(gradient, a, residual)
        np.add.at(gradient, b, -residual)
        gradient -= precision * theta
        hessian = _laplacian(n, a, b, w * p * (1.0 - p)) + precision * np.eye(n)
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while True:
            candidate = theta + scale * step
            new_value = _log_posterior(candidate, a, b, s, w, precision)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, value = candidate, new_value
        if float(np.max(np.abs(scale * step), initial=0.0)) < 1e-10:
            break
    return theta


def _log_posterior(
    theta: FloatArray,
    a: npt.NDArray[np.intp],
    b: npt.NDArray[np.intp],
    s: FloatArray,
    w: FloatArray,
    precision: float,
) -> float:
    x = theta[a] - theta[b]
    # log σ(x) = -log(1 + e^-x), computed without overflow.
    loglik = w * (-s * np.logaddexp(0.0, -x) - (1.0 - s) * np.logaddexp(0.0, x))
    return float(np.sum(loglik) - 0.5 * precision * np.dot(theta, theta))


def _laplacian(n: int, a: npt.NDArray[np.intp], b: npt.NDArray[np.intp], c: FloatArray) -> FloatArray:
    """``Σ c·(eₐ - e_b)(eₐ - e_b)ᵀ``: the Fisher information of the pairwise games."""
    m = np.zeros((n, n))
    np.add.at(m, (a, a), c)
    np.add.at(m, (b, b), c)
    np.add.at(m, (a, b), -c)
    np.add.at(m, (b, a), -c)
    return m


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.exp(-np.logaddexp(0.0, -x))


def _z(level: float) -> float:
    return statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
