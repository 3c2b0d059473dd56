"""A heuristic FOOL! policy: stay out of the Fool's seat and shed the costly cards first.

It sees only its observation. Being a Fool costs a trick (the seat sits out and keeps a card), so
it plays the card least likely to be the worst of the trick, which is also the most expensive to
keep: the highest card of the lead colour; void in it, a wild (a wild follows, so it beats every
off-colour card), else the highest off-colour card. Leading, it plays its highest card in the
colour it holds most of, so the others must follow below it. Deterministic: ties go to the first
card in notation order, and the seed is kept only for the common policy signature.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from arena.games.fool.cards import COLOUR_OF, VALUE_OF, WILD, Card
from arena.games.fool.state import Observation


class HeuristicFool:
    """Plays high where it must follow, wild when void, and leads its longest colour's top card."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal_actions: Sequence[Card]) -> Card:
        """One of ``legal_actions``."""
        if len(legal_actions) == 1:
            return legal_actions[0]
        lead = observation.lead_colour
        plain = [c for c in legal_actions if c is not WILD]
        if lead is None:
            if not plain:
                return WILD
            length = Counter(COLOUR_OF[c] for c in observation.hand if c is not WILD)
            return max(plain, key=lambda c: (length[COLOUR_OF[c]], VALUE_OF[c]))
        following = [c for c in plain if COLOUR_OF[c] is lead]
        if following:
            return max(following, key=VALUE_OF.__getitem__)
        if WILD in legal_actions:
            return WILD
        return max(plain, key=VALUE_OF.__getitem__)
