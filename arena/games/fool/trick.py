"""One FOOL! trick: who may play what (following), and who wins it and who are its Fools.

The contract's rules (shared/rules/fool.md, "Trick play"): the lead colour is the colour of the
first non-wild card played; a seat holding a non-wild card of that colour plays that colour or a
wild, otherwise anything. A card *follows* if it is a wild (value 1) or of the lead colour. The
highest following card wins (only wilds: the first). Ranked from worst, non-following cards come
before following ones, lower values first, and between equal values the later card is worse; the
worst one (or two) are the trick's Fools.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left
from collections.abc import Sequence
from typing import Final, NamedTuple

from arena.games.base import Seat
from arena.games.fool.cards import CARDS, COLOUR_OF, COLOURS, VALUE_OF, WILD, Card, Colour

_CODES: Final = {
    colour: (min(c for c in CARDS if COLOUR_OF[c] is colour), max(c for c in CARDS if COLOUR_OF[c] is colour) + 1)
    for colour in COLOURS
}
"""Each colour's cards are one run of codes (notation order), so a sorted hand holds them as one slice."""


class Play(NamedTuple):
    """One card played to a trick, by whom: JSON ``[seat, "G12"]``."""

    seat: Seat
    card: Card


@dataclasses.dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: everything about it is public."""

    leader: Seat
    plays: tuple[Play, ...]
    """In play order, clockwise from the leader."""
    sat_out: tuple[Seat, ...]
    """The previous trick's Fools, who did not play this one (worst first)."""
    lead_colour: Colour | None
    """None when only wilds were played."""
    winner: Seat
    fools: tuple[Seat, ...]
    """Worst card first."""


def lead_colour(cards: Sequence[Card]) -> Colour | None:
    """The colour of the first non-wild card, or None."""
    for c in cards:
        if c is not WILD:
            return COLOUR_OF[c]
    return None


def legal_cards(hand: tuple[Card, ...], lead: Colour | None) -> tuple[Card, ...]:
    """The distinct cards a sorted ``hand`` may play to a trick whose lead colour is ``lead``.

    Sorted, the wilds (the highest code) come last and each colour is one slice of the hand.
    """
    wilds = hand.count(WILD)
    distinct = hand[: len(hand) - wilds + 1] if wilds > 1 else hand
    if lead is None:
        return distinct
    start, stop = _CODES[lead]
    low = bisect_left(hand, start)
    high = bisect_left(hand, stop, low)
    if low == high:  # void in the lead colour: any card
        return distinct
    return (*hand[low:high], WILD) if wilds else hand[low:high]


def follows(c: Card, lead: Colour | None) -> bool:
    """Whether ``c`` follows: a wild, or of the lead colour (with no lead colour, every card is a wild)."""
    return c is WILD or COLOUR_OF[c] is lead


def resolve(plays: Sequence[Play], fools_per_trick: int) -> tuple[Colour | None, Seat, tuple[Seat, ...]]:
    """The lead colour, the winner and the Fool(s) (worst first) of a trick's ``plays``."""
    lead = lead_colour([p.card for p in plays])
    # Sort keys: (follows, value, -position). The max is the winner (equal values are wilds,
    # and the first one wins); the smallest are the Fools (between equal values the later).
    keys = [(follows(p.card, lead), VALUE_OF[p.card], -i) for i, p in enumerate(plays)]
    winner = max(range(len(plays)), key=lambda i: keys[i] if keys[i][0] else (False, 0, 0))
    worst = sorted(range(len(plays)), key=keys.__getitem__)[:fools_per_trick]
    return lead, plays[winner].seat, tuple(plays[i].seat for i in worst)


def completed(leader: Seat, plays: tuple[Play, ...], sat_out: tuple[Seat, ...], fools_per_trick: int) -> Trick:
    """The :class:`Trick` record of a finished trick."""
    lead, winner, fools = resolve(plays, fools_per_trick)
    return Trick(leader, plays, sat_out, lead, winner, fools)
