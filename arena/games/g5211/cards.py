"""5211 cards and actions as small value types that parse and print in the card notation.

A card is a colour letter and a value, ``G3`` or ``Y1`` (value 1 is the Kododo). Cards of the same
colour and value are identical, so a card is just one of 30 interned codes; an action is the sorted
multiset of cards a seat lays, written ``"G3 Y1"``.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable
from typing import Final

from arena.errors import InvalidActionError, echo


class Colour(enum.IntEnum):
    """The five colours, in notation order."""

    BLUE = 0
    GREEN = 1
    ORANGE = 2
    VIOLET = 3
    YELLOW = 4

    @property
    def letter(self) -> str:
        """The one-letter notation: B, G, O, V or Y."""
        return self.name[0]


LETTERS: Final = "BGOVY"
VALUES: Final = range(1, 7)
COPIES_PER_VALUE: Final = {1: 5, 2: 6, 3: 5, 4: 2, 5: 1, 6: 1}
"""How many cards of each value every colour has (20 per colour, 100 in all)."""
KODODO: Final = 1


class Card(int):
    """One of the 30 distinct cards; an ``int`` code ``colour * 6 + value - 1`` that prints as ``G3``.

    Use :data:`CARDS` or :meth:`parse`: every card is interned, so cards compare and hash as ints.
    """

    __slots__ = ()
    notation = True

    @property
    def colour(self) -> Colour:
        """The card's colour."""
        return Colour(self // 6)

    @property
    def value(self) -> int:
        """The card's value, 1 (Kododo) to 6."""
        return self % 6 + 1

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card such as ``"G3"``; raises ``InvalidActionError``."""
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise InvalidActionError(
                f"invalid card {echo(text)}: expected a colour letter B, G, O, V or Y and a value 1-6, like 'G3'"
            )
        return card

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({_TEXT[self]!r})"


_TEXT: Final = tuple(f"{letter}{value}" for letter in LETTERS for value in VALUES)
CARDS: Final = tuple(Card(code) for code in range(30))
"""All 30 distinct cards, indexed by code."""
_BY_TEXT: Final = dict(zip(_TEXT, CARDS, strict=True))
COLOUR_OF: Final = tuple(code // 6 for code in range(30))
VALUE_OF: Final = tuple(code % 6 + 1 for code in range(30))


def full_deck() -> list[Card]:
    """The 100 cards in a fixed order (before shuffling)."""
    return [
        CARDS[colour * 6 + value - 1]
        for colour in range(5)
        for value, copies in COPIES_PER_VALUE.items()
        for _ in range(copies)
    ]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, space-separated."""
    return " ".join(_TEXT[card] for card in cards)


class Play:
    """The cards one seat lays in one turn, a sorted multiset: ``Play.parse("Y1 G3")`` prints ``G3 Y1``.

    Plays are interned: ``Play.of(cards)`` and ``Play.parse`` return the same object for equal plays.
    """

    __slots__ = ("_text", "cards")
    notation = True
    cards: tuple[Card, ...]

    def __init__(self, cards: tuple[Card, ...]) -> None:
        self.cards = cards
        self._text = format_cards(cards)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> Play:
        """The play of these cards, in any order."""
        key = tuple(sorted(cards))
        play = _PLAYS.get(key)
        if play is None:
            # Only the plays a hand can make are interned (built below), so junk input cannot
            # grow this table.
            play = cls(tuple(CARDS[c] for c in key))
        return play

    @classmethod
    def parse(cls, text: str) -> Play:
        """Read a play such as ``"G3 Y1"`` (cards separated by spaces or commas).

        Raises ``InvalidActionError`` naming the text when it holds no card or a card that is not one.
        """
        parts = text.replace(",", " ").split()
        if not parts:
            raise InvalidActionError(f"invalid action {echo(text)}: no cards given")
        return cls.of(Card.parse(part) for part in parts)

    def __len__(self) -> int:
        return len(self.cards)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Play({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and self.cards == other.cards

    def __hash__(self) -> int:
        return hash(self.cards)


_PLAYS: dict[tuple[int, ...], Play] = {}
for _size in (1, 2):
    for _combo in itertools.combinations_with_replacement(range(30), _size):
        _PLAYS[_combo] = Play(tuple(CARDS[c] for c in _combo))
