"""The matchmaker: which of the bots connected now meet next, and in which seats.

Each pass fills the free match slots of the ladder's eligible bots with tables of ``k`` distinct
bots, until fewer than ``k`` bots have a free slot:

- **Who first.** The table is built around the bot most in need of games: fewest rated games
  while provisional, then the widest interval (uncertainty), ties broken at random. A bot that just
  joined has no games and the prior's wide interval, so it gets games at once.
- **Whom against.** Each opponent is drawn at random, with probability ``explore`` uniformly from
  the field and otherwise with weight ``exp(-d²/2s²)`` for a rating difference ``d`` to the anchor
  (``s`` = ``spread``): bots of similar rating meet most, and every pair meets now and then, so
  every bot meets the whole field and the ratings stay connected.
- **Which seats.** Of the table's seat orders, the one whose bots have sat least in those seats
  of this ladder (ties at random), so over time every bot sits in every seat about equally.

With duplicate deals a table is played once per rotation, so it takes ``k`` slots of each bot.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Mapping, Sequence

EXPLORE = 0.2
"""Chance that an opponent is drawn uniformly from the field rather than by rating."""
SPREAD = 150.0
"""Rating difference (Elo points) at which the rating weight falls to exp(-1/2)."""
MAX_TABLES_PER_PASS = 256
"""The most tables one pass schedules for one ladder."""


@dataclasses.dataclass(frozen=True, slots=True)
class Candidate:
    """A connected, eligible bot as the matchmaker sees it."""

    bot: str
    rating: float
    uncertainty: float
    """The standard error of its rating (the prior's for a bot without games)."""
    games: int
    free: int
    """Match slots it has free now (its connection's capacity less its matches queued or playing)."""


def pick_tables(
    candidates: Sequence[Candidate],
    players: int,
    seat_counts: Mapping[str, Sequence[int]],
    rng: random.Random,
    *,
    duplicate: bool = False,
    provisional_games: int = 0,
    explore: float = EXPLORE,
    spread: float = SPREAD,
    max_tables: int = MAX_TABLES_PER_PASS,
) -> list[tuple[str, ...]]:
    """The tables to schedule now, each in seat order (with duplicate deals: the first rotation's).

    ``seat_counts[bot][seat]`` counts the bot's matches in that seat so far (missing: none).
    """
    by_bot = {c.bot: c for c in candidates}
    free = {c.bot: c.free for c in candidates if c.free > 0}
    games = {c.bot: c.games for c in candidates}
    seats = {bot: list(seat_counts.get(bot, ())) + [0] * players for bot in by_bot}
    cost = players if duplicate else 1
    tables: list[tuple[str, ...]] = []
    while len(tables) < max_tables:
        pool = [bot for bot, n in free.items() if n > 0]
        if len(pool) < players:
            break
        anchor = min(pool, key=lambda b: _need(by_bot[b], games[b], provisional_games, rng))
        chosen = [anchor]
        rest = [b for b in pool if b != anchor]
        while len(chosen) < players:
            pick = _draw(rest, by_bot[anchor].rating, by_bot, rng, explore, spread)
            chosen.append(pick)
            rest.remove(pick)
        table = _seat(chosen, seats, rng)
        for seat, bot in enumerate(table):
            free[bot] -= cost
            games[bot] += cost
            for rotation in range(cost):
                seats[bot][(seat + rotation) % players] += 1
        tables.append(table)
    return tables


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The seat rotations of a duplicate deal: every bot sits in every seat once."""
    k = len(table)
    return [tuple(table[(seat - r) % k] for seat in range(k)) for r in range(k)]


def _need(candidate: Candidate, games: int, provisional_games: int, rng: random.Random) -> tuple[int, float, float]:
    """Sort key: the bot most in need of games first."""
    provisional = games < provisional_games
    return (0 if provisional else 1, games if provisional else -candidate.uncertainty, rng.random())


def _draw(
    pool: Sequence[str],
    rating: float,
    by_bot: Mapping[str, Candidate],
    rng: random.Random,
    explore: float,
    spread: float,
) -> str:
    if rng.random() < explore:
        return rng.choice(list(pool))
    weights = [math.exp(-(((by_bot[b].rating - rating) / spread) ** 2) / 2) + 1e-12 for b in pool]
    return rng.choices(list(pool), weights=weights)[0]


def _seat(bots: Sequence[str], seats: Mapping[str, Sequence[int]], rng: random.Random) -> tuple[str, ...]:
    """The seat order whose bots have sat least in their seats (ties at random)."""
    orders = list(itertools.permutations(bots))
    rng.shuffle(orders)
    return min(orders, key=lambda order: sum(seats[bot][seat] for seat, bot in enumerate(order)))
