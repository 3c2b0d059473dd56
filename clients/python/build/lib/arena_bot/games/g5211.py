"""5211 helpers: a turn's observation and legal plays as the engine's types.

from arena_bot.games import g5211

def act(self, turn):
    view = g5211.observation(turn)          # arena.games.g5211.Observation
    plays = g5211.legal_actions(turn)        # [Play, ...]
"""

from __future__ import annotations

from typing import Final

from arena.games.g5211 import Observation, Play
from arena_bot.types import Turn

GAME: Final = "5211"


def observation(turn: Turn) -> Observation:
    """The seat's 5211 observation; raises ``ValueError`` if the turn is of another game."""
    view = turn.observation
    if turn.game != GAME or not isinstance(view, Observation):
        raise ValueError(f"match {turn.match_id} plays {turn.game!r}, not 5211")
    return view


def legal_actions(turn: Turn) -> list[Play]:
    """The legal plays, parsed."""
    return [Play.parse(text) for text in turn.legal_actions]
