"""FOOL!: 4-8 players, sequential trick play, hidden hands (shared/rules/fool.md)."""

from typing import Final

from arena.games.fool.cards import CARDS, FULL_DECK, WILD, Card, Colour, default_card_set, format_cards
from arena.games.fool.rules import GameFool, deck_from_deals
from arena.games.fool.scoring import RoundResult, RoundSummary, hand_cost, round_scores
from arena.games.fool.state import Observation, Setup, State
from arena.games.fool.trick import Play, Trick, legal_cards, resolve

RULES: Final = GameFool()
"""The rules object the rules lookup (``arena.games.lookup``) finds this game by."""

__all__ = [
    "CARDS",
    "FULL_DECK",
    "RULES",
    "WILD",
    "Card",
    "Colour",
    "GameFool",
    "Observation",
    "Play",
    "RoundResult",
    "RoundSummary",
    "Setup",
    "State",
    "Trick",
    "deck_from_deals",
    "default_card_set",
    "format_cards",
    "hand_cost",
    "legal_cards",
    "resolve",
    "round_scores",
]
