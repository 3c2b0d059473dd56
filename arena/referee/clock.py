"""Clocks for the referee: the protocol it is written against, and the real monotonic one (the tests
drive theirs by hand: tests/referee/doubles.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

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
