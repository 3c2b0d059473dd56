"""FOOL! helpers: a turn's observation and legal actions as the engine's types.

from arena_bot.games import fool

def act(self, turn):
    view = fool.observation(turn)        # arena.games.fool.Observation: your hand, the others' sizes,
                                         # every card played, each scored round's hands left
    cards = fool.legal_actions(turn)     # [Card, ...]: the cards of your hand you may play now
    return str(max(cards, key=lambda card: card.value))
"""

from __future__ import annotations

from typing import Final

from arena.games.fool import Card, Observation
from arena_bot.types import Turn

GAME: Final = "fool"


def observation(turn: Turn) -> Observation:
    """The seat's FOOL! observation; raises ``ValueError`` if the turn is of another game."""
    view = turn.observation
    if turn.game != GAME or not isinstance(view, Observation):
        raise ValueError(f"match {turn.match_id} plays {turn.game!r}, not fool")
    return view


def legal_actions(turn: Turn) -> list[Card]:
    """The legal actions, parsed: cards of the seat's own hand."""
    return [Card.parse(text) for text in turn.legal_actions]
