"""An in-process seat: a built-in policy answering the referee directly (demo, tests, fallbacks)."""

from __future__ import annotations

from typing import Any

from arena.games.base import GameRules, Policy
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection


class PolicySeat:
    """A ``SeatClient`` backed by a policy object; it records what it was told."""

    def __init__(self, game: GameRules[Any, Any, Any], policy: Policy) -> None:
        self.game = game
        self.policy = policy
        self.requests: list[DecisionRequest] = []
        self.rejections: list[Rejection] = []
        self.started: MatchStart | None = None
        self.ended: MatchEnd | None = None

    @property
    def is_connected(self) -> bool:
        """In-process: always."""
        return True

    async def match_started(self, start: MatchStart) -> None:
        """Remember the start."""
        self.started = start

    async def decide(self, request: DecisionRequest) -> str:
        """Ask the policy."""
        self.requests.append(request)
        legal = [self.game.parse_action(text) for text in request.legal_actions]
        return str(self.policy.choose(request.observation, legal))

    async def rejected(self, rejection: Rejection) -> None:
        """Remember the rejection."""
        self.rejections.append(rejection)

    async def match_ended(self, end: MatchEnd) -> None:
        """Remember the end."""
        self.ended = end
