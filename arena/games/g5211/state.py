"""The 5211 match state and the views of it that seats and spectators get."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from arena.games.base import Seat
from arena.games.g5211.cards import Card
from arena.games.g5211.scoring import RoundResult


class State(NamedTuple):
    """One point of one 5211 match: the whole truth, hidden parts included. Immutable.

    A seat never sees this; it gets an :class:`Observation` built by ``observe``. A named tuple
    rather than a frozen dataclass because ``apply`` builds one per turn, and this is 5x cheaper.
    """

    num_players: int
    seed: int
    long_game: bool
    deck_number: int
    """1 for the first deck; the longer game shuffles a new deck each time one runs out."""
    round: int
    """The round being played, 1-based, counted over the whole match."""
    turn: int
    """0, 1 or 2: the turn within the round (laying 2, 1 and 1 cards)."""
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's hand, sorted."""
    draw_pile: tuple[Card, ...]
    """Drawn from the front."""
    removed: tuple[Card, ...]
    """Removed face down at set-up, unseen by anyone."""
    laid: tuple[tuple[Card, ...], ...]
    """What each seat has laid this round, in laying order."""
    score_piles: tuple[tuple[Card, ...], ...]
    """Each seat's score pile for the current deck."""
    discard: tuple[Card, ...]
    """The discard pile of the current deck, last hand cards included."""
    banked_points: tuple[int, ...]
    """Points from earlier decks (the longer game)."""
    banked_cards: tuple[int, ...]
    """Score-pile cards from earlier decks (the longer game)."""
    history: tuple[RoundResult, ...]
    """Every scored round of the match, oldest first."""
    finished: bool
    totals: tuple[int, ...]
    """Each seat's running total of points, earlier decks included (kept, not summed per call)."""

    def points(self) -> tuple[int, ...]:
        """Each seat's running total of points, earlier decks included."""
        return self.totals

    def score_pile_cards(self) -> tuple[int, ...]:
        """Each seat's running count of score-pile cards, earlier decks included."""
        return tuple(banked + len(pile) for banked, pile in zip(self.banked_cards, self.score_piles, strict=True))


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    """What one seat (or, with ``seat`` None and an empty hand, a spectator) may know.

    Nothing from the rules' "nobody" rows is here: no other hand, no removed card, no draw-pile
    order, no choice of the current turn before the reveal, no last discarded hand card.
    """

    seat: Seat | None
    num_players: int
    long_game: bool
    deck_number: int
    round: int
    """1-based, over the whole match."""
    rounds_per_deck: int
    turn: int
    """1, 2 or 3 within the round; 0 once the match is over."""
    cards_to_lay: int
    """How many cards each seat lays now (0 once the match is over)."""
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    laid: tuple[tuple[Card, ...], ...]
    """What every seat has laid so far this round (revealed turns only)."""
    history: tuple[RoundResult, ...]
    """Every earlier round's laid cards and scoring result."""
    points: tuple[int, ...]
    """Each seat's score-pile points (running totals, earlier decks included)."""
    score_pile_cards: tuple[int, ...]
    """Each seat's score-pile card count (running totals)."""
    draw_pile_size: int
    removed_count: int
    finished: bool
