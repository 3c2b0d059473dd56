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
``"#"`` → ``"rated aborted described"``. Bot names never contain a tab (see the bot registry's name rule).

Spread of k-player matches (k ≥ 3; what :mod:`arena.league.bradley_terry` measures the
within-match correlation of pairwise games from): a bot's *match points* ``h`` are its half-points
over all its pairwise games of one match. A k-player pair field carries three more columns,
``"games half_points first_h second_h games²"``: the sum over matches of the games between
``a`` and ``b`` times ``a``'s match points (and ``b``'s), and of the square of the games between
them; ``"t\\t{a}\\t{b}\\t{c}\\t{k}"`` → ``"ab·ac ab·bc ac·bc"`` for three bots ``a < b < c``
met in k-player matches sums the products of their games per match (1 each when every bot holds
one seat); ``"x\\t{k}"`` → ``"h²"`` sums the squares of every bot's match points. ``described``
counts the rated results whose increment had these statistics: an aggregate stored before they
existed (or updated by a node that does not write them) has ``described < rated`` and must be
rebuilt from its results (:func:`is_current`), never read as if it were whole.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping

from arena.league.result import StoredResult, unique_results

PAIR = "p"
BOT = "b"
TRIPLE = "t"
SQUARES = "x"
COUNTS = "#"
SEPARATOR = "\t"


@dataclasses.dataclass(slots=True)
class PairRecord:
    """Pairwise games between two bots at one table size."""

    games: int = 0
    half_points: int = 0
    """The first bot's (by name) points, doubled: a win is 2, a draw 1."""

    first_match_points: int = 0
    """Over k-player matches (k ≥ 3): the sum of the games between the two times the first bot's match
    points (its half-points in that match)."""
    second_match_points: int = 0
    """The same with the second bot's match points."""
    squared_games: int = 0
    """Over k-player matches (k ≥ 3): the sum of the square of the games between the two (1 a match
    when each holds one seat)."""

    @property
    def points(self) -> float:
        """The first bot's points (a draw is ½)."""
        return self.half_points / 2.0


@dataclasses.dataclass(slots=True)
class TripleRecord:
    """Three bots met at k-player tables (k ≥ 3): per match, the products of their pairwise games
    (``ab·ac`` centred on the first, ``ab·bc`` on the second, ``ac·bc`` on the third), summed."""

    first: int = 0
    second: int = 0
    third: int = 0


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
TripleKey = tuple[str, str, str, int]
"""(first, second, third bot, players at the table), in name order."""


