"""Azul scoring: wall placements, the floor line, and the end-of-game bonuses.

These are pure functions of one board, shared by the engine and the conformance checker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from arena.games.azul.tiles import (
    COLOURS,
    FLOOR_PENALTY,
    FLOOR_SPACES,
    MARKER,
    SIZE,
    Tile,
    Wall,
    standard_column,
)

ROW_BONUS: Final = 2
COLUMN_BONUS: Final = 7
COLOUR_BONUS: Final = 10


@dataclasses.dataclass(frozen=True, slots=True)
class Board:
    """One seat's board. Pattern line ``n`` (index ``n - 1``) holds up to ``n`` tiles of one colour."""

    score: int
    lines: tuple[tuple[Tile, ...], ...]
    wall: Wall
    floor: tuple[Tile, ...]
    """Occupied floor spaces left to right; ``S`` is the marker."""

    def full_lines(self) -> tuple[int, ...]:
        """The 0-based indices of the full pattern lines, top to bottom."""
        return tuple(index for index, line in enumerate(self.lines) if len(line) == index + 1)

    def complete_rows(self) -> int:
        """How many wall rows are complete."""
        return sum(all(tile is not None for tile in row) for row in self.wall)


EMPTY_LINES: Final = ((),) * SIZE


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """One full line's tile at wall-tiling: its 1-based line, column (``None`` = to the floor), points."""

    line: int
    column: int | None
    points: int


@dataclasses.dataclass(frozen=True, slots=True)
class BoardTiling:
    """What the wall-tiling of one board did."""

    board: Board
    placements: tuple[Placement, ...]
    floor_penalty: int
    to_lid: tuple[Tile, ...]
    """Tiles leaving the board for the lid (line leftovers, floor tiles, floor overflow)."""


def placement_points(wall: Wall, row: int, column: int) -> int:
    """Points for the tile just placed at 0-based (``row``, ``column``) of ``wall``."""
    line = wall[row]
    left = column
    while left > 0 and line[left - 1] is not None:
        left -= 1
    right = column
    while right < SIZE - 1 and line[right + 1] is not None:
        right += 1
    top = row
    while top > 0 and wall[top - 1][column] is not None:
        top -= 1
    bottom = row
    while bottom < SIZE - 1 and wall[bottom + 1][column] is not None:
        bottom += 1
    horizontal = right - left + 1
    vertical = bottom - top + 1
    points = (horizontal if horizontal > 1 else 0) + (vertical if vertical > 1 else 0)
    return points or 1


def place(wall: Wall, row: int, column: int, tile: Tile) -> Wall:
    """``wall`` with ``tile`` at 0-based (``row``, ``column``)."""
    new_row = (*wall[row][:column], tile, *wall[row][column + 1 :])
    return (*wall[:row], new_row, *wall[row + 1 :])


def grey_columns(wall: Wall, row: int, colour: Tile) -> tuple[int, ...]:
    """The 0-based columns where a grey wall's ``row`` may take ``colour``: empty, colour not in the column."""
    line = wall[row]
    return tuple(
        column
        for column in range(SIZE)
        if line[column] is None and all(wall[r][column] is not colour for r in range(SIZE))
    )


def add_to_floor(floor: tuple[Tile, ...], tiles: Sequence[Tile]) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """``floor`` after ``tiles`` join it left to right, and the tiles that found no space (to the lid)."""
    room = FLOOR_SPACES - len(floor)
    if room >= len(tiles):
        return floor + tuple(tiles), ()
    return floor + tuple(tiles[:room]), tuple(tiles[room:])


def tile_board(board: Board, grey: bool, columns: Sequence[int | None] | None = None) -> BoardTiling:
    """Wall-tile one board: each full line top to bottom, then the floor; the score never goes below 0.

    On the grey wall ``columns`` gives a 0-based column (or ``None`` for ``n:F``) per full line, top
    to bottom, already checked legal; on the standard wall it is ignored.
    """
    wall = board.wall
    lines = list(board.lines)
    floor = board.floor
    to_lid: list[Tile] = []
    placements: list[Placement] = []
    gained = 0
    for position, index in enumerate(board.full_lines()):
        line = lines[index]
        colour = line[0]
        lines[index] = ()
        column = columns[position] if grey and columns is not None else standard_column(index, colour)
        if column is None:
            floor, overflow = add_to_floor(floor, line)
            to_lid.extend(overflow)
            placements.append(Placement(index + 1, None, 0))
            continue
        wall = place(wall, index, column, colour)
        points = placement_points(wall, index, column)
        gained += points
        to_lid.extend(line[1:])
        placements.append(Placement(index + 1, column + 1, points))
    penalty = FLOOR_PENALTY[len(floor)]
    to_lid.extend(tile for tile in floor if tile is not MARKER)
    score = max(0, board.score + gained - penalty)
    return BoardTiling(Board(score, tuple(lines), wall, ()), tuple(placements), penalty, tuple(to_lid))


@dataclasses.dataclass(frozen=True, slots=True)
class EndBonus:
    """The end-of-game bonus of one wall and what earned it."""

    bonus: int
    rows: int
    columns: int
    colours: int


def end_bonus(wall: Wall) -> EndBonus:
    """+2 per complete row, +7 per complete column, +10 per colour with all 5 tiles on the wall."""
    rows = sum(all(tile is not None for tile in row) for row in wall)
    columns = sum(all(wall[r][c] is not None for r in range(SIZE)) for c in range(SIZE))
    placed = [tile for row in wall for tile in row if tile is not None]
    colours = sum(placed.count(colour) == SIZE for colour in COLOURS)
    return EndBonus(ROW_BONUS * rows + COLUMN_BONUS * columns + COLOUR_BONUS * colours, rows, columns, colours)
