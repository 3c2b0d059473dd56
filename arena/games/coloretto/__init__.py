"""Coloretto: 2-5 players, sequential turns, set collection, no private information."""

from typing import Final

from arena.games.coloretto.cards import ACTIONS, CARDS, Action, ActionKind, Card, Collection
from arena.games.coloretto.rules import GameColoretto
from arena.games.coloretto.scoring import Scoring, SeatScore, score_collection
from arena.games.coloretto.state import GameResult, Observation, RoundRecord, State, Take

RULES: Final = GameColoretto()
"""The rules object the rules lookup (``arena.games.lookup``) finds this game by."""

__all__ = [
    "ACTIONS",
    "CARDS",
    "RULES",
    "Action",
    "ActionKind",
    "Card",
    "Collection",
    "GameColoretto",
    "GameResult",
    "Observation",
    "RoundRecord",
    "Scoring",
    "SeatScore",
    "State",
    "Take",
    "score_collection",
]
