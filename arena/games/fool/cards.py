"""FOOL! cards as small value types that print in the contract's notation, and the cards in play.

A card is a colour letter and a value: ``G2`` to ``G27``, ``R2`` to ``R23``, ``Y2`` to ``Y21``,
``B2`` to ``B15`` and the wild ``W1`` (six copies; every other card is unique). A card is one of
83 interned ``int`` codes in notation order (G, R, Y, B, W; values ascending), so sorting cards
sorts them as the contract lists them. A card is also the action: a seat plays one card a turn.
"""

from __future__ import annotations

import enum
import functools
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from typing import Final

from arena.errors import InvalidActionError


class Colour(enum.Enum):
    """The four colours and the wild, in notation order; the value is the notation letter."""

    GREEN = "G"
    RED = "R"
    YELLOW = "Y"
    BLUE = "B"
    WILD = "W"

    @property
    def letter(self) -> str:
        """The one-letter notation."""
        return self.value


COLOURS: Final = (Colour.GREEN, Colour.RED, Colour.YELLOW, Colour.BLUE)
"""The four real colours; a wild is no colour."""
HIGHEST: Final = {Colour.GREEN: 27, Colour.RED: 23, Colour.YELLOW: 21, Colour.BLUE: 15}
"""Every colour is numbered 2 to its highest value (contract **Decision (values)**)."""
WILD_COPIES: Final = 6
WILD_VALUE: Final = 1
MAX_TEXT: Final = 40
"""Offending values are quoted in error messages up to this many characters."""


def quote(value: object) -> str:
    """A value for an error message: a string quoted, anything else as written; truncated."""
    if isinstance(value, str):
        return repr(value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "...")
    text = str(value) if getattr(value, "notation", None) else repr(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


class Card(int):
    """One of the 83 distinct cards: an ``int`` code in notation order that prints as ``G12``.

    Use :data:`CARDS`, :data:`WILD` or :meth:`parse`: cards are interned and compare as ints.
    """

    __slots__ = ()
    notation = True

    @property
    def colour(self) -> Colour:
        """The card's colour (``Colour.WILD`` for ``W1``)."""
        return COLOUR_OF[self]

    @property
    def value(self) -> int:
        """The card's face value (1 for the wild)."""
        return VALUE_OF[self]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card such as ``"G12"`` or ``"w1"``; raises ``InvalidActionError`` naming the text."""
        card = _BY_TEXT.get(text.strip().upper()) if isinstance(text, str) else None
        if card is None:
            raise InvalidActionError(
                f"invalid card {quote(text)}: expected one card token, a colour letter and a value: "
                "G2-G27, R2-R23, Y2-Y21, B2-B15 or the wild W1"
            )
        return card

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"


_SPECS: Final = [(colour, value) for colour in COLOURS for value in range(2, HIGHEST[colour] + 1)] + [
    (Colour.WILD, WILD_VALUE)
]
_TEXT: Final = tuple(f"{colour.letter}{value}" for colour, value in _SPECS)
COLOUR_OF: Final = tuple(colour for colour, _ in _SPECS)
VALUE_OF: Final = tuple(value for _, value in _SPECS)
CARDS: Final = tuple(Card(code) for code in range(len(_SPECS)))
"""All 83 distinct cards, in notation order."""
WILD: Final = CARDS[-1]
_BY_TEXT: Final = dict(zip(_TEXT, CARDS, strict=True))


def card(text: str) -> Card:
    """The card ``text`` names (shorthand for :meth:`Card.parse`)."""
    return Card.parse(text)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, space-separated."""
    return " ".join(_TEXT[c] for c in cards)


FULL_DECK: Final = tuple(sorted([c for c in CARDS if c is not WILD] + [WILD] * WILD_COPIES))
"""The 88 cards of the box, sorted."""
FULL_COUNTS: Final = Counter(FULL_DECK)
PLAYER_COUNTS: Final = range(4, 9)


@functools.cache
def default_card_set(num_players: int) -> tuple[Card, ...]:
    """The cards in play at ``num_players`` (the contract's table), sorted.

    At 8 players the whole deck; at 4-7 (contract **Decision (4-7 players)**) 12 cards a seat,
    each colour and the wilds sized ``count * 12P / 88`` rounded by largest remainder, keeping
    the lowest values of each colour.
    """
    if num_players == max(PLAYER_COUNTS):
        return FULL_DECK
    total = 12 * num_players
    kinds = [*COLOURS, Colour.WILD]
    full = [HIGHEST[colour] - 1 for colour in COLOURS] + [WILD_COPIES]
    quotas = [Fraction(count * total, len(FULL_DECK)) for count in full]
    sizes = [int(q) for q in quotas]
    # Largest remainder first; equal remainders go in notation order (never needed by the table).
    by_remainder = sorted(range(len(kinds)), key=lambda i: (-(quotas[i] - sizes[i]), i))
    for i in by_remainder[: total - sum(sizes)]:
        sizes[i] += 1
    cards: list[Card] = []
    for kind, size in zip(kinds, sizes, strict=True):
        if kind is Colour.WILD:
            cards += [WILD] * size
        else:
            cards += [_BY_TEXT[f"{kind.letter}{value}"] for value in range(2, 2 + size)]
    return tuple(sorted(cards))
