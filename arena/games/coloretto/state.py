"""The Coloretto match state, the records of finished rounds and games, and what a seat may see.

Coloretto has no private information: every seat sees the public view. Only the draw-pile order
(the next card included), the piles of the games not yet started and the cards left in the pile at
the end are hidden, from everyone.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from arena.games.base import Seat
from arena.games.coloretto.cards import Card, Collection
from arena.games.coloretto.scoring import Scoring, SeatScore


@dataclasses.dataclass(frozen=True, slots=True)
class Take:
    """One seat taking one row: the row's cards in the order they were placed."""

    seat: Seat
    row: int
    cards: tuple[Card, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round, as everyone saw it end."""

    game: int
    """1-based, over the match."""
    round: int
    """1-based, within the game."""
    starter: Seat
    takes: tuple[Take, ...]
    """In the order the takes happened."""
    removed: tuple[Card, ...]
    """The cards of the row left over, out of the game (2 players only)."""
    last_round: bool
    """Whether ``LR`` had been turned up: the game ended with this round."""
    pile_left: int
    collections: tuple[Collection, ...]
    """Every seat's collection once the round was over, starting cards included."""


@dataclasses.dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of the match: each seat's final score and the engine's choices for it."""

    game: int
    """1-based, over the match."""
    first: Seat
    """The seat that started the game."""
    scores: tuple[SeatScore, ...]

    @property
    def points(self) -> tuple[int, ...]:
        """Each seat's score in this game."""
        return tuple(score.score for score in self.scores)


class State(NamedTuple):
    """One point of one Coloretto match: the whole truth, the pile order included. Immutable.

    A seat never sees this; it gets an :class:`Observation` built by ``observe``. A named tuple
    rather than a frozen dataclass because ``apply`` builds one per decision, and that is cheaper.
    """

    num_players: int
    scoring: Scoring
    games: int
    """Games in the match: 1, or 4 with the option ``games: 4``."""
    first: Seat
    """The seat that started game 1; game ``k`` (1-based) is started by ``(first + k - 1) mod P``."""
    game: int
    """The game being played, 1-based."""
    later_piles: tuple[tuple[Card, ...], ...]
    """The draw piles of the games not yet started (hidden from everyone)."""
    pile: tuple[Card, ...]
    """The draw pile from the top, ``LR`` included until it is drawn (its order is hidden from everyone)."""
    round: int
    """The round being played, 1-based within the game."""
    starter: Seat
    """The seat that began this round."""
    seat: Seat
    """The seat to move (meaningless once the match is over)."""
    drawn: Card | None
    """The card turned up and not yet placed: the seat to move must ``place`` it."""
    rows: tuple[tuple[Card, ...], ...]
    """Each row's cards in the order they were placed (empty once taken)."""
    taken_by: tuple[Seat | None, ...]
    """Who took each row this round; ``None`` while the row is open."""
    takes: tuple[Take, ...]
    """This round's takes so far, in order."""
    collections: tuple[Collection, ...]
    last_round: bool
    """``LR`` has been turned up: this round is the game's last."""
    removed: tuple[Card, ...]
    """Cards of left-over rows out of this game (2 players), face up."""
    history: tuple[RoundRecord, ...]
    """Every finished round of the match, oldest first."""
    results: tuple[GameResult, ...]
    """Every finished game of the match."""
    totals: tuple[int, ...]
    """Each seat's points summed over the finished games (kept, not summed per call)."""
    finished: bool


@dataclasses.dataclass(slots=True)
class Observation:
    """What any seat (and, with ``seat`` None, a spectator) may know: the public view of the match.

    Nothing from the contract's "nobody" rows is here: no draw-pile order, no next card, no card
    left in the pile at the end, nothing of later games' piles.

    Read-only by convention: a plain (not frozen) dataclass because ``observe`` builds one per
    decision and a frozen one costs several times as much to build. Its fields are immutable values
    and a fresh one is built for every call, so changing one changes nothing else.
    """

    seat: Seat | None
    num_players: int
    scoring: Scoring
    games: int
    game: int
    """1-based, over the match."""
    round: int
    """1-based, within the game."""
    starter: Seat
    """The seat that began this round."""
    to_move: Seat | None
    """``None`` once the match is over."""
    drawn: Card | None
    """The card turned up and not yet placed (the seat to move must ``place`` it)."""
    colours: tuple[Card, ...]
    """The colours in play, which jokers may join."""
    capacities: tuple[int, ...]
    """How many cards each row holds at most."""
    rows: tuple[tuple[Card, ...], ...]
    """Each row's cards in the order they were placed."""
    taken_by: tuple[Seat | None, ...]
    """Who took each row this round; ``None`` while it is open."""
    takes: tuple[Take, ...]
    """This round's takes so far."""
    collections: tuple[Collection, ...]
    pile_size: int
    """Cards in the draw pile, ``LR`` included until it is drawn."""
    cards_before_last_round: int
    """Draws left before ``LR`` turns up (0 once it has)."""
    last_round: bool
    removed: tuple[Card, ...]
    """Cards of left-over rows out of this game (2 players)."""
    history: tuple[RoundRecord, ...]
    results: tuple[GameResult, ...]
    totals: tuple[int, ...]
    """Points summed over the finished games."""
    finished: bool
