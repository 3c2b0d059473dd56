"""The policy interface, and the random policy every game has (each game's are in its catalogue entry)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.games.base import Policy

__all__ = ["Policy", "RandomPolicy"]


class RandomPolicy:
    """Uniform over the distinct legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """A uniformly random legal action."""
        return self._rng.choice(legal_actions)
