"""A first-in first-out box of messages with one consumer, sized for many idle streams.

An ``asyncio.Queue`` holds four deques (its items, getters, putters and its ``join`` event's
waiters), about 3 KiB even when empty: with a queue per bot stream that was a tenth of what an
idle bot costs a node. An empty ``Outbox`` holds no buffer at all, and a message put while its
consumer waits goes straight to that consumer. A consumer that can take each message as it comes
(a transport whose writes never wait) drains the box into a sink instead, and nothing waits at all.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Outbox(Generic[T]):
    """Unbounded; ``put_nowait`` from anywhere on the loop, ``get`` from one consumer at a time."""

    __slots__ = ("_items", "_loop", "_sink", "_waiter")

    def __init__(self) -> None:
        self._items: deque[T] | None = None
        """Messages not yet taken; None while there are none."""
        self._waiter: asyncio.Future[T] | None = None
        """The consumer's pending ``get``, while the box is empty."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The consumer's loop, kept: on Python 3.11 each ``get_running_loop`` is a ``getpid`` system call."""
        self._sink: Callable[[T], None] | None = None
        """Where each message goes as it is put, once ``drain_into`` was called."""

    def __len__(self) -> int:
        return len(self._items) if self._items is not None else 0

    def put_nowait(self, item: T) -> None:
        """Add ``item`` (never blocks)."""
        if self._sink is not None:
            self._sink(item)
            return
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            self._waiter = None
            waiter.set_result(item)
            return
        if self._items is None:
            self._items = deque()
        self._items.append(item)

    def drain_into(self, sink: Callable[[T], None] | None) -> None:
        """From now on hand each message to ``sink`` as it is put, those waiting first, in order
        (None: keep them in the box again). Not while a ``get`` waits."""
        if self._waiter is not None:
            raise RuntimeError("an Outbox drains into a sink or into a waiting get, not both")
        self._sink = sink
        if sink is not None:
            while self._items and self._sink is sink:
                sink(self.get_nowait())

    def get_nowait(self) -> T:
        """The oldest message; ``asyncio.QueueEmpty`` if there is none."""
        items = self._items
        if not items:
            raise asyncio.QueueEmpty
        item = items.popleft()
        if not items:
            self._items = None
        return item

    async def get(self) -> T:
        """The oldest message, waiting for one if the box is empty."""
        if self._items:
            return self.get_nowait()
        if self._waiter is not None:
            raise RuntimeError("an Outbox has one consumer at a time")
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()
        self._waiter = waiter
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed over, then cancelled: keep it first in line
                if self._items is None:
                    self._items = deque()
                self._items.appendleft(waiter.result())
            raise
        finally:
            if self._waiter is waiter:
                self._waiter = None
