"""A greedy Coloretto policy: it values a row by how much taking it would change a seat's end score.

A row's worth to a seat is the best end score of that seat's collection with the row added, minus
its best score now (jokers and positive colours chosen as the engine scores them). The policy
takes the row worth most to itself once that reaches a threshold (or when it cannot draw), and
otherwise draws; it places a drawn card where the row becomes worth most to itself and least to
the best-placed opponent still in the round. It sees only its observation.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from arena.games.coloretto.cards import Action, ActionKind, Card, Collection
from arena.games.coloretto.scoring import Scoring, score_collection
from arena.games.coloretto.state import Observation

_CACHE_LIMIT: Final = 50_000


class HeuristicColoretto:
    """Greedy one-step valuation of the rows, for itself and for the opponents still in the round."""

    def __init__(self, seed: int | None = None, take_threshold: int = 5, spite: float = 0.7) -> None:
        # Deterministic: the seed only breaks exact ties between equally valued actions.
        self._rng = random.Random(seed)
        self._take_threshold = take_threshold
        self._spite = spite
        self._scores: dict[tuple[tuple[int, ...], Scoring, tuple[Card, ...]], int] = {}

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """The legal action with the best greedy value for this seat."""
        if len(legal_actions) == 1 or observation.seat is None:
            return legal_actions[0]
        me = observation.seat
        if observation.drawn is not None:
            others = [
                seat for seat in range(observation.num_players) if seat != me and seat not in observation.taken_by
            ]
            return self._best(
                legal_actions,
                lambda action: self._placement_value(observation, me, others, action),
            )
        takes = [action for action in legal_actions if action.kind is ActionKind.TAKE]
        best_take = self._best(takes, lambda action: self._gain(observation, me, self._row(observation, action)))
        can_draw = any(action.kind is ActionKind.DRAW for action in legal_actions)
        if not can_draw or self._gain(observation, me, self._row(observation, best_take)) >= self._take_threshold:
            return best_take
        return next(action for action in legal_actions if action.kind is ActionKind.DRAW)

    def _placement_value(self, observation: Observation, me: int, others: list[int], action: Action) -> float:
        assert observation.drawn is not None
        cards = (*self._row(observation, action), observation.drawn)
        mine = self._gain(observation, me, cards)
        theirs = max((self._gain(observation, seat, cards) for seat in others), default=0)
        return mine - self._spite * theirs

    def _best(self, actions: Sequence[Action], value: Callable[[Action], float]) -> Action:
        values = [value(action) for action in actions]
        top = max(values)
        return self._rng.choice([action for action, v in zip(actions, values, strict=True) if v == top])

    @staticmethod
    def _row(observation: Observation, action: Action) -> tuple[Card, ...]:
        assert action.row is not None
        return observation.rows[action.row]

    def _gain(self, observation: Observation, seat: int, cards: Sequence[Card]) -> int:
        """How much the seat's end score would change if it took ``cards``."""
        collection = observation.collections[seat]
        return self._score(observation, collection.plus(cards)) - self._score(observation, collection)

    def _score(self, observation: Observation, collection: Collection) -> int:
        key = (collection.counts, observation.scoring, observation.colours)
        score = self._scores.get(key)
        if score is None:
            if len(self._scores) >= _CACHE_LIMIT:
                self._scores.clear()
            score = self._scores[key] = score_collection(collection, observation.colours, observation.scoring).score
        return score
