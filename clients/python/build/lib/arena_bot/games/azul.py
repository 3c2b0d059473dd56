"""Azul helpers: a turn's observation and legal actions as the engine's types.

from arena_bot.games import azul

def act(self, turn):
    view = azul.observation(turn)       # arena.games.azul.Observation: factories, centre, boards
    actions = azul.legal_actions(turn)   # [Take | Tiling, ...]: "3 R 4", "C K F"; grey wall "2:4 5:1"
"""

from __future__ import annotations

from typing import Final

from arena.games.azul import Action, Observation, parse_action
from arena_bot.types import Turn

GAME: Final = "azul"


def observation(turn: Turn) -> Observation:
    """The seat's Azul observation; raises ``ValueError`` if the turn is of another game."""
    view = turn.observation
    if turn.game != GAME or not isinstance(view, Observation):
        raise ValueError(f"match {turn.match_id} plays {turn.game!r}, not azul")
    return view


def legal_actions(turn: Turn) -> list[Action]:
    """The legal actions, parsed: takes in the factory offer, tilings in a grey-wall tiling."""
    return [parse_action(text) for text in turn.legal_actions]
