"""Leagues, pure: expanding a league into matches, and rating the results.

- :mod:`~arena.league.schedule`: a :class:`LeagueSpec` becomes a deterministic list of
  :class:`MatchSpec` (stable ids, seat orders, seeds, duplicate-deal ids).
- :mod:`~arena.league.design`: the combinatorial designs behind it.
- :mod:`~arena.league.result`: :class:`MatchResult`, what is stored per match (JSON, no pickle).
- :mod:`~arena.league.elo`: the live ladder (pairwise Elo).
- :mod:`~arena.league.bradley_terry` and :mod:`~arena.league.table`: the order-independent
  league table (maximum-likelihood Bradley–Terry with 95% intervals, points and counts).
- :mod:`~arena.league.ratings`: both, for callers that hold stored results as JSON dicts.

No I/O here: this package must not import grpc, redis, asyncio or prometheus. The queue and
the store feed it results and persist what it returns.
"""

from arena.league.bradley_terry import BradleyTerryFit, fit_bradley_terry
from arena.league.elo import EloLadder, elo_changes, expected_score
from arena.league.ratings import league_table, update_elo_ratings
from arena.league.result import MatchResult, PairGame, unique_results
from arena.league.schedule import (
    Design,
    LeagueFormat,
    LeagueSpec,
    LeagueSpecError,
    MatchSpec,
    league_tables,
    schedule_league,
)
from arena.league.table import LeagueTable, TableRow

__all__ = [
    "BradleyTerryFit",
    "Design",
    "EloLadder",
    "LeagueFormat",
    "LeagueSpec",
    "LeagueSpecError",
    "LeagueTable",
    "MatchResult",
    "MatchSpec",
    "PairGame",
    "TableRow",
    "elo_changes",
    "expected_score",
    "fit_bradley_terry",
    "league_table",
    "league_tables",
    "schedule_league",
    "unique_results",
    "update_elo_ratings",
]
