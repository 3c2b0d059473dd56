"""Ratings for the I/O layers: the league table from stored results as JSON dicts or values.

The formulas live in :mod:`arena.league.bradley_terry` (order-independent maximum-likelihood fit
with 95% intervals); :mod:`arena.league.aggregate` sums results by pairing, incrementally;
:mod:`arena.league.table` builds the league table from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.league.aggregate import PairingAggregate
from arena.league.result import MatchResult
from arena.league.table import LeagueTable

StoredResult = MatchResult | Mapping[str, Any]
"""A result as a value, or in its stored JSON form (:meth:`MatchResult.to_dict`; extra keys ignored)."""


def as_result(result: StoredResult) -> MatchResult:
    """The result as a :class:`MatchResult`."""
    return result if isinstance(result, MatchResult) else MatchResult.from_dict(result)


def aggregate_results(results: Iterable[StoredResult]) -> PairingAggregate:
    """The pairing aggregate of these results (each match id counted once)."""
    return PairingAggregate.from_results(as_result(r) for r in results)


def league_table(results: Iterable[StoredResult], bots: Sequence[str] = ()) -> LeagueTable:
    """The order-independent league table of these results (each match id counted once)."""
    return LeagueTable.from_aggregate(aggregate_results(results), bots)
