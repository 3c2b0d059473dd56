"""Ratings for the I/O layers: the same calls as :mod:`~arena.league.elo` and
:mod:`~arena.league.table`, taking stored results as JSON dicts or :class:`MatchResult` values.

The formulas live in :mod:`arena.league.elo` (live pairwise Elo, K = 32 scaled by ``1/(k-1)``,
start 1500) and :mod:`arena.league.bradley_terry` (order-independent maximum-likelihood fit with
95% intervals); :mod:`arena.league.table` builds the league table from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.league.elo import INITIAL_RATING, K_FACTOR, elo_changes
from arena.league.result import MatchResult
from arena.league.table import LeagueTable

StoredResult = MatchResult | Mapping[str, Any]
"""A result as a value, or in its stored JSON form (:meth:`MatchResult.to_dict`; extra keys ignored)."""


def as_result(result: StoredResult) -> MatchResult:
    """The result as a :class:`MatchResult`."""
    return result if isinstance(result, MatchResult) else MatchResult.from_dict(result)


def update_elo_ratings(
    ratings: Mapping[str, float],
    result: StoredResult,
    k_factor: float = K_FACTOR,
    initial: float = INITIAL_RATING,
) -> dict[str, float]:
    """The live ratings after one more result: every bot of ``ratings`` plus the match's bots.

    Bots not yet rated start at ``initial``. An ``ABORTED`` result changes nothing.
    """
    match = as_result(result)
    updated = dict(ratings)
    if not match.is_rated:
        return updated
    for bot, change in elo_changes(ratings, match, k_factor, initial).items():
        updated[bot] = ratings.get(bot, initial) + change
    return updated


def league_table(results: Iterable[StoredResult], bots: Sequence[str] = ()) -> LeagueTable:
    """The order-independent league table of these results (each match id counted once)."""
    return LeagueTable.from_results((as_result(r) for r in results), bots)
