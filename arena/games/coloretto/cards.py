"""Coloretto cards, collections and actions as small value types that print in the contract's notation.

A card is one of ten interned kinds: the colours ``A``…``G``, the joker ``J``, the ``+2`` card and the
"last round" card ``LR``. A collection is the multiset of cards a seat holds face up, a read-only
mapping from card to count that prints as ``A:3 J:1 +2:2`` and turns into ``{"A": 3, "J": 1, "+2": 2}``
in JSON. An action is ``draw``, ``place r`` or ``take r``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from typing import Final

from arena.errors import InvalidActionError

TOKENS: Final = ("A", "B", "C", "D", "E", "F", "G", "J", "+2", "LR")
COLOUR_COUNT: Final = 7
CARDS_PER_COLOUR: Final = 9
JOKER_COUNT: Final = 3
PLUS_TWO_COUNT: Final = 10
MAX_ROWS: Final = 5
"""The most rows any game has (one per player, five players)."""
_TEXT_LIMIT: Final = 40
"""How much of an offending text an error message quotes."""


class Card(int):
    """One of the ten card kinds; an ``int`` code that prints as its token (``A``, ``J``, ``+2``, ``LR``).

    Use :data:`CARDS`, the named constants or :meth:`parse`: cards are interned and compare as ints.
    """

    __slots__ = ()
    notation = True

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card token such as ``"A"``, ``"J"``, ``"+2"`` or ``"LR"``; raises ``InvalidActionError``."""
        card = _BY_TOKEN.get(text.strip().upper())
        if card is None:
            raise InvalidActionError(f"invalid card {shorten(text)!r}: expected one of {', '.join(TOKENS)}")
        return card

    def __str__(self) -> str:
        return TOKENS[self]

    def __repr__(self) -> str:
        return f"Card({TOKENS[self]!r})"


CARDS: Final = tuple(Card(code) for code in range(len(TOKENS)))
"""All ten card kinds, indexed by code."""
COLOURS: Final = CARDS[:COLOUR_COUNT]
JOKER: Final = CARDS[7]
PLUS_TWO: Final = CARDS[8]
LAST_ROUND: Final = CARDS[9]
COLLECTABLE: Final = CARDS[:9]
"""The kinds a collection can hold: colours, jokers and "+2" (``LR`` is set aside, never taken)."""
_BY_TOKEN: Final = dict(zip(TOKENS, CARDS, strict=True))


def shorten(value: object) -> str:
    """``value`` as text, cut to a length fit for an error message."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "…"


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, space-separated."""
    return " ".join(TOKENS[card] for card in cards)


class Collection(Mapping[Card, int]):
    """The cards one seat holds face up: a read-only mapping from each kind it holds to its count.

    Only kinds with a non-zero count are keys; :meth:`count` answers for any kind.
    """

    __slots__ = ("counts",)
    counts: tuple[int, ...]
    """The count of each collectable kind, indexed by card code (``A``…``G``, ``J``, ``+2``)."""

    def __init__(self, counts: tuple[int, ...]) -> None:
        self.counts = counts

    @classmethod
    def of(cls, cards: Iterable[Card]) -> Collection:
        """The collection of these cards."""
        return EMPTY.plus(cards)

    @classmethod
    def from_tokens(cls, counts: Mapping[str, int]) -> Collection:
        """A collection from ``{token: count}``, as the case files write it; raises ``InvalidActionError``."""
        cards = []
        for token, count in counts.items():
            card = Card.parse(token)
            if card not in COLLECTABLE:
                raise InvalidActionError(f"a collection cannot hold {token!r}")
            cards += [card] * count
        return cls.of(cards)

    def plus(self, cards: Iterable[Card]) -> Collection:
        """This collection with ``cards`` added."""
        counts = list(self.counts)
        for card in cards:
            counts[card] += 1
        return Collection(tuple(counts))

    def count(self, card: Card) -> int:
        """How many cards of this kind the collection holds (0 for ``LR``)."""
        return self.counts[card] if card < len(self.counts) else 0

    @property
    def size(self) -> int:
        """The number of cards held."""
        return sum(self.counts)

    def to_tokens(self) -> dict[str, int]:
        """``{token: count}`` for the kinds held, as the case files write it."""
        return {TOKENS[card]: count for card, count in enumerate(self.counts) if count}

    def __getitem__(self, card: Card) -> int:
        count = self.count(card)
        if not count:
            raise KeyError(card)
        return count

    def __iter__(self) -> Iterator[Card]:
        return (CARDS[card] for card, count in enumerate(self.counts) if count)

    def __len__(self) -> int:
        return sum(1 for count in self.counts if count)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Collection):
            return self.counts == other.counts
        return Mapping.__eq__(self, other)

    def __hash__(self) -> int:
        return hash(self.counts)

    def __str__(self) -> str:
        return " ".join(f"{TOKENS[card]}:{count}" for card, count in enumerate(self.counts) if count) or "-"

    def __repr__(self) -> str:
        return f"Collection({self.to_tokens()!r})"


EMPTY: Final = Collection((0,) * len(COLLECTABLE))


class ActionKind(enum.Enum):
    """The three decisions a seat makes."""

    DRAW = "draw"
    """Turn up the top card of the pile (then ``place`` it)."""
    PLACE = "place"
    """Put the card just drawn in an open row with room."""
    TAKE = "take"
    """Take an open row's cards and leave the round."""


class Action:
    """One decision in notation: ``Action.parse("place 2")`` prints ``place 2``. Immutable.

    Actions are interned: :data:`ACTIONS` holds every one there is, and ``parse`` returns those.
    """

    __slots__ = ("_text", "code", "kind", "row")
    notation = True
    kind: ActionKind
    row: int | None
    """The row of a ``place`` or ``take``; ``None`` for ``draw``."""
    code: int
    """The action's index in :data:`ACTIONS`, the canonical order."""

    def __init__(self, kind: ActionKind, row: int | None = None) -> None:
        self.kind = kind
        self.row = row
        self.code = 0 if row is None else 1 + row + (MAX_ROWS if kind is ActionKind.TAKE else 0)
        self._text = kind.value if row is None else f"{kind.value} {row}"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read ``draw``, ``place r`` or ``take r`` (row ``0``–``4``); raises ``InvalidActionError``."""
        action = _BY_TEXT.get(" ".join(text.lower().split()))
        if action is None:
            raise InvalidActionError(
                f"invalid action {shorten(text)!r}: expected 'draw', 'place r' or 'take r' with a row r from 0 to "
                f"{MAX_ROWS - 1}"
            )
        return action

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Action) and self.code == other.code)

    def __hash__(self) -> int:
        return self.code

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Action({self._text!r})"


DRAW: Final = Action(ActionKind.DRAW)
PLACE: Final = tuple(Action(ActionKind.PLACE, row) for row in range(MAX_ROWS))
"""``place r`` for every row ``r``."""
TAKE: Final = tuple(Action(ActionKind.TAKE, row) for row in range(MAX_ROWS))
"""``take r`` for every row ``r``."""
ACTIONS: Final = (DRAW, *PLACE, *TAKE)
"""Every action there is, in the canonical order of legal actions."""
_BY_TEXT: Final = {str(action): action for action in ACTIONS}
