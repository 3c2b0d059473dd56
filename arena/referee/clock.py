"""Clocks for the referee: the real monotonic one, and a manual one so timeout tests never sleep."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Cancellable(Protocol):
    """A scheduled call that can be called off."""

    def cancel(self) -> object:
        """Do not make the call (no effect once made)."""
        ...


class Clock(Protocol):
    """Time as the referee sees it, in seconds."""

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Cancellable:
        """Call ``callback`` once ``seconds`` have passed."""
        ...

    def now(self) -> float:
        """The current time (only differences matter)."""
        ...

    def wall(self) -> float:
        """The current wall-clock time as a Unix timestamp (for deadlines sent to bots)."""
        ...

    async def wait_for(self, awaitable: Awaitable[T], seconds: float) -> T:
        """Await ``awaitable``, raising ``TimeoutError`` once ``seconds`` have passed."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Pause for ``seconds``."""
        ...


class MonotonicClock:
    """The real clock: the event loop's monotonic time."""

    def now(self) -> float:
        """The loop's monotonic time."""
        return time.monotonic()

    def wall(self) -> float:
        """Unix time."""
        return time.time()

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Cancellable:
        """``loop.call_later`` on the running loop."""
        return asyncio.get_running_loop().call_later(max(seconds, 0.0), callback)

    async def wait_for(self, awaitable: Awaitable[T], seconds: float) -> T:
        """Await with a deadline on the real clock (``asyncio.timeout``: no extra task per wait)."""
        async with asyncio.timeout(max(seconds, 0.0)):
            return await awaitable

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep``."""
        await asyncio.sleep(seconds)


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
