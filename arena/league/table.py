"""The league table: Bradley–Terry ratings with intervals, points and per-bot counts.

Built from a :class:`~arena.league.aggregate.PairingAggregate` (the results summed by pairing:
:meth:`LeagueTable.from_aggregate`, at a cost that does not grow with the results) or from a list
of results (:meth:`LeagueTable.from_results`, each match id counted once, whatever the order);
``ABORTED`` matches count only in :attr:`LeagueTable.aborted`. Columns per bot:

- ``rating``, ``rating_low``, ``rating_high``: the Bradley–Terry fit and its 95% interval
  (:mod:`arena.league.bradley_terry`: relative to the average rated bot, which is 1500);
  the table is sorted by rating. ``rated`` is False for a bot without a pairwise game: it is
  listed after the rated bots, with rank 0 and no rating (zeros), and changes nothing in the fit.
- ``rank``: 1 for the best rating; bots with equal ratings (as equal points in a balanced
  schedule give) share a rank, and the next rank skips ("1, 2, 2, 4").
- ``provisional``: fewer than ``PROVISIONAL_MATCHES`` rated matches.
- ``points``: pairwise points, 1 for every opponent placed below the bot and ½ for every
  opponent sharing its placing, summed over matches. In a 2-player match that is 1 for a win and
  ½ for a draw; in a k-player match the sole winner gets ``k - 1`` and the last 0, and every
  match hands out ``k(k-1)/2`` points in all. It is what the ratings are fitted to.
- ``matches``; ``wins`` (matches placed first, shared wins included); ``average_placing``;
  ``average_score`` (the game's own points); ``timeouts`` (late decisions); ``forfeits``
  (matches in which the bot's seat forfeited).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from arena.league.aggregate import BotRecord, PairingAggregate
from arena.league.bradley_terry import ANCHOR, PRIOR_SD, BradleyTerryFit, fit_aggregate
from arena.league.result import StoredResult

PROVISIONAL_MATCHES = 20
"""A rating counts as provisional until its bot has played this many rated matches."""
TIE_TOLERANCE = 1e-6
"""Ratings closer than this (rating points) are equal: their bots share a rank."""


@dataclasses.dataclass(frozen=True, slots=True)
class TableRow:
    """One bot's line of the league table."""

    rank: int
    """1-based; shared by equal ratings; 0 for an unrated bot."""
    bot: str
    rating: float
    rating_low: float
    rating_high: float
    points: float
    matches: int
    wins: int
    average_placing: float
    average_score: float
    timeouts: int
    forfeits: int
    rated: bool = True
    """False for a bot without a pairwise game (its rating fields are 0)."""
    provisional: bool = False
    """Fewer than ``PROVISIONAL_MATCHES`` rated matches."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueTable:
    """The table, best rating first (unrated bots last), with the fit it came from."""

    rows: tuple[TableRow, ...]
    matches: int
    """Rated matches counted."""
    aborted: int
    fit: BradleyTerryFit

    def row(self, bot: str) -> TableRow:
        """The bot's row; raises ``KeyError`` if it is not in the table."""
        for row in self.rows:
            if row.bot == bot:
                return row
        raise KeyError(bot)

    @classmethod
    def from_results(
        cls,
        results: Iterable[StoredResult],
        bots: Sequence[str] = (),
        prior_sd: float = PRIOR_SD,
        anchor: float = ANCHOR,
    ) -> LeagueTable:
        """Build the table from results (each match id once); ``bots`` adds bots that have not played."""
        return cls.from_aggregate(PairingAggregate.from_results(results), bots, prior_sd, anchor)

    @classmethod
    def from_aggregate(
        cls,
        aggregate: PairingAggregate,
        bots: Sequence[str] = (),
        prior_sd: float = PRIOR_SD,
        anchor: float = ANCHOR,
    ) -> LeagueTable:
        """Build the table from results summed by pairing; ``bots`` adds bots that have not played."""
        fit = fit_aggregate(aggregate, prior_sd=prior_sd, anchor=anchor)
        points = aggregate.points()
        rows: list[TableRow] = []
        order = sorted(fit.bots, key=lambda b: (-fit.ratings[b], b))
        rank, previous = 0, float("inf")
        for position, bot in enumerate(order, start=1):
            rating = fit.ratings[bot]
            if previous - rating > TIE_TOLERANCE:
                rank = position
            previous = rating
            low, high = fit.interval(bot)
            rows.append(_row(bot, aggregate.bots.get(bot, BotRecord()), points.get(bot, 0.0), rank, rating, low, high))
        rated = set(fit.bots)
        for bot in sorted({*bots, *aggregate.bots} - rated):
            rows.append(_row(bot, aggregate.bots.get(bot, BotRecord()), points.get(bot, 0.0), 0, 0.0, 0.0, 0.0, False))
        return cls(tuple(rows), aggregate.rated, aggregate.aborted, fit)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (without the covariance matrix)."""
        return {"rows": [row.to_dict() for row in self.rows], "matches": self.matches, "aborted": self.aborted}


def _row(
    bot: str,
    t: BotRecord,
    points: float,
    rank: int,
    rating: float,
    low: float,
    high: float,
    rated: bool = True,
) -> TableRow:
    return TableRow(
        rank=rank,
        bot=bot,
        rating=rating,
        rating_low=low,
        rating_high=high,
        points=points,
        matches=t.matches,
        wins=t.wins,
        average_placing=t.placings / t.matches if t.matches else 0.0,
        average_score=t.score / t.matches if t.matches else 0.0,
        timeouts=t.timeouts,
        forfeits=t.forfeits,
        rated=rated,
        provisional=t.matches < PROVISIONAL_MATCHES,
    )
