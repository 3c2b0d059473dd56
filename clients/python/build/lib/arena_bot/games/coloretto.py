"""Coloretto helpers: a turn's observation and legal actions as the engine's types.

from arena_bot.games import coloretto

def act(self, turn):
    view = coloretto.observation(turn)       # arena.games.coloretto.Observation
    actions = coloretto.legal_actions(turn)   # [Action, ...]: draw, place r, take r
"""

from __future__ import annotations

from typing import Final

from arena.games.coloretto import Action, Observation
from arena_bot.types import Turn

GAME: Final = "coloretto"


def observation(turn: Turn) -> Observation:
    """The seat's Coloretto observation; raises ``ValueError`` if the turn is of another game."""
    view = turn.observation
    if turn.game != GAME or not isinstance(view, Observation):
        raise ValueError(f"match {turn.match_id} plays {turn.game!r}, not coloretto")
    return view


def legal_actions(turn: Turn) -> list[Action]:
    """The legal actions, parsed."""
    return [Action.parse(text) for text in turn.legal_actions]
