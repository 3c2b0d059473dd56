"""Starter bots: a uniformly random one that plays every game, and the arena's built-in policies.

:class:`RandomBot` answers from ``turn.legal_actions`` alone, so it plays every game the arena
hosts, known to this SDK or not. :class:`PolicyBot` plays one of the built-in policies of the
arena's catalogue (``heuristic`` for every game, ``hasty`` for 5211) on the engine observation the
SDK builds from the wire, so it sees exactly what the seat may know.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from typing import Any

from arena import catalogue
from arena.bots.policy import EpsilonPolicy, Policy
from arena_bot.bot import Bot
from arena_bot.types import MatchResult, Turn


class RandomBot(Bot):
    """Plays a uniformly random legal action, in any game (it reads nothing but the legal actions)."""

    games: Sequence[str] = ()

    def __init__(self, seed: int | None = None, game: str | None = None) -> None:
        self._rng = random.Random(seed)
        if game is not None:
            self.games = (game,)

    async def act(self, turn: Turn) -> str:
        """A random legal action (on the event loop: it never blocks, so no worker thread is needed)."""
        if not turn.legal_actions:
            raise ValueError(f"match {turn.match_id}: the server listed no legal actions ({turn.action_hint})")
        return self._rng.choice(turn.legal_actions)


class PolicyBot(Bot):
    """A built-in policy of the arena's catalogue, one per match, seeded from ``seed`` and the match id.

    It plays the games whose catalogue entry has a policy of that name (or just ``game``).
    """

    policy_name = "heuristic"
    epsilon = 0.0
    """The chance of a uniformly random legal action instead of the policy's (graded strengths)."""

    def __init__(self, seed: int | None = None, game: str | None = None) -> None:
        hosted = tuple(name for name in catalogue.names() if self.policy_name in catalogue.entry(name).policies)
        if game is not None and game not in hosted:
            raise ValueError(f"no {self.policy_name} bot for game {game!r}; it plays {', '.join(hosted)}")
        self.games = (game,) if game is not None else hosted
        self._seed = seed
        self._policies: dict[str, Policy] = {}
        self._lock = threading.Lock()

    def _policy(self, game: str, match_id: str) -> Policy:
        with self._lock:
            policy = self._policies.get(match_id)
            if policy is None:
                seed = None if self._seed is None else random.Random(f"{self._seed}/{match_id}").getrandbits(64)
                policy = catalogue.policy(game, self.policy_name, seed)
                if self.epsilon:
                    policy = EpsilonPolicy(policy, self.epsilon, None if seed is None else seed + 1)
                self._policies[match_id] = policy
            return policy

    def act(self, turn: Turn) -> Any:
        """The policy's choice among the legal actions."""
        if turn.game not in self.games or turn.observation is None:
            raise ValueError(f"{type(self).__name__} plays {', '.join(self.games)}, not {turn.game!r}")
        rules = catalogue.entry(turn.game).rules
        legal = [rules.parse_action(text) for text in turn.legal_actions]
        if not legal:
            raise ValueError(f"match {turn.match_id}: the server listed no legal actions")
        return self._policy(turn.game, turn.match_id).choose(turn.observation, legal)

    def on_match_end(self, result: MatchResult) -> Any:
        """Forget the match's policy."""
        with self._lock:
            self._policies.pop(result.match_id, None)


class HeuristicBot(PolicyBot):
    """The arena's built-in heuristic of each game (5211: a Monte-Carlo one-round lookahead; Coloretto:
    a greedy valuation of the rows)."""

    policy_name = "heuristic"


class HastyBot(PolicyBot):
    """5211: the heuristic with a glance instead of a look (2 samples): quicker and weaker."""

    policy_name = "hasty"


BOTS: dict[str, type[RandomBot] | type[PolicyBot]] = {"random": RandomBot, "heuristic": HeuristicBot, "hasty": HastyBot}
"""The starter bots by the name ``python -m arena_bot`` knows them by; each takes a seed and a game."""
