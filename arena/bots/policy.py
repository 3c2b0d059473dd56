"""The policy interface and the registry of built-in policies by game and name."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from arena.bots.heuristic5211 import Heuristic5211
from arena.errors import UnknownGameError


class Policy(Protocol):
    """Chooses an action for one seat from what that seat may see."""

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """One of ``legal_actions``."""
        ...


class RandomPolicy:
    """Uniform over the distinct legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """A uniformly random legal action."""
        return self._rng.choice(legal_actions)


POLICIES: dict[tuple[str, str], Callable[[int | None], Policy]] = {
    ("5211", "random"): RandomPolicy,
    ("5211", "heuristic"): Heuristic5211,
}
"""Built-in policies by (game, name); each factory takes a seed."""


def get_policy(game: str, name: str, seed: int | None = None) -> Policy:
    """A new built-in policy; raises ``UnknownGameError`` if there is none of that name."""
    try:
        factory = POLICIES[(game, name)]
    except KeyError:
        known = sorted(n for g, n in POLICIES if g == game)
        raise UnknownGameError(f"no built-in policy {name!r} for game {game!r}; known: {known}") from None
    return factory(seed)
