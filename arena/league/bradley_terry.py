"""Order-independent ratings: a Bradley–Terry fit on the Elo scale, with 95% intervals.

Model: in a pairwise game (:mod:`arena.league.result`) bot ``a`` beats bot ``b`` with probability
``σ(θa - θb)``, ``σ`` the logistic function; ratings are ``anchor + 400/ln 10 · θ``, so 400
rating points are odds of 10 to 1, as in Elo. A draw counts as half a win and half a loss. The fit
reads a :class:`~arena.league.aggregate.PairingAggregate` (games and points per pair of bots), so
its cost grows with the bots and pairings, not with the results.

Weights: the pairwise games of one k-player match are not independent (they share the match's
placings): a bot's points in one match (the opponents it placed above) vary ``φ`` times as much as
k−1 independent games would. Under any exchangeable ranking model ``φ = (k+1)/3`` for bots of
equal strength, less for bots far apart (about 1.25 instead of 1.67 in a 4-player round robin of
bots 200 points apart), so no constant is right. The fit measures it, per table size, from the
aggregate's spread statistics (:mod:`arena.league.aggregate`): ``φ`` is the observed variance of
every bot's points per match around the fit's expectation, plus the part the fit itself absorbs
(a leverage correction, so that few matches do not shrink it), over the variance independent
games would have, with one match of equal bots at ``(k+1)/3`` added to both sums, and never below
1 (an interval is never narrower than independent games would make it). Each pairwise game of a
k-player match then weighs ``1/φ`` in the likelihood; the fit is repeated with the new weight until
``φ`` settles (two or three fits). Nothing assumes a ranking model (Plackett–Luce or another):
the data's own spread sets the weight. At 2 players the weight is exactly 1: the dispersion of
win/loss games is 1 and is never estimated (a few lucky results cannot shrink an interval).
Duplicate deals (whose rotations cancel part of the luck) get intervals on the safe side: in 5211
the deal explains about a tenth of the variance. An aggregate stored without the spread
statistics (``PairingAggregate.current`` false) is fitted at ``φ = (k+1)/3``, the value for
equal bots.

Prior: every rated bot gets ``θ ~ N(0, σ²)`` (default σ = 400 rating points), at its nominal
weight whatever the table size. It keeps the fit finite for a bot that won or lost everything and
for bots that never met, and since the likelihood only sees differences it also fixes the level:
at the optimum the rated bots' ratings average exactly ``anchor`` (1500). Only bots with at least
one pairwise game are rated: a bot that has not played neither widens the others' intervals nor
moves the anchor.

Fit: the maximum of the weighted log-likelihood plus the log-prior, by Newton's method.

Intervals: ``interval(bot)`` is a 95% interval for the bot's rating *relative to the average of
the rated bots* (that average is the anchor, 1500, by definition). Its width is the posterior's
(the inverse Hessian, projected onto mean-zero ratings); its shape follows the bot's own profile:
the ends are where the log-posterior, moving this bot's θ alone, falls by ``z²/2``, rescaled so
that a quadratic posterior gives exactly ``rating ± 1.96·se``. So a perfect record, whose
likelihood is flat on its strong side, gets an interval that reaches far up (bounded only by the
prior) and stays close below: 1000–0 and 10000–0 give overlapping intervals.
``difference_interval(a, b)`` is the normal interval of a difference of two ratings.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from arena.league.aggregate import PairingAggregate
from arena.league.result import StoredResult

ELO_PER_NATURAL = 400.0 / math.log(10.0)
"""Rating points per unit of log-odds."""
ANCHOR = 1500.0
PRIOR_SD = 400.0
"""Standard deviation of the Gaussian prior on each rating, in rating points."""
LEVEL = 0.95
"""The level of :meth:`BradleyTerryFit.interval`."""

DISPERSION_ROUNDS = 4
"""Fits at most, each with the dispersion the previous one measured (it settles in two)."""
DISPERSION_TOLERANCE = 0.02
"""Relative difference between the dispersion a fit weighs by and the one it measures under which it
has settled (at most 1% on an interval's width)."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def table_weight(players: int) -> float:
    """The likelihood weight of one pairwise game of a ``players``-player match between bots of equal
    strength, ``3/(k+1)``: where a fit starts, and what it keeps without spread statistics."""
    return 3.0 / (players + 1.0)


@dataclasses.dataclass(frozen=True, eq=False)
class BradleyTerryFit:
    """Fitted ratings (Elo scale) of the rated bots, their covariance and 95% intervals."""

    bots: tuple[str, ...]
    """The rated bots (those with a pairwise game), by name."""
    ratings: dict[str, float]
    covariance: FloatArray
    """Rating-point² covariance of the ratings relative to their average, in the order of ``bots``."""
    low: dict[str, float]
    high: dict[str, float]
    dispersion: dict[int, float] = dataclasses.field(default_factory=dict)
    """Per table size k ≥ 3 played: the measured variance inflation of a bot's points in one match
    (the pairwise games of a k-player match weigh its inverse; see the module docstring)."""

    def stderr(self, bot: str) -> float:
        """Standard error of the bot's rating (relative to the average rated bot)."""
        i = self.bots.index(bot)
        return math.sqrt(max(float(self.covariance[i, i]), 0.0))

    def interval(self, bot: str) -> tuple[float, float]:
        """The bot's 95% rating interval (see the module docstring; not symmetric at the extremes)."""
        return self.low[bot], self.high[bot]

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Rating of ``a`` minus rating of ``b``, and its standard error."""
        i, j = self.bots.index(a), self.bots.index(b)
        c = self.covariance
        variance = float(c[i, i] + c[j, j] - 2.0 * c[i, j])
        return self.ratings[a] - self.ratings[b], math.sqrt(max(variance, 0.0))

    def difference_interval(self, a: str, b: str, level: float = LEVEL) -> tuple[float, float]:
        """An interval at ``level`` for rating of ``a`` minus rating of ``b``."""
        diff, se = self.difference(a, b)
        return diff - _z(level) * se, diff + _z(level) * se


def fit_bradley_terry(
    results: Iterable[StoredResult], bots: Sequence[str] = (), prior_sd: float = PRIOR_SD, anchor: float = ANCHOR
) -> BradleyTerryFit:
    """Fit ratings to ``results`` (each match id once; aborted matches skipped).

    ``bots`` is accepted for symmetry with the table; bots without a game are not rated.
    """
    del bots
    return fit_aggregate(PairingAggregate.from_results(results), prior_sd=prior_sd, anchor=anchor)


def fit_aggregate(aggregate: PairingAggregate, prior_sd: float = PRIOR_SD, anchor: float = ANCHOR) -> BradleyTerryFit:
    """Fit ratings to an aggregate of results (see the module docstring)."""
    names = sorted(aggregate.played())
    index = {b: i for i, b in enumerate(names)}
    n = len(names)
    keys = [key for key, pair in aggregate.pairs.items() if pair.games]
    a = np.array([index[k[0]] for k in keys], dtype=np.intp)
    b = np.array([index[k[1]] for k in keys], dtype=np.intp)
    sizes = np.array([k[2] for k in keys], dtype=np.intp)
    games = np.array([aggregate.pairs[k].games for k in keys], dtype=np.float64)
    wins = np.array([aggregate.pairs[k].points for k in keys], dtype=np.float64)
    precision = (ELO_PER_NATURAL / prior_sd) ** 2
    spread = _Spread.of(aggregate, index) if aggregate.current else None
    dispersion = {k: 1.0 / table_weight(k) for k in {key[2] for key in keys} if k > 2}
    equal = dict(dispersion)

    theta = np.zeros(n)
    for fits in range(1, DISPERSION_ROUNDS + 1):
        weight = np.ones(len(keys))
        for k, value in dispersion.items():
            weight[sizes == k] = 1.0 / value
        model = _Model(n, a, b, weight * games, weight * wins, precision)
        theta = model.maximum(theta)
        hessian = model.hessian(theta)
        inverse: FloatArray = np.asarray(np.linalg.inv(hessian), dtype=np.float64) if n else np.zeros((0, 0))
        if spread is None or fits == DISPERSION_ROUNDS:
            break
        measured = {k: spread.dispersion(k, theta, inverse, equal[k], used) for k, used in dispersion.items()}
        if all(abs(measured[k] - dispersion[k]) <= DISPERSION_TOLERANCE * dispersion[k] for k in dispersion):
            break  # the fit's weights are the ones it measures
        dispersion = measured
    # Relative to the average: C H⁻¹ C with C = I - J/n, which is H⁻¹ - J/(n·precision) because the
    # Laplacian part of H annihilates the constant vector (H·1 = precision·1).
    centred = inverse - 1.0 / (n * precision) if n else inverse
    low, high = model.profile_bounds(theta, np.diag(hessian) * np.diag(centred), _z(LEVEL))
    rating = anchor + ELO_PER_NATURAL * theta
    return BradleyTerryFit(
        bots=tuple(names),
        ratings={name: float(rating[i]) for name, i in index.items()},
        covariance=centred * ELO_PER_NATURAL**2,
        low={name: float(rating[i] + ELO_PER_NATURAL * low[i]) for name, i in index.items()},
        high={name: float(rating[i] + ELO_PER_NATURAL * high[i]) for name, i in index.items()},
        dispersion=dispersion,
    )


@dataclasses.dataclass(frozen=True, eq=False)
class _Spread:
    """An aggregate's spread statistics of k-player matches, as arrays (see :meth:`dispersion`)."""

    squares: dict[int, float]
    pair_k: IntArray
    pair_a: IntArray
    pair_b: IntArray
    games: FloatArray
    first_h: FloatArray
    second_h: FloatArray
    squared_games: FloatArray
    triple_k: IntArray
    triple_bots: IntArray
    """Shape (triples, 3): the three bots of each triple, in name order."""
    triple_counts: FloatArray
    """Shape (triples, 3): ``ab·ac``, ``ab·bc``, ``ac·bc`` summed."""

    @classmethod
    def of(cls, aggregate: PairingAggregate, index: dict[str, int]) -> _Spread:
        pairs = np.array(
            [
                (k, index[a], index[b], p.games, p.first_match_points, p.second_match_points, p.squared_games)
                for (a, b, k), p in aggregate.pairs.items()
                if k > 2 and p.games
            ],
            dtype=np.int64,
        ).reshape(-1, 7)
        triples = np.array(
            [
                (k, index[a], index[b], index[c], t.first, t.second, t.third)
                for (a, b, c, k), t in aggregate.triples.items()
            ],
            dtype=np.int64,
        ).reshape(-1, 7)
        return cls(
            squares={k: float(v) for k, v in aggregate.squares.items()},
            pair_k=pairs[:, 0].astype(np.intp),
            pair_a=pairs[:, 1].astype(np.intp),
            pair_b=pairs[:, 2].astype(np.intp),
            games=pairs[:, 3].astype(np.float64),
            first_h=pairs[:, 4].astype(np.float64),
            second_h=pairs[:, 5].astype(np.float64),
            squared_games=pairs[:, 6].astype(np.float64),
            triple_k=triples[:, 0].astype(np.intp),
            triple_bots=triples[:, 1:4].astype(np.intp),
            triple_counts=triples[:, 4:7].astype(np.float64),
        )

    def dispersion(self, k: int, theta: FloatArray, covariance: FloatArray, default: float, used: float) -> float:
        """The variance of a bot's points in a k-player match over what independent pairwise games
        would give, measured by a fit that weighed them ``1/used`` (:meth:`sums`): the residual is
        ``φ·(expected - leverage/used)`` on average (the leverage grows with the weight's inverse), with
        one match of equal bots at ``default`` ((k+1)/3) added to both sides, so that a few matches
        cannot move it far. At least 1."""
        residual, leverage, expected = self.sums(k, theta, covariance)
        prior = k * (k - 1) / 4.0  # one match of equal bots: k(k-1)/2 pairs, each p(1-p) = ¼ for both
        measured = (residual + prior * default) / (max(expected - leverage / used, 0.0) + prior)
        return max(measured, 1.0) if math.isfinite(measured) else default

    def sums(self, k: int, theta: FloatArray, covariance: FloatArray) -> tuple[float, float, float]:
        """Over every bot of every k-player match: ``Σ (x - μ)²`` (``x`` its points in the match,
        ``μ`` their expectation at ``theta``), the part of it the fit absorbs (the leverage,
        ``Σₘ tr(Hₘ B Hₘ)``, ``Hₘ`` the match's independent-games Hessian, ``B`` = ``covariance``, the
        posterior's), and ``Σ p(1-p)`` over its pairwise games (what independent games would give)."""
        on = self.pair_k == k
        a, b, n = self.pair_a[on], self.pair_b[on], self.games[on]
        q2 = self.squared_games[on]
        p = _sigmoid(theta[a] - theta[b])
        c = p * (1.0 - p)
        expected = float(np.sum(2.0 * n * c))
        # Σ (x - μ)² = Σ x² - 2 Σ x μ + Σ μ², x in points (match points are half-points).
        residual = self.squares.get(k, 0.0) / 4.0
        residual -= float(np.sum(p * self.first_h[on] + (1.0 - p) * self.second_h[on]))
        residual += float(np.sum(q2 * (p * p + (1.0 - p) ** 2)))
        var = covariance
        leverage = float(np.sum(2.0 * q2 * c * c * (var[a, a] + var[b, b] - 2.0 * var[a, b])))
        third = self.triple_k == k
        if np.any(third):
            x, y, z = (self.triple_bots[third, i] for i in range(3))
            t = self.triple_counts[third]
            pxy, pxz, pyz = _sigmoid(theta[x] - theta[y]), _sigmoid(theta[x] - theta[z]), _sigmoid(theta[y] - theta[z])
            residual += 2.0 * float(
                np.sum(t[:, 0] * pxy * pxz + t[:, 1] * (1.0 - pxy) * pyz + t[:, 2] * (1.0 - pxz) * (1.0 - pyz))
            )
            cxy, cxz, cyz = pxy * (1.0 - pxy), pxz * (1.0 - pxz), pyz * (1.0 - pyz)
            vxx, vyy, vzz = var[x, x], var[y, y], var[z, z]
            vxy, vxz, vyz = var[x, y], var[x, z], var[y, z]
            leverage += 2.0 * float(
                np.sum(
                    t[:, 0] * cxy * cxz * (vxx - vxy - vxz + vyz)
                    + t[:, 1] * cxy * cyz * (vyy - vxy - vyz + vxz)
                    + t[:, 2] * cxz * cyz * (vzz - vxz - vyz + vxy)
                )
            )
        return residual, leverage, expected


@dataclasses.dataclass(frozen=True, eq=False)
class _Model:
    """The log-posterior of ``n`` ratings given weighted games and wins per pair ``(a, b)``."""

    n: int
    a: IntArray
    b: IntArray
    games: FloatArray
    wins: FloatArray
    """Points of ``a`` (weighted like ``games``)."""
    precision: float

    def _pair_loglik(self, x: FloatArray) -> FloatArray:
        # log σ(x) = -log(1 + e^-x), computed without overflow.
        return -self.wins * np.logaddexp(0.0, -x) - (self.games - self.wins) * np.logaddexp(0.0, x)

    def value(self, theta: FloatArray) -> float:
        x = theta[self.a] - theta[self.b]
        return float(np.sum(self._pair_loglik(x)) - 0.5 * self.precision * np.dot(theta, theta))

    def hessian(self, theta: FloatArray) -> FloatArray:
        """The negative Hessian: ``Σ n p(1-p) (eₐ - e_b)(eₐ - e_b)ᵀ + precision·I``."""
        p = _sigmoid(theta[self.a] - theta[self.b])
        c = self.games * p * (1.0 - p)
        m = self.precision * np.eye(self.n)
        np.add.at(m, (self.a, self.a), c)
        np.add.at(m, (self.b, self.b), c)
        np.add.at(m, (self.a, self.b), -c)
        np.add.at(m, (self.b, self.a), -c)
        return m

    def apply(self, c: FloatArray, v: FloatArray) -> FloatArray:
        """``H·v`` for the Hessian with pair curvatures ``c``, without forming it (O(pairs))."""
        flow = c * (v[self.a] - v[self.b])
        return self.precision * v + np.bincount(self.a, flow, self.n) - np.bincount(self.b, flow, self.n)

    def solve(self, c: FloatArray, rhs: FloatArray) -> FloatArray:
        """``H⁻¹·rhs`` by conjugate gradients preconditioned by the diagonal (H is positive definite)."""
        diagonal = self.precision + np.bincount(self.a, c, self.n) + np.bincount(self.b, c, self.n)
        x = np.zeros(self.n)
        r = rhs.copy()
        z = r / diagonal
        p = z.copy()
        rz = float(r @ z)
        limit = 1e-24 * max(float(rhs @ rhs), 1e-300)
        for _ in range(10 * self.n + 100):
            if float(r @ r) <= limit:
                break
            hp = self.apply(c, p)
            step = rz / float(p @ hp)
            x += step * p
            r -= step * hp
            z = r / diagonal
            rz, previous = float(r @ z), rz
            p = z + (rz / previous) * p
        return x

    def maximum(self, start: FloatArray | None = None) -> FloatArray:
        """The maximum of the log-posterior (strictly concave, so Newton with halving converges);
        each Newton step is solved by conjugate gradients, so a step costs O(pairs), not O(bots³)."""
        theta = np.zeros(self.n) if start is None else start.copy()
        value = self.value(theta)
        for _ in range(200):
            p = _sigmoid(theta[self.a] - theta[self.b])
            residual = self.wins - self.games * p
            gradient = -self.precision * theta
            gradient += np.bincount(self.a, residual, self.n) - np.bincount(self.b, residual, self.n)
            step = self.solve(self.games * p * (1.0 - p), gradient)
            scale = 1.0
            while True:
                candidate = theta + scale * step
                new_value = self.value(candidate)
                if new_value >= value - 1e-12 or scale < 1e-6:
                    break
                scale /= 2.0
            theta, value = candidate, new_value
            if float(np.max(np.abs(scale * step), initial=0.0)) < 1e-9:
                break
        return theta

    def _own(self, theta: FloatArray, shift: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Each bot's log-posterior terms with its own θ moved by ``shift`` (the others' fixed), and
        their derivative in the shift."""
        base = theta[self.a] - theta[self.b]
        up, down = base + shift[self.a], base - shift[self.b]
        moved = theta + shift
        value = -0.5 * self.precision * moved**2
        value += np.bincount(self.a, self._pair_loglik(up), self.n)
        value += np.bincount(self.b, self._pair_loglik(down), self.n)
        slope = -self.precision * moved
        slope += np.bincount(self.a, self.wins - self.games * _sigmoid(up), self.n)
        slope -= np.bincount(self.b, self.wins - self.games * _sigmoid(down), self.n)
        return value, slope

    def profile_bounds(self, theta: FloatArray, scale2: FloatArray, z: float) -> tuple[FloatArray, FloatArray]:
        """Per bot, the shifts (down, up) of its own θ where its log-posterior falls by ``z²/2``,
        each multiplied by ``√scale2`` (quadratic case: ``±z·√(centred variance)``).

        The fall is convex in the shift, so Newton's method from the quadratic guess converges (a
        step on a flat side, such as a perfect record's, is capped at quadrupling the shift)."""
        if self.n == 0:
            return np.zeros(0), np.zeros(0)
        top, _ = self._own(theta, np.zeros(self.n))
        drop = 0.5 * z * z
        own_curvature = self.precision + self._pair_curvature(theta)
        bounds = []
        for sign in (-1.0, 1.0):
            t = sign * z / np.sqrt(own_curvature)
            for _ in range(30):
                value, slope = self._own(theta, t)
                fall = top - value - drop
                rate = -slope * sign  # d(fall)/d|t| > 0 away from the mode
                step = np.where(rate > 1e-300, -fall / np.maximum(rate, 1e-300), 3.0 * np.abs(t))
                size = np.clip(np.abs(t) + step, 0.5 * np.abs(t), 4.0 * np.abs(t))
                t_next = sign * size
                if float(np.max(np.abs(t_next - t))) < 1e-7:  # a millionth of a rating point
                    t = t_next
                    break
                t = t_next
            bounds.append(t * np.sqrt(np.maximum(scale2, 0.0)))
        return bounds[0], bounds[1]

    def _pair_curvature(self, theta: FloatArray) -> FloatArray:
        """Each bot's own curvature from its games: ``Σ n p(1-p)`` over its pairs."""
        p = _sigmoid(theta[self.a] - theta[self.b])
        c = self.games * p * (1.0 - p)
        return np.asarray(np.bincount(self.a, c, self.n) + np.bincount(self.b, c, self.n), dtype=np.float64)


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.exp(-np.logaddexp(0.0, -x))


def _z(level: float) -> float:
    return statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
