"""The explicit registry of games by name."""

from __future__ import annotations

from typing import Any

from arena.errors import UnknownGameError, echo
from arena.games.base import GameRules
from arena.games.g5211 import Game5211

GAMES: dict[str, GameRules[Any, Any, Any]] = {
    Game5211.name: Game5211(),
}
"""Every game the arena can referee, by registry name."""


def get_game(name: str) -> GameRules[Any, Any, Any]:
    """The game registered under ``name``; raises ``UnknownGameError``."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {echo(name)}; known games: {', '.join(sorted(GAMES))}") from None
