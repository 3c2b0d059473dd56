"""Round scoring for 5211: the Kododo rule, then the colour majority with its limit."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import Final

from arena.games.g5211.cards import COLOUR_OF, KODODO, VALUE_OF, Card, Colour


class ScoringKind(enum.Enum):
    """Which rule decided a round."""

    KODODO = "kododo"
    """Exactly ``P + 2`` Kododo cards were laid: only they score."""
    COLOUR = "colour"
    """A colour won the majority below the limit: its cards score."""
    NOTHING = "nothing"
    """Every colour tied or reached the limit: nobody scores."""


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round: what each seat laid (in laying order) and what each seat scored."""

    laid: tuple[tuple[Card, ...], ...]
    scored: tuple[tuple[Card, ...], ...]
    kind: ScoringKind
    colour: Colour | None
    """The winning colour, for ``ScoringKind.COLOUR``."""

    @property
    def points(self) -> tuple[int, ...]:
        """Points each seat scored this round."""
        return tuple(sum(VALUE_OF[c] for c in cards) for cards in self.scored)


def kododo_target(num_players: int) -> int:
    """The exact number of Kododo cards that makes them score: ``P + 2``."""
    return num_players + 2


def colour_limit(num_players: int) -> int:
    """A colour with this many cards or more in a round is dead: ``P + 3``."""
    return num_players + 3


def winning_colour(counts: Sequence[int], limit: int) -> int | None:
    """The colour that wins the majority: a unique top count below the limit, after removing tops.

    Colours at or over the limit are dead, and so are colours tied for the top; removing them and
    repeating is the same as taking the highest count below the limit that no other colour shares.
    """
    for count in sorted(counts, reverse=True):
        if 0 < count < limit and counts.count(count) == 1:
            return counts.index(count)
    return None


def score_round(num_players: int, laid: Sequence[Sequence[Card]]) -> RoundResult:
    """Score one round from the cards each seat laid."""
    laid_t = tuple(tuple(cards) for cards in laid)
    counts = [0, 0, 0, 0, 0]
    kododos = 0
    for cards in laid_t:
        for card in cards:
            counts[COLOUR_OF[card]] += 1
            if VALUE_OF[card] == KODODO:
                kododos += 1
    if kododos == kododo_target(num_players):
        scored = tuple(tuple(c for c in cards if VALUE_OF[c] == KODODO) for cards in laid_t)
        return RoundResult(laid_t, scored, ScoringKind.KODODO, None)
    winner = winning_colour(counts, colour_limit(num_players))
    if winner is None:
        return RoundResult(laid_t, ((),) * len(laid_t), ScoringKind.NOTHING, None)
    scored = tuple(tuple(c for c in cards if COLOUR_OF[c] == winner) for cards in laid_t)
    return RoundResult(laid_t, scored, ScoringKind.COLOUR, COLOURS[winner])


COLOURS: Final = tuple(Colour)
