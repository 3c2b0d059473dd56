"""5211: 2-5 players, simultaneous secret card choices, hidden hands."""

from typing import Final

from arena.games.g5211.cards import CARDS, Card, Colour, Play
from arena.games.g5211.rules import Game5211, legal_plays
from arena.games.g5211.scoring import RoundResult, ScoringKind, score_round
from arena.games.g5211.state import Observation, State

RULES: Final = Game5211()
"""The rules object the rules lookup (``arena.games.lookup``) finds this game by."""

__all__ = [
    "CARDS",
    "RULES",
    "Card",
    "Colour",
    "Game5211",
    "Observation",
    "Play",
    "RoundResult",
    "ScoringKind",
    "State",
    "legal_plays",
    "score_round",
]
