"""Scoring a FOOL! round, and when the game ends (contract "End of a round", "End of the game").

A seat with no cards left scores +10, or 0 if it is a Fool of the round's last trick; a seat with
cards left loses their values, each wild costing the ``wild_penalty`` (5 by default). The game
ends after a round in which some total is -80 or less, or some seat has scored +10 six times.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from arena.games.base import Seat
from arena.games.fool.cards import VALUE_OF, WILD, Card
from arena.games.fool.trick import Trick

EMPTY_HAND_POINTS: Final = 10
LOSING_TOTAL: Final = -80
"""The game ends once some total is this or less."""
TENS_TO_END: Final = 6
"""The game ends once some seat has scored +10 in this many rounds."""


@dataclasses.dataclass(frozen=True, slots=True)
class RoundSummary:
    """One scored round without its tricks: what observations keep of every earlier round."""

    round: int
    dealer: Seat
    left_in_hand: tuple[tuple[Card, ...], ...]
    """Each seat's remaining cards (sorted), shown to everyone at scoring."""
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    """Running totals after this round."""
    tens: tuple[int, ...]
    """Each seat's count of +10 rounds after this round."""


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round, all public once scored: its tricks, the hands left, the scores."""

    round: int
    dealer: Seat
    tricks: tuple[Trick, ...]
    left_in_hand: tuple[tuple[Card, ...], ...]
    """Each seat's remaining cards (sorted), shown to everyone at scoring."""
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    """Running totals after this round."""
    tens: tuple[int, ...]
    """Each seat's count of +10 rounds after this round."""

    def summary(self) -> RoundSummary:
        """This round without its tricks."""
        return RoundSummary(self.round, self.dealer, self.left_in_hand, self.scores, self.totals, self.tens)


def hand_cost(hand: Sequence[Card], wild_penalty: int) -> int:
    """What the cards left in a hand cost: their values, each wild ``wild_penalty``."""
    return sum(wild_penalty if c is WILD else VALUE_OF[c] for c in hand)


def round_scores(left: Sequence[Sequence[Card]], last_fools: Sequence[Seat], wild_penalty: int) -> tuple[int, ...]:
    """Each seat's score for a round ending with hands ``left`` and last-trick Fools ``last_fools``."""
    return tuple(
        -hand_cost(hand, wild_penalty) if hand else (0 if seat in last_fools else EMPTY_HAND_POINTS)
        for seat, hand in enumerate(left)
    )


def is_game_over(totals: Sequence[int], tens: Sequence[int]) -> bool:
    """Whether the game ends after a round leaving these totals and +10 counts."""
    return min(totals) <= LOSING_TOTAL or max(tens) >= TENS_TO_END
