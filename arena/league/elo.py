"""Elo replayed match by match, for display only (the web site's rating-over-time charts).

Not a ranking: its K = 32 updates never settle (about 53 points of error per bot however many
games) and it orders bots worse than the table with three times the matches, so no leaderboard
carries it; the table is :mod:`arena.league.table`. A chart replays it from the stored results.

A k-player match is decomposed into its pairwise games (:mod:`arena.league.result`): each pair of
seats is a game, the better placing wins, an equal placing is a draw. With ``R`` the ratings
before the match, the rating of the bot in seat ``i`` changes by::

    Δᵢ = K / (k - 1) · Σⱼ (Sᵢⱼ - Eᵢⱼ),   Eᵢⱼ = 1 / (1 + 10 ** ((Rⱼ - Rᵢ) / 400))

over the other seats ``j`` (``Sᵢⱼ`` is 1, ½ or 0). Scaling K by ``1/(k-1)`` makes a k-player
match move a rating as much as one 2-player game at most, whatever k. All changes use the
ratings from before the match, so seat order does not matter. Defaults: every bot starts at
1500 and K = 32 (the classic FIDE/USCF value for new players: a win over an equal opponent is
worth 16 points). Forfeited seats are placed last by the referee, so a forfeit is a loss to
every other seat; ``ABORTED`` matches change nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from arena.league.result import StoredResult, unique_results

INITIAL_RATING = 1500.0
K_FACTOR = 32.0


def expected_score(rating: float, opponent: float) -> float:
    """The Elo expected score of a bot rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def elo_changes(
    ratings: Mapping[str, float],
    result: StoredResult,
    k_factor: float = K_FACTOR,
    initial: float = INITIAL_RATING,
) -> dict[str, float]:
    """Each bot's rating change from ``result`` (bots missing from ``ratings`` start at ``initial``)."""
    changes = dict.fromkeys(result.bots, 0.0)
    for game in result.pair_games():
        ra = ratings.get(game.first, initial)
        rb = ratings.get(game.second, initial)
        delta = k_factor * game.weight * (game.score - expected_score(ra, rb))
        changes[game.first] += delta
        changes[game.second] -= delta
    return changes


class EloLadder:
    """Elo ratings that move with every result; :meth:`from_results` replays a history."""

    def __init__(
        self,
        k_factor: float = K_FACTOR,
        initial: float = INITIAL_RATING,
        ratings: Mapping[str, float] | None = None,
        matches: Mapping[str, int] | None = None,
    ) -> None:
        self.k_factor = k_factor
        self.initial = initial
        self.ratings: dict[str, float] = dict(ratings or {})
        self.matches: dict[str, int] = dict(matches or {})

    def rating(self, bot: str) -> float:
        """The bot's current rating (``initial`` if it has not played)."""
        return self.ratings.get(bot, self.initial)

    def update(self, result: StoredResult) -> dict[str, float]:
        """Apply one result; returns each of its bots' rating change."""
        changes = elo_changes(self.ratings, result, self.k_factor, self.initial)
        if result.is_rated:
            for bot, change in changes.items():
                self.ratings[bot] = self.rating(bot) + change
                self.matches[bot] = self.matches.get(bot, 0) + 1
        return changes

    @classmethod
    def from_results(
        cls, results: Iterable[StoredResult], k_factor: float = K_FACTOR, initial: float = INITIAL_RATING
    ) -> EloLadder:
        """Replay ``results`` in order (each match id once)."""
        ladder = cls(k_factor, initial)
        for result in unique_results(results):
            ladder.update(result)
        return ladder

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "k_factor": self.k_factor,
            "initial": self.initial,
            "ratings": dict(self.ratings),
            "matches": dict(self.matches),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EloLadder:
        """Read :meth:`to_dict`'s form back."""
        return cls(
            k_factor=float(data.get("k_factor", K_FACTOR)),
            initial=float(data.get("initial", INITIAL_RATING)),
            ratings={str(b): float(r) for b, r in data.get("ratings", {}).items()},
            matches={str(b): int(n) for b, n in data.get("matches", {}).items()},
        )
