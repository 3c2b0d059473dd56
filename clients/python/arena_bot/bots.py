"""Starter bots: a uniformly random one (any game) and the arena's 5211 heuristic."""

from __future__ import annotations

import random
import threading
from typing import Any

from arena.bots.heuristic5211 import Heuristic5211
from arena.games.g5211.cards import Play
from arena_bot.bot import Bot
from arena_bot.types import MatchResult, Turn


class RandomBot(Bot):
    """Plays a uniformly random legal action, in any game that lists its legal actions."""

    games = ("5211",)

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    async def act(self, turn: Turn) -> str:
        """A random legal action (on the event loop: it never blocks, so no worker thread is needed)."""
        if not turn.legal_actions:
            raise ValueError(f"match {turn.match_id}: the server listed no legal actions ({turn.action_hint})")
        return self._rng.choice(turn.legal_actions)


class HeuristicBot(Bot):
    """5211: the arena's built-in heuristic (a Monte-Carlo one-round lookahead) on the seat's view.

    It reasons over the engine's ``Observation`` that the SDK builds from the wire message, so it sees
    exactly what the seat may know. One policy per match, seeded from ``seed`` and the match id.
    """

    games = ("5211",)

    def __init__(self, seed: int | None = None, samples: int = 24) -> None:
        self._seed = seed
        self._samples = samples
        self._policies: dict[str, Heuristic5211] = {}
        self._lock = threading.Lock()

    def _policy(self, match_id: str) -> Heuristic5211:
        with self._lock:
            policy = self._policies.get(match_id)
            if policy is None:
                seed = None if self._seed is None else random.Random(f"{self._seed}/{match_id}").getrandbits(64)
                policy = self._policies[match_id] = Heuristic5211(seed, self._samples)
            return policy

    def act(self, turn: Turn) -> Play:
        """The heuristic's choice among the legal plays."""
        if turn.game != "5211" or turn.observation is None:
            raise ValueError(f"HeuristicBot plays 5211, not {turn.game!r}")
        legal = [Play.parse(text) for text in turn.legal_actions]
        if not legal:
            raise ValueError(f"match {turn.match_id}: the server listed no legal actions")
        return self._policy(turn.match_id).choose(turn.observation, legal)

    def on_match_end(self, result: MatchResult) -> Any:
        """Forget the match's policy."""
        with self._lock:
            self._policies.pop(result.match_id, None)


class HastyBot(HeuristicBot):
    """5211: the same heuristic with a glance instead of a look (2 samples): quicker and weaker."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, samples=2)


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "heuristic": HeuristicBot, "hasty": HastyBot}
"""The starter bots by the name ``python -m arena_bot`` knows them by."""
