"""A ladder's standings: the league table's ratings and intervals, with provisional marks and lineage.

The fit itself is the league table's (:func:`fit_table`, the one place that calls it): ratings
are maximum-likelihood Bradley–Terry on the Elo scale with 95% intervals, fitted to every stored
result of the ladder. A bot is *provisional* until it has played ``PROVISIONAL_GAMES`` rated
matches: its rating is shown but not settled, and the matchmaker gives it games first.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from arena.ladder.versions import BotVersion
from arena.league.result import MatchResult
from arena.league.table import LeagueTable

PROVISIONAL_GAMES = 20
"""Rated matches a bot plays before its rating loses its provisional mark."""


@dataclasses.dataclass(frozen=True, slots=True)
class Standing:
    """One bot's line of the standings."""

    rank: int
    bot: str
    rating: float
    rating_low: float
    rating_high: float
    games: int
    wins: int
    faults: int
    """Matches forfeited plus decisions that timed out."""
    provisional: bool
    retired: bool = False

    @property
    def lineage(self) -> BotVersion:
        """The bot's base name and version."""
        return BotVersion.of(self.bot)

    @property
    def stderr(self) -> float:
        """The rating's standard error (from its 95% interval)."""
        return (self.rating_high - self.rating_low) / (2 * 1.959964)


def fit_table(results: Sequence[MatchResult]) -> LeagueTable:
    """The fitted table of these results: the one call into the ratings of :mod:`arena.league`."""
    return LeagueTable.from_results(results)


def whole_deals(results: Iterable[MatchResult], players: int) -> list[MatchResult]:
    """The results of duplicate deals all of whose rotations are stored."""
    listed = list(results)
    per_deal = Counter(r.deal_id for r in listed)
    return [r for r in listed if per_deal[r.deal_id] >= players]


def standings(
    results: Sequence[MatchResult], retired: frozenset[str] = frozenset(), provisional_games: int = PROVISIONAL_GAMES
) -> list[Standing]:
    """The standings of these results, best rating first; bots with equal ratings share a rank."""
    table = fit_table(results)
    lines: list[Standing] = []
    previous: tuple[float, int] | None = None
    for position, row in enumerate(table.rows, start=1):
        rank = previous[1] if previous is not None and abs(previous[0] - row.rating) < 1e-9 else position
        previous = (row.rating, rank)
        lines.append(
            Standing(
                rank=rank,
                bot=row.bot,
                rating=row.rating,
                rating_low=row.rating_low,
                rating_high=row.rating_high,
                games=row.matches,
                wins=row.wins,
                faults=row.forfeits + row.timeouts,
                provisional=row.matches < provisional_games,
                retired=row.bot in retired,
            )
        )
    return lines


def by_bot(lines: Iterable[Standing]) -> Mapping[str, Standing]:
    """The standings keyed by bot."""
    return {line.bot: line for line in lines}
