"""End-game scoring of one Coloretto collection, the joker and colour choices made for the seat.

Each joker joins one colour in play, three colours score ``+t(n)`` and every other colour held
``-t(n)``, each "+2" card scores 2. The engine chooses for every seat (contract **Decision**): it tries
every assignment of the jokers and, for each, counts the three colours with the largest table value
as positive, keeping the best score.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
from collections.abc import Sequence
from typing import Final

from arena.games.coloretto.cards import CARDS_PER_COLOUR, JOKER, JOKER_COUNT, PLUS_TWO, Card, Collection

POSITIVE_COLOURS: Final = 3


class Scoring(enum.Enum):
    """Which side of the summary card scores the colours."""

    BROWN = "brown"
    """The standard side: 1 3 6 10 15 21."""
    GREY = "grey"
    """The English edition's option: 1 4 8 7 6 5."""


_TABLES: Final = {
    Scoring.BROWN: (0, 1, 3, 6, 10, 15, 21),
    Scoring.GREY: (0, 1, 4, 8, 7, 6, 5),
}
_MOST_OF_A_COLOUR: Final = CARDS_PER_COLOUR + JOKER_COUNT
_BY_COUNT: Final = {side: table + (table[6],) * (_MOST_OF_A_COLOUR - 6) for side, table in _TABLES.items()}
"""``t(n)`` for every count a collection can reach, indexed by the count (six or more score as six)."""


@dataclasses.dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's final score and the choices that give it."""

    score: int
    jokers: tuple[Card, ...]
    """The colour each joker joined, sorted."""
    positive: tuple[Card, ...]
    """The colours (at most three) scored ``+t(n)``, best first."""
    negative: tuple[Card, ...]
    """The other colours held, scored ``-t(n)``."""
    counts: tuple[tuple[Card, int], ...]
    """Each colour held after the jokers joined, with its count, in colour order."""
    plus_twos: int
    """How many "+2" cards scored 2 each."""


def score_collection(collection: Collection, colours: Sequence[Card], scoring: Scoring) -> SeatScore:
    """The best score of ``collection`` when its jokers may join any of ``colours`` (those in play)."""
    table = _BY_COUNT[scoring]
    held = collection.counts
    base = [held[colour] for colour in colours]
    plus_twos = held[PLUS_TWO]
    # Find the best assignment from the table values alone (the first best, in the order below), then
    # spell out its choices once. A colour not held has value 0, so it counts nowhere: the score is
    # twice the three largest values minus all of them.
    best_score: int | None = None
    best: tuple[int, ...] = ()
    for assignment in itertools.combinations_with_replacement(range(len(colours)), held[JOKER]):
        counts = base.copy()
        for index in assignment:
            counts[index] += 1
        values = sorted([table[count] for count in counts])
        score = 2 * sum(values[-POSITIVE_COLOURS:]) - sum(values)
        if best_score is None or score > best_score:
            best_score, best = score, assignment
    assert best_score is not None  # combinations_with_replacement always yields at least the empty assignment
    counts = base.copy()
    for index in best:
        counts[index] += 1
    ranked = sorted((index for index, count in enumerate(counts) if count), key=lambda index: -table[counts[index]])
    positive, negative = ranked[:POSITIVE_COLOURS], ranked[POSITIVE_COLOURS:]
    return SeatScore(
        score=best_score + 2 * plus_twos,
        jokers=tuple(colours[i] for i in best),
        positive=tuple(colours[i] for i in positive),
        negative=tuple(colours[i] for i in sorted(negative)),
        counts=tuple((colours[i], count) for i, count in enumerate(counts) if count),
        plus_twos=plus_twos,
    )
