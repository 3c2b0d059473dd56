"""Azul: 2-4 players, a sequential factory offer, and (grey wall) a simultaneous wall-tiling."""

from typing import Final

from arena.games.azul.actions import CENTRE, FLOOR, Action, Take, Tiling, parse_action
from arena.games.azul.rules import GameAzul
from arena.games.azul.scoring import Board, Placement, end_bonus, tile_board
from arena.games.azul.state import EndReason, Observation, Phase, RoundResult, State, WallSide
from arena.games.azul.tiles import COLOURS, MARKER, Tile

RULES: Final = GameAzul()
"""The rules object the rules lookup (``arena.games.lookup``) finds this game by."""

__all__ = [
    "CENTRE",
    "COLOURS",
    "FLOOR",
    "MARKER",
    "RULES",
    "Action",
    "Board",
    "EndReason",
    "GameAzul",
    "Observation",
    "Phase",
    "Placement",
    "RoundResult",
    "State",
    "Take",
    "Tile",
    "Tiling",
    "WallSide",
    "end_bonus",
    "parse_action",
    "tile_board",
]
