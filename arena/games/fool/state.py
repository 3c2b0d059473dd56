"""The FOOL! match state and the views of it that seats and spectators get."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from arena.games.base import Seat
from arena.games.fool.cards import Card, Colour
from arena.games.fool.scoring import RoundResult, RoundSummary
from arena.games.fool.trick import Play, Trick


@dataclasses.dataclass(frozen=True, slots=True)
class Setup:
    """What stays fixed for a whole match, hidden parts (seed, fixed deals) included."""

    num_players: int
    seed: int
    cards_in_play: tuple[Card, ...]
    """Sorted; public. The rest of the 88 cards are out of the game."""
    hand_size: int
    fools_per_trick: int
    wild_penalty: int
    first_dealer: Seat
    deals: tuple[tuple[Card, ...], ...]
    """Fixed shuffles for the first rounds (tests, duplicate deals); later rounds come from the seed."""


class State(NamedTuple):
    """One point of one FOOL! match: the whole truth, other seats' hands included. Immutable.

    A seat never sees this; it gets an :class:`Observation` built by ``observe``. A named tuple, not
    a dataclass: one is built per card played, and a tuple is built several times faster.
    """

    setup: Setup
    round: int
    """1-based."""
    dealer: Seat
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's hand, sorted. Once the match is over, the (revealed) hands left at the end."""
    leader: Seat
    """Who led (or leads) the current trick."""
    sitting_out: tuple[Seat, ...]
    """The previous trick's Fools (worst first), who sit out the current trick."""
    trick: tuple[Play, ...]
    """The cards played to the current trick so far."""
    lead: Colour | None
    """The current trick's lead colour, once a non-wild card is played to it."""
    to_play: tuple[Seat, ...]
    """The seats still to play to the current trick, in order; empty once the match is over."""
    tricks: tuple[Trick, ...]
    """This round's completed tricks (the last round's, once the match is over)."""
    history: tuple[RoundResult, ...]
    """Every scored round with its tricks, oldest first (for replays and printers)."""
    rounds: tuple[RoundSummary, ...]
    """The same rounds without their tricks (what observations carry of every round)."""
    totals: tuple[int, ...]
    tens: tuple[int, ...]
    """Each seat's count of +10 rounds."""

    @property
    def finished(self) -> bool:
        """Whether the match is over."""
        return not self.to_play

    @property
    def num_players(self) -> int:
        """The number of seats."""
        return self.setup.num_players


@dataclasses.dataclass(frozen=True, slots=True)
class Observation:
    """What one seat (or, with ``seat`` None and an empty hand, a spectator) may know.

    Nothing from the contract's "nobody" rows: no other seat's hand before it is shown at
    scoring, no shuffle order, no seed.
    """

    seat: Seat | None
    num_players: int
    cards_in_play: tuple[Card, ...]
    hand_size: int
    """Cards dealt to each seat per round."""
    fools_per_trick: int
    wild_penalty: int
    round: int
    dealer: Seat
    hand: tuple[Card, ...]
    """The seat's own hand, sorted (empty for a spectator)."""
    hand_sizes: tuple[int, ...]
    leader: Seat
    sitting_out: tuple[Seat, ...]
    trick: tuple[Play, ...]
    """The cards played to the current trick so far, in order."""
    lead_colour: Colour | None
    to_play: Seat | None
    """The seat to play now; None once the match is over."""
    tricks: tuple[Trick, ...]
    """This round's completed tricks (the last round's, once the match is over)."""
    last_trick: Trick | None
    """The latest completed trick: this round's last one, or the one that ended the last round."""
    rounds: tuple[RoundSummary, ...]
    """Every scored round, oldest first: the hands left (revealed) and the scores."""
    last_round: RoundResult | None
    """The last scored round with its tricks; None before the first is scored. A seat is asked only
    on its turns, and at least once a round (every seat plays a round's first trick), so this and
    ``tricks`` and ``trick`` hold every card played since the seat was last asked: a seat that sits
    out a round's last trick has not seen the end of the trick before. Earlier rounds' tricks are
    not repeated (nothing carries over a new deal; the match replay holds them all)."""
    totals: tuple[int, ...]
    tens: tuple[int, ...]
    finished: bool
