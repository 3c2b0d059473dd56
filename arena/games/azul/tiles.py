"""Azul tiles, the starting-player marker and the wall geometry.

A tile is one of five colours written ``B Y R K W`` (blue, yellow, red, black, white); the marker
``S`` shares the same small type because it travels with tiles (centre, floor). Walls are 5x5 grids,
rows and columns 1-5 in notation and 0-4 in code.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from arena.errors import InvalidActionError


class Tile(int):
    """A tile colour ``B Y R K W`` (codes 0-4, notation order), or the starting-player marker ``S`` (5).

    An ``int`` that prints as its letter; every tile is interned (``Tile.B`` ... ``Tile.S``, or
    :meth:`from_letter`), so tiles compare with ``is`` and hash as ints (an enum hashes in Python).
    """

    __slots__ = ()
    notation = True
    """Prints in the game's notation (``to_jsonable`` writes the letter)."""
    B: ClassVar[Tile]
    Y: ClassVar[Tile]
    R: ClassVar[Tile]
    K: ClassVar[Tile]
    W: ClassVar[Tile]
    S: ClassVar[Tile]

    @property
    def name(self) -> str:
        """The one-letter notation."""
        return _LETTERS[self]

    @classmethod
    def from_letter(cls, letter: str) -> Tile:
        """The tile (or ``S``) of one letter; raises ``KeyError``."""
        return _BY_LETTER[letter]

    @classmethod
    def parse_colour(cls, text: str) -> Tile:
        """A colour letter ``B Y R K W`` (any case); raises ``InvalidActionError``."""
        tile = _BY_LETTER.get(text.strip().upper())
        if tile is None or tile is Tile.S:
            raise InvalidActionError(f"invalid colour {shown(text)}: expected one of B, Y, R, K, W")
        return tile

    def __str__(self) -> str:
        return _LETTERS[self]

    def __repr__(self) -> str:
        return f"Tile.{_LETTERS[self]}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Copies and unpickled states keep the interned tiles (the engine compares them with ``is``).
        return (Tile.from_letter, (_LETTERS[self],))


_LETTERS: Final = "BYRKWS"
MARKER_CODE: Final = 5
TILES: Final = tuple(Tile(code) for code in range(len(_LETTERS)))
_BY_LETTER: Final = dict(zip(_LETTERS, TILES, strict=True))
Tile.B, Tile.Y, Tile.R, Tile.K, Tile.W, Tile.S = TILES

COLOURS: Final = (Tile.B, Tile.Y, Tile.R, Tile.K, Tile.W)
"""The five colours in notation order."""
MARKER: Final = Tile.S
TILES_PER_COLOUR: Final = 20
SIZE: Final = 5
"""Wall rows, wall columns and pattern lines."""
FLOOR_SPACES: Final = 7
FLOOR_PENALTY: Final = (0, 1, 2, 4, 6, 8, 11, 14)
"""The total loss for 0..7 occupied floor spaces (1, 1, 2, 2, 2, 3, 3 per space)."""
FACTORY_SIZE: Final = 4

Wall = tuple[tuple[Tile | None, ...], ...]
"""Five rows of five spaces, each empty (``None``) or holding the tile placed there."""
EMPTY_WALL: Final[Wall] = ((None,) * SIZE,) * SIZE


def standard_column(row: int, colour: Tile) -> int:
    """The 0-based column of ``colour`` in 0-based ``row`` of the standard wall: ``(c - r) mod 5``."""
    return (row + colour) % SIZE


def standard_colour(row: int, column: int) -> Tile:
    """The colour printed on the standard wall at 0-based (``row``, ``column``)."""
    return COLOURS[(column - row) % SIZE]


def format_tiles(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    """Tiles as letters with no separator, e.g. ``RRB``."""
    return "".join(tile.name for tile in tiles)


def format_row(row: tuple[Tile | None, ...]) -> str:
    """A wall row as five characters, ``.`` for an empty space."""
    return "".join("." if tile is None else tile.name for tile in row)


def shown(text: object, limit: int = 40) -> str:
    """A value for an error message: its repr, truncated."""
    value = repr(str(text)) if getattr(text, "notation", None) is not None else repr(text)
    return value if len(value) <= limit else value[: limit - 4] + "...'"
