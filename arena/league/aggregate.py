"""Results aggregated by pairing: all the ratings and the table need, updated one result at a time.

A :class:`PairingAggregate` holds, for every pair of bots and table size, how many pairwise games
they played and the first bot's half-points (2 for a win, 1 for a draw, 0 for a loss), and for
every bot its counts (matches, wins, placings, game score, timeouts, forfeits). Its size grows with
the number of bots and pairings, never with the number of results, so a table fitted from it
(:meth:`arena.league.table.LeagueTable.from_aggregate`) costs the same at 100 results or 100,000.

Usage, in memory::

    aggregate = PairingAggregate()
    for result in results:          # each match id once: see ``unique_results``
        aggregate.add(result)
    table = LeagueTable.from_aggregate(aggregate)

and in a store that keeps it beside the results (a Redis hash, say): :func:`result_fields` is one
result's increment as ``field -> "n n ..."`` (space-separated integers to add column by column),
:meth:`PairingAggregate.to_fields` / :meth:`PairingAggregate.from_fields` the whole aggregate in
that form. Adding the increments of a set of results in any order gives the same aggregate as
:meth:`PairingAggregate.add` (integers only, so nothing drifts), which is what lets a store update
it atomically with each result and rebuild it from the stored results at any time.

Fields: ``"p\\t{a}\\t{b}\\t{k}"`` → ``"games half_points"`` for bots ``a < b`` (by name) met in
k-player matches, ``"b\\t{bot}"`` → ``"matches wins placings score timeouts forfeits"``, and
``"#"`` → ``"rated aborted"``. Bot names never contain a tab (see the bot registry's name rule).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from arena.league.result import MatchResult, unique_results

PAIR = "p"
BOT = "b"
COUNTS = "#"
SEPARATOR = "\t"


@dataclasses.dataclass(slots=True)
class PairRecord:
    """Pairwise games between two bots at one table size."""

    games: int = 0
    half_points: int = 0
    """The first bot's (by name) points, doubled: a win is 2, a draw 1."""

    @property
    def points(self) -> float:
        """The first bot's points (a draw is ½)."""
        return self.half_points / 2.0


@dataclasses.dataclass(slots=True)
class BotRecord:
    """One bot's counts over its rated matches (a bot holding two seats counts twice)."""

    matches: int = 0
    wins: int = 0
    """Matches placed first (a shared first place counts)."""
    placings: int = 0
    """Sum of its placings."""
    score: int = 0
    """Sum of its game scores."""
    timeouts: int = 0
    forfeits: int = 0


PairKey = tuple[str, str, int]
"""(first bot, second bot, players at the table), first < second by name."""


@dataclasses.dataclass(slots=True)
class PairingAggregate:
    """Results summed by pairing (see the module docstring)."""

    pairs: dict[PairKey, PairRecord] = dataclasses.field(default_factory=dict)
    bots: dict[str, BotRecord] = dataclasses.field(default_factory=dict)
    rated: int = 0
    """Rated matches added."""
    aborted: int = 0
    """``ABORTED`` matches added (they count nowhere else)."""

    @classmethod
    def from_results(cls, results: Iterable[MatchResult]) -> PairingAggregate:
        """The aggregate of ``results``, each match id once."""
        aggregate = cls()
        for result in unique_results(results):
            aggregate.add(result)
        return aggregate

    def add(self, result: MatchResult) -> None:
        """Count one more result (the caller makes sure each match id is added once)."""
        self.add_fields(result_fields(result))

    def add_fields(self, fields: Mapping[str, str]) -> None:
        """Add increments (or a whole aggregate) in the stored form (see the module docstring).

        Raises ``ValueError`` naming a field that is not one of the aggregate's.
        """
        for name, value in fields.items():
            numbers = [int(x) for x in value.split()]
            kind, _, rest = name.partition(SEPARATOR)
            if kind == PAIR:
                a, b, k = rest.split(SEPARATOR)
                pair = self.pairs.setdefault((a, b, int(k)), PairRecord())
                pair.games += numbers[0]
                pair.half_points += numbers[1]
            elif kind == BOT:
                bot = self.bots.setdefault(rest, BotRecord())
                bot.matches += numbers[0]
                bot.wins += numbers[1]
                bot.placings += numbers[2]
                bot.score += numbers[3]
                bot.timeouts += numbers[4]
                bot.forfeits += numbers[5]
            elif kind == COUNTS:
                self.rated += numbers[0]
                self.aborted += numbers[1]
            else:
                raise ValueError(f"not a pairing aggregate field: {name[:40]!r}")

    def to_fields(self) -> dict[str, str]:
        """The whole aggregate in the stored form."""
        fields = {COUNTS: f"{self.rated} {self.aborted}"}
        for (a, b, k), pair in self.pairs.items():
            fields[_pair_field(a, b, k)] = f"{pair.games} {pair.half_points}"
        for name, bot in self.bots.items():
            fields[BOT + SEPARATOR + name] = (
                f"{bot.matches} {bot.wins} {bot.placings} {bot.score} {bot.timeouts} {bot.forfeits}"
            )
        return fields

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> PairingAggregate:
        """Read :meth:`to_fields`'s form back."""
        aggregate = cls()
        aggregate.add_fields(fields)
        return aggregate

    def points(self) -> dict[str, float]:
        """Each bot's pairwise points: 1 for every opponent placed below it, ½ for a shared placing."""
        points = dict.fromkeys(self.bots, 0.0)
        for (a, b, _), pair in self.pairs.items():
            points[a] = points.get(a, 0.0) + pair.points
            points[b] = points.get(b, 0.0) + pair.games - pair.points
        return points

    def played(self) -> set[str]:
        """The bots with at least one pairwise game (the ones that can be rated)."""
        return {bot for a, b, _ in self.pairs for bot in (a, b)}


def result_fields(result: MatchResult) -> dict[str, str]:
    """One result's increment of the aggregate, in the stored form (see the module docstring)."""
    if not result.is_rated:
        return {COUNTS: "0 1"}
    k = len(result.bots)
    pairs: dict[str, list[int]] = {}
    for game in result.pair_games():
        first, second, half = game.first, game.second, int(2 * game.score)
        if second < first:
            first, second, half = second, first, 2 - half
        counts = pairs.setdefault(_pair_field(first, second, k), [0, 0])
        counts[0] += 1
        counts[1] += half
    bots: dict[str, list[int]] = {}
    for seat, bot in enumerate(result.bots):
        row = bots.setdefault(BOT + SEPARATOR + bot, [0] * 6)
        row[0] += 1
        row[1] += result.placings[seat] == 1
        row[2] += result.placings[seat]
        row[3] += result.scores[seat]
        row[4] += result.timeouts[seat]
        row[5] += seat in result.forfeited
    fields = {COUNTS: "1 0"}
    fields.update((name, " ".join(map(str, counts))) for name, counts in (pairs | bots).items())
    return fields


def _pair_field(a: str, b: str, k: int) -> str:
    return SEPARATOR.join((PAIR, a, b, str(k)))
