"""The league table: Bradley–Terry ratings with intervals, points and per-bot counts.

Rebuilt from a list of stored results at any time (each match id counted once, whatever the
order); ``ABORTED`` matches count only in :attr:`LeagueTable.aborted`. Columns per bot:

- ``rating``, ``rating_low``, ``rating_high``: the Bradley–Terry fit and its 95% interval
  (:mod:`arena.league.bradley_terry`); the table is sorted by rating.
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

from arena.league.bradley_terry import ANCHOR, PRIOR_SD, BradleyTerryFit, fit_bradley_terry
from arena.league.result import MatchResult, unique_results


@dataclasses.dataclass(frozen=True, slots=True)
class TableRow:
    """One bot's line of the league table."""

    rank: int
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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueTable:
    """The table, best rating first, with the fit it came from."""

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
        results: Iterable[MatchResult],
        bots: Sequence[str] = (),
        prior_sd: float = PRIOR_SD,
        anchor: float = ANCHOR,
    ) -> LeagueTable:
        """Build the table from stored results; ``bots`` adds bots that have not played yet."""
        unique = unique_results(results)
        rated = [r for r in unique if r.is_rated]
        fit = fit_bradley_terry(rated, bots, prior_sd=prior_sd, anchor=anchor)
        tally = {bot: _Tally() for bot in fit.bots}
        for result in rated:
            for seat, bot in enumerate(result.bots):
                t = tally[bot]
                t.matches += 1
                t.wins += result.placings[seat] == 1
                t.placings += result.placings[seat]
                t.score += result.scores[seat]
                t.timeouts += result.timeouts[seat]
                t.forfeits += seat in result.forfeited
            for game in result.pair_games():
                tally[game.first].points += game.score
                tally[game.second].points += 1.0 - game.score
        order = sorted(fit.bots, key=lambda b: (-fit.ratings[b], -tally[b].points, b))
        rows = []
        for rank, bot in enumerate(order, start=1):
            t = tally[bot]
            low, high = fit.interval(bot)
            rows.append(
                TableRow(
                    rank=rank,
                    bot=bot,
                    rating=fit.ratings[bot],
                    rating_low=low,
                    rating_high=high,
                    points=t.points,
                    matches=t.matches,
                    wins=t.wins,
                    average_placing=t.placings / t.matches if t.matches else 0.0,
                    average_score=t.score / t.matches if t.matches else 0.0,
                    timeouts=t.timeouts,
                    forfeits=t.forfeits,
                )
            )
        return cls(tuple(rows), len(rated), len(unique) - len(rated), fit)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (without the covariance matrix)."""
        return {
            "rows": [row.to_dict() for row in self.rows],
            "matches": self.matches,
            "aborted": self.aborted,
            "dispersion": self.fit.dispersion,
        }


@dataclasses.dataclass(slots=True)
class _Tally:
    matches: int = 0
    wins: int = 0
    placings: int = 0
    score: int = 0
    timeouts: int = 0
    forfeits: int = 0
    points: float = 0.0
