"""A built-in Azul policy: greedy one-move lookahead on its own board, from its observation only.

A take is valued by the wall points it makes possible now (a line it completes scores as it would
at wall-tiling), progress towards a line, the floor penalty it adds (tiles that do not fit, the
marker), and a small cost for leaving a line far from full. A grey-wall tiling takes the choice that
scores most this round. Ties go to a seeded generator, so a policy is deterministic given its seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from arena.games.azul.actions import FLOOR, Action, Take, Tiling
from arena.games.azul.scoring import Board, grey_columns, place, placement_points, tile_board
from arena.games.azul.state import Observation, WallSide
from arena.games.azul.tiles import FLOOR_PENALTY, FLOOR_SPACES, Tile, standard_column

PROGRESS: Final = 0.6
"""Value of one tile placed on a line that is not yet full."""
SHORTFALL: Final = 0.2
"""Cost of each space still empty on a line left unfinished."""
MARKER_VALUE: Final = 0.4
"""Starting the next round is worth a little."""


class HeuristicAzul:
    """Greedy: the take (or tiling) with the best immediate value for its own board."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The best-valued legal action; ties broken by the seeded generator."""
        if len(legal_actions) == 1 or observation.seat is None:
            return legal_actions[0]
        board = observation.boards[observation.seat]
        grey = observation.wall_side is WallSide.GREY
        best: list[Action] = []
        best_value = float("-inf")
        for action in legal_actions:
            if isinstance(action, Take):
                value = _take_value(observation, board, grey, action)
            else:
                value = _tiling_value(board, action)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif value > best_value - 1e-9:
                best.append(action)
        return best[0] if len(best) == 1 else self._rng.choice(best)


def _take_value(observation: Observation, board: Board, grey: bool, take: Take) -> float:
    source = observation.centre if take.from_centre else observation.factories[take.source]
    count = source.count(take.colour)
    marker = take.from_centre and observation.marker_in_centre
    value = MARKER_VALUE if marker else 0.0
    if take.target == FLOOR:
        overflow = count
    else:
        index = take.target - 1
        line = board.lines[index]
        placed = min(count, index + 1 - len(line))
        overflow = count - placed
        if len(line) + placed == index + 1:
            value += 1.0 + _best_points(board, grey, index, take.colour)
        else:
            value += PROGRESS * placed - SHORTFALL * (index + 1 - len(line) - placed)
    occupied = len(board.floor)
    after = min(FLOOR_SPACES, occupied + overflow + (1 if marker else 0))
    return value - (FLOOR_PENALTY[after] - FLOOR_PENALTY[occupied])


def _best_points(board: Board, grey: bool, index: int, colour: Tile) -> int:
    wall = board.wall
    columns = grey_columns(wall, index, colour) if grey else (standard_column(index, colour),)
    if not columns:
        return -index - 1  # the whole line would go to the floor
    return max(placement_points(place(wall, index, column, colour), index, column) for column in columns)


def _tiling_value(board: Board, tiling: Tiling) -> float:
    columns = [None if column is None else column - 1 for _, column in tiling.placements]
    return float(tile_board(board, True, columns).board.score)