@dataclasses.dataclass(slots=True)
class PairingAggregate:
    """Results summed by pairing (see the module docstring)."""

    pairs: dict[PairKey, PairRecord] = dataclasses.field(default_factory=dict)
    bots: dict[str, BotRecord] = dataclasses.field(default_factory=dict)
    triples: dict[TripleKey, TripleRecord] = dataclasses.field(default_factory=dict)
    squares: dict[int, int] = dataclasses.field(default_factory=dict)
    """Per table size k ≥ 3: the sum over matches and bots of the square of the bot's match points."""
    rated: int = 0
    """Rated matches added."""
    aborted: int = 0
    """``ABORTED`` matches added (they count nowhere else)."""
    described: int = 0
    """Rated matches added with their spread statistics (``rated`` in an aggregate that is current)."""

    @property
    def current(self) -> bool:
        """Whether every rated match was added with its spread statistics (see :func:`is_current`)."""
        return self.described == self.rated

    @classmethod
    def from_results(cls, results: Iterable[StoredResult]) -> PairingAggregate:
        """The aggregate of ``results``, each match id once."""
        aggregate = cls()
        for result in unique_results(results):
            aggregate.add(result)
        return aggregate

    def add(self, result: StoredResult) -> None:
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
                numbers += [0] * (5 - len(numbers))
                pair.games += numbers[0]
                pair.half_points += numbers[1]
                pair.first_match_points += numbers[2]
                pair.second_match_points += numbers[3]
                pair.squared_games += numbers[4]
            elif kind == TRIPLE:
                a, b, c, k = rest.split(SEPARATOR)
                triple = self.triples.setdefault((a, b, c, int(k)), TripleRecord())
                triple.first += numbers[0]
                triple.second += numbers[1]
                triple.third += numbers[2]
            elif kind == SQUARES:
                self.squares[int(rest)] = self.squares.get(int(rest), 0) + numbers[0]
            elif kind == BOT:
                bot = self.bots.setdefault(rest, BotRecord())
                bot.matches += numbers[0]
                bot.wins += numbers[1]
                bot.placings += numbers[2]
                bot.score += numbers[3]
                bot.timeouts += numbers[4]
                bot.forfeits += numbers[5]
            elif kind == COUNTS:
                numbers += [0] * (3 - len(numbers))
                self.rated += numbers[0]
                self.aborted += numbers[1]
                self.described += numbers[2]
            else:
                raise ValueError(f"not a pairing aggregate field: {name[:40]!r}")

    def to_fields(self) -> dict[str, str]:
        """The whole aggregate in the stored form."""
        fields = {COUNTS: f"{self.rated} {self.aborted} {self.described}"}
        for (a, b, k), pair in self.pairs.items():
            fields[_pair_field(a, b, k)] = f"{pair.games} {pair.half_points}" + (
                f" {pair.first_match_points} {pair.second_match_points} {pair.squared_games}" if k > 2 else ""
            )
        for (a, b, c, k), triple in self.triples.items():
            fields[SEPARATOR.join((TRIPLE, a, b, c, str(k)))] = f"{triple.first} {triple.second} {triple.third}"
        for k, total in self.squares.items():
            fields[SQUARES + SEPARATOR + str(k)] = str(total)
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


def is_current(fields: Mapping[str, str]) -> bool:
    """Whether a stored aggregate counted every rated result with its spread statistics (one field
    read): one that did not (stored before they existed) must be rebuilt from its results."""
    numbers = [int(x) for x in fields.get(COUNTS, "0 0 0").split()] + [0, 0, 0]
    return numbers[2] == numbers[0]


def result_fields(result: StoredResult) -> dict[str, str]:
    """One result's increment of the aggregate, in the stored form (see the module docstring)."""
    if not result.is_rated:
        return {COUNTS: "0 1 0"}
    k = len(result.bots)
    games: dict[tuple[str, str], list[int]] = {}
    match_points: dict[str, int] = {}
    for game in result.pair_games():
        first, second, half = game.first, game.second, int(2 * game.score)
        if second < first:
            first, second, half = second, first, 2 - half
        counts = games.setdefault((first, second), [0, 0])
        counts[0] += 1
        counts[1] += half
        match_points[first] = match_points.get(first, 0) + half
        match_points[second] = match_points.get(second, 0) + 2 - half
    pairs: dict[str, list[int]] = {}
    for (first, second), (n, half) in games.items():
        row = [n, half]
        if k > 2:
            row += [n * match_points[first], n * match_points[second], n * n]
        pairs[_pair_field(first, second, k)] = row
    if k > 2:
        met = sorted(match_points)
        for a, b, c in itertools.combinations(met, 3):
            ab, ac, bc = games[a, b][0], games[a, c][0], games[b, c][0]
            pairs[SEPARATOR.join((TRIPLE, a, b, c, str(k)))] = [ab * ac, ab * bc, ac * bc]
        if match_points:
            pairs[SQUARES + SEPARATOR + str(k)] = [sum(h * h for h in match_points.values())]
    bots: dict[str, list[int]] = {}
    for seat, bot in enumerate(result.bots):
        row = bots.setdefault(BOT + SEPARATOR + bot, [0] * 6)
        row[0] += 1
        row[1] += result.placings[seat] == 1
        row[2] += result.placings[seat]
        row[3] += result.scores[seat]
        row[4] += result.timeouts[seat]
        row[5] += seat in result.forfeited
    fields = {COUNTS: "1 0 1"}
    fields.update((name, " ".join(map(str, counts))) for name, counts in (pairs | bots).items())
    return fields


def _pair_field(a: str, b: str, k: int) -> str:
    return SEPARATOR.join((PAIR, a, b, str(k)))
