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

from arena.games.coloretto.cards import JOKER, PLUS_TWO, Card, Collection

POSITIVE_COLOURS: Final = 3


class Scoring(enum.Enum):
    """Which side of the summary card scores the colours."""

    BROWN = "brown"
    """The standard side: 1 3 6 10 15 21."""
    GREY = "grey"
    """The English edition's option: 1 4 8 7 6 5."""

    def value_of(self, count: int) -> int:
        """The table value ``t(n)`` of holding ``count`` cards of one colour (six or more score as six)."""
        return _TABLES[self][min(count, 6)]


_TABLES: Final = {
    Scoring.BROWN: (0, 1, 3, 6, 10, 15, 21),
    Scoring.GREY: (0, 1, 4, 8, 7, 6, 5),
}


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
    base = [collection.count(colour) for colour in colours]
    plus_twos = collection.count(PLUS_TWO)
    best: SeatScore | None = None
    for assignment in itertools.combinations_with_replacement(range(len(colours)), collection.count(JOKER)):
        counts = list(base)
        for index in assignment:
            counts[index] += 1
        held = sorted(
            (index for index, count in enumerate(counts) if count),
            key=lambda index: -scoring.value_of(counts[index]),
        )
        positive, negative = held[:POSITIVE_COLOURS], held[POSITIVE_COLOURS:]
        score = (
            sum(scoring.value_of(counts[i]) for i in positive)
            - sum(scoring.value_of(counts[i]) for i in negative)
            + 2 * plus_twos
        )
        if best is None or score > best.score:
            best = SeatScore(
                score=score,
                jokers=tuple(colours[i] for i in assignment),
                positive=tuple(colours[i] for i in positive),
                negative=tuple(colours[i] for i in sorted(negative)),
                counts=tuple((colours[i], count) for i, count in enumerate(counts) if count),
                plus_twos=plus_twos,
            )
    assert best is not None  # combinations_with_replacement always yields at least the empty assignment
    return best
