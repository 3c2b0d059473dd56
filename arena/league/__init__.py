"""Leagues, pure: expanding a league into matches, and rating the results.

- :mod:`~arena.league.schedule`: a :class:`LeagueSpec` becomes a deterministic list of
  :class:`MatchSpec` (stable ids, seat orders, seeds, duplicate-deal ids).
- :mod:`~arena.league.design`: the combinatorial designs behind it.
- :mod:`~arena.league.result`: :class:`StoredResult`, what is stored per match (JSON, no pickle).
- :mod:`~arena.league.aggregate`: :class:`PairingAggregate`, results summed by pairing, updated
  one result at a time (what a store keeps beside a league or ladder).
- :mod:`~arena.league.bradley_terry` and :mod:`~arena.league.table`: the order-independent
  league table (maximum-likelihood Bradley–Terry with 95% intervals, ranks, provisional marks,
  points and counts), fitted from an aggregate.
- :mod:`~arena.league.sprt`: the sequential test "is this version better?".
- :mod:`~arena.league.elo`: Elo replayed from results, for charts only (not a ranking).

No I/O here: this package must not import grpc, redis, asyncio or prometheus. The queue and
the store feed it results and persist what it returns.
"""

from arena.errors import LeagueSpecError
from arena.league.aggregate import BotRecord, PairingAggregate, PairRecord, result_fields
from arena.league.bradley_terry import BradleyTerryFit, fit_aggregate, fit_bradley_terry
from arena.league.result import PairGame, StoredResult, unique_results
from arena.league.schedule import Design, LeagueFormat, LeagueSpec, MatchSpec, league_tables, schedule_league
from arena.league.table import PROVISIONAL_MATCHES, LeagueTable, TableRow

__all__ = [
    "PROVISIONAL_MATCHES",
    "BotRecord",
    "BradleyTerryFit",
    "Design",
    "LeagueFormat",
    "LeagueSpec",
    "LeagueSpecError",
    "LeagueTable",
    "MatchSpec",
    "PairGame",
    "PairRecord",
    "PairingAggregate",
    "StoredResult",
    "TableRow",
    "fit_aggregate",
    "fit_bradley_terry",
    "league_tables",
    "result_fields",
    "schedule_league",
    "unique_results",
]
