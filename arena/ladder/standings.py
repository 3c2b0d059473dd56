"""A ladder's standings: the league table's ratings and intervals, with provisional marks and lineage.

The fit itself is the league table's (``LeagueTable.from_aggregate``): ratings on the Elo scale with
95% intervals, fitted to the ladder's pairing aggregate (its results summed by pairing, kept by the
store with every result), so its cost does not grow with the ladder's age. A bot is *provisional*
until it has played ``PROVISIONAL_MATCHES`` rated matches: its rating is shown but not settled, and
the matchmaker gives it games first.
"""

from __future__ import annotations

import dataclasses

from arena.ladder.versions import BotVersion
from arena.league.table import LeagueTable


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


def standings(table: LeagueTable, retired: frozenset[str] = frozenset()) -> list[Standing]:
    """The ladder's lines of a fitted table, best rating first (ranks and provisional marks as the
    table gives them: equal ratings share a rank; unrated bots come last with rank 0)."""
    return [
        Standing(
            rank=row.rank,
            bot=row.bot,
            rating=row.rating,
            rating_low=row.rating_low,
            rating_high=row.rating_high,
            games=row.matches,
            wins=row.wins,
            faults=row.forfeits + row.timeouts,
            provisional=row.provisional or not row.rated,
            retired=row.bot in retired,
        )
        for row in table.rows
    ]
