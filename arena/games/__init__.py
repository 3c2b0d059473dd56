"""Pure game rules behind one interface. Standard library only: no asyncio, grpc, redis or prometheus."""

from arena.games.base import GameRules, Outcome, Seat, Termination, to_jsonable
from arena.games.lookup import GAMES, get_game

__all__ = ["GAMES", "GameRules", "Outcome", "Seat", "Termination", "get_game", "to_jsonable"]
