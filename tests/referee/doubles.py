"""The referee's test doubles: a clock that moves only when told, an in-process seat backed by a
policy, and the outcome a record replays to. Only tests use them, so they live here."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from arena.games.base import GameRules, Outcome, Policy, Termination
from arena.games.lookup import get_game
from arena.referee.clock import Cancellable
from arena.referee.record import MatchRecord, final_outcome, final_state
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection

T = TypeVar("T")


class ManualClock:
    """A clock that only moves when told to: ``advance`` fires every timer that falls due."""

    def __init__(self, start: float = 1_000.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        """The manual time."""
        return self._now

    def wall(self) -> float:
        """The manual time, read as a Unix timestamp."""
        return self._now

    def _timer(self, seconds: float) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if seconds <= 0:
            future.set_result(None)
        else:
            heapq.heappush(self._timers, (self._now + seconds, next(self._order), future))
        return future

    async def sleep(self, seconds: float) -> None:
        """Wait until the clock has been advanced by ``seconds``."""
        await self._timer(seconds)

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Cancellable:
        """Call ``callback`` when the clock has been advanced by ``seconds``."""
        timer = self._timer(seconds)
        timer.add_done_callback(lambda done: None if done.cancelled() else callback())
        return timer

    async def wait_for(self, awaitable: Awaitable[T], seconds: float) -> T:
        """Race ``awaitable`` against a manual timer.

        Raises ``TimeoutError`` when the manual time passes ``seconds`` first.
        """
        task = asyncio.ensure_future(awaitable)
        timer = self._timer(seconds)
        try:
            waiters: set[asyncio.Future[Any]] = {task, timer}
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
        if task.done():
            return task.result()
        task.cancel()
        raise TimeoutError

    async def advance(self, seconds: float) -> None:
        """Move time forward, firing due timers in order, and let the woken tasks run."""
        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            due, _, future = heapq.heappop(self._timers)
            self._now = due
            if not future.done():
                future.set_result(None)
            await _settle()
        self._now = target
        await _settle()


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


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


def replay(record: MatchRecord) -> Outcome:
    """Play the recorded actions through the rules again and return the outcome they give, forfeits
    applied as the referee applies them (raises as :func:`replay_states`)."""
    outcome = get_game(record.game).outcome(final_state(record))
    if outcome is None:
        # The match was aborted before the rules ended it.
        return Outcome(Termination.ABORTED, (), (), frozenset(record.forfeits))
    return final_outcome(outcome, record.forfeits)
