"""A heuristic 5211 policy: it samples the other seats' hidden plays and lays what scores most.

For each legal play it samples, from the cards it cannot see, what the other seats may still lay
this round, scores the round under the rules, and keeps the play with the best expected points
minus a small cost for spending high cards that do not score. It sees only its observation.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from arena.games.g5211.cards import CARDS, COPIES_PER_VALUE, VALUE_OF, Card, Play
from arena.games.g5211.scoring import score_round
from arena.games.g5211.state import Observation

_LEFT_TO_LAY = (4, 2, 1)
"""Cards each seat lays from the start of turn 1, 2, 3 to the end of the round."""
_FULL = Counter({CARDS[c * 6 + v - 1]: n for c in range(5) for v, n in COPIES_PER_VALUE.items()})


class Heuristic5211:
    """Monte-Carlo one-round lookahead over the legal plays."""

    def __init__(self, seed: int | None = None, samples: int = 24, spend_cost: float = 0.35) -> None:
        self._rng = random.Random(seed)
        self._samples = samples
        self._spend_cost = spend_cost

    def choose(self, observation: Observation, legal_actions: Sequence[Play]) -> Play:
        """The play with the best sampled expected points this round."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        unseen = _unseen(observation)
        me = observation.seat if observation.seat is not None else 0
        turn = observation.turn - 1
        others_left = _LEFT_TO_LAY[turn]
        samples = [self._sample_others(unseen, observation, me, others_left) for _ in range(self._samples)]
        best, best_value = legal_actions[0], float("-inf")
        for play in legal_actions:
            total = 0
            mine = observation.laid[me] + play.cards
            for others in samples:
                laid = [mine if seat == me else observation.laid[seat] + others[seat] for seat in range(len(others))]
                total += sum(VALUE_OF[c] for c in score_round(observation.num_players, laid).scored[me])
            value = total / len(samples) - self._spend_cost * sum(VALUE_OF[c] for c in play.cards)
            if value > best_value:
                best, best_value = play, value
        return best

    def _sample_others(
        self, unseen: list[Card], observation: Observation, me: int, count: int
    ) -> list[tuple[Card, ...]]:
        drawn = self._rng.sample(unseen, min(len(unseen), count * (observation.num_players - 1)))
        result: list[tuple[Card, ...]] = []
        for seat in range(observation.num_players):
            if seat == me:
                result.append(())
            else:
                result.append(tuple(drawn[:count]))
                drawn = drawn[count:]
        return result


def _unseen(observation: Observation) -> list[Card]:
    """The cards this seat has not seen in the current deck: others' hands, the pile, removed cards."""
    seen = Counter(observation.hand)
    for cards in observation.laid:
        seen.update(cards)
    # Only this deck's rounds: the longer game reshuffles all 100 cards for each new deck.
    rounds_this_deck = (observation.round - 1) % observation.rounds_per_deck
    for result in observation.history[len(observation.history) - rounds_this_deck :]:
        for cards in result.laid:
            seen.update(cards)
    return list((_FULL - seen).elements())
