"""The policy interface, and the random policy every game has (each game's are in its catalogue entry)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.games.base import Policy

__all__ = ["EpsilonPolicy", "Policy", "RandomPolicy"]


class RandomPolicy:
    """Uniform over the distinct legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """A uniformly random legal action."""
        return self._rng.choice(legal_actions)


class EpsilonPolicy:
    """Another policy that plays a uniformly random legal action instead with probability ``epsilon``:
    ``epsilon`` 0 is the policy itself, 1 the random policy, and in between graded strengths."""

    def __init__(self, policy: Policy, epsilon: float, seed: int | None = None) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {epsilon!r}")
        self.policy = policy
        self.epsilon = epsilon
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """The policy's choice, or with probability ``epsilon`` a uniformly random legal action."""
        if self.epsilon and self._rng.random() < self.epsilon:
            return self._rng.choice(legal_actions)
        return self.policy.choose(observation, legal_actions)
