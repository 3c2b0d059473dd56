"""The bot stream's outbox: first in first out, one waiting consumer, and next to nothing when empty."""

from __future__ import annotations

import asyncio
import tracemalloc

import pytest

from arena.service.outbox import Outbox
from arena.service.sessions import Connection, SessionHub


def test_an_empty_outbox_holds_no_buffer() -> None:
    # An asyncio.Queue holds four deques (about 3 KiB) when empty: one per idle bot stream adds up.
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        boxes = [Outbox[int]() for _ in range(1000)]
        per_box = (tracemalloc.get_traced_memory()[0] - before) / len(boxes)
    finally:
        tracemalloc.stop()
    assert per_box < 128, f"{per_box:.0f} bytes per empty outbox"


def test_an_idle_connection_costs_under_a_kib() -> None:
    hub = SessionHub(clock=None)  # type: ignore[arg-type]  # connect() reads no time
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        connections: list[Connection] = [hub.connect(f"bot-{n:04d}", ["5211"], 1) for n in range(500)]
        per_connection = (tracemalloc.get_traced_memory()[0] - before) / len(connections)
    finally:
        tracemalloc.stop()
    assert per_connection < 1024, f"{per_connection:.0f} bytes per idle connection and its session"


async def test_messages_come_out_in_order_whether_or_not_the_consumer_waits() -> None:
    box = Outbox[int]()
    box.put_nowait(1)
    box.put_nowait(2)
    assert [await box.get(), box.get_nowait()] == [1, 2]
    assert len(box) == 0
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait(3)
    box.put_nowait(4)
    assert await waiting == 3
    assert await box.get() == 4


async def test_a_consumer_cancelled_after_the_hand_over_leaves_the_message_first_in_line() -> None:
    box = Outbox[str]()
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait("first")  # handed to the waiting get, which has not run yet
    box.put_nowait("second")
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert [await box.get(), await box.get()] == ["first", "second"]


async def test_a_cancelled_wait_lets_the_next_consumer_wait() -> None:
    box = Outbox[int]()
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    again = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    box.put_nowait(7)
    assert await again == 7


async def test_one_consumer_at_a_time() -> None:
    box = Outbox[int]()
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one consumer"):
        await box.get()
    box.put_nowait(1)
    assert await waiting == 1


async def test_a_sink_takes_what_waits_first_then_each_message_as_it_is_put() -> None:
    box = Outbox[int]()
    box.put_nowait(1)
    box.put_nowait(2)
    taken: list[int] = []
    box.drain_into(taken.append)
    assert taken == [1, 2] and len(box) == 0
    box.put_nowait(3)
    assert taken == [1, 2, 3]
    box.drain_into(None)  # back to a box
    box.put_nowait(4)
    assert taken == [1, 2, 3] and await box.get() == 4


async def test_a_box_drains_into_a_sink_or_a_waiting_get_not_both() -> None:
    box = Outbox[int]()
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="not both"):
        box.drain_into(print)
    box.put_nowait(5)
    assert await waiting == 5
