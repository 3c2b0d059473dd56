"""The shared match queue (arena.store.match_queue) on a real redis-server: each entry to one worker,
kept until acknowledged, taken over once its worker's lease lapses."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from arena.store.match_queue import MatchQueue


async def queue_with(client: aioredis.Redis, *matches: str) -> MatchQueue:
    queue = MatchQueue(client)
    await queue.ensure_group()
    await queue.ensure_group()  # idempotent: every node calls it at start
    for match in matches:
        await client.xadd(queue.stream, {"match_id": match})
    return queue


async def test_each_entry_goes_to_one_worker_and_stays_its_own_until_acknowledged(client: aioredis.Redis) -> None:
    queue = await queue_with(client, "m1", "m2", "m3")
    first = await queue.read_new("node-a", count=2, block_ms=10)
    second = await queue.read_new("node-b", count=5, block_ms=10)
    assert [f["match_id"] for _, f in first] == ["m1", "m2"]
    assert [f["match_id"] for _, f in second] == ["m3"]
    assert await queue.read_new("node-b", count=5, block_ms=10) == []
    length, pending, age = await queue.depth()
    assert (length, pending) == (3, 3) and 0.0 <= age < 60.0
    # Restarted under its id, node A finds what it held; once acknowledged, it is gone.
    assert await queue.read_own_pending("node-a") == first
    await queue.ack([first[0][0]])
    assert [f["match_id"] for _, f in await queue.read_own_pending("node-a")] == ["m2"]
    length, pending, _ = await queue.depth()
    assert (length, pending) == (2, 2)


async def test_an_entry_whose_worker_stopped_touching_it_is_taken_over(client: aioredis.Redis) -> None:
    queue = await queue_with(client, "kept", "abandoned")
    held = await queue.read_new("node-a", count=2, block_ms=10)
    await asyncio.sleep(0.25)
    await queue.touch("node-a", [held[0][0]])  # node A is still working on "kept"
    taken = await queue.reclaim_stale("node-b", min_idle_ms=200, count=10)
    assert [f["match_id"] for _, f in taken] == ["abandoned"]
    assert [f["match_id"] for _, f in await queue.read_own_pending("node-a")] == ["kept"]


async def test_a_worker_renews_only_what_is_still_its_own(client: aioredis.Redis) -> None:
    """A node that stalled past its lease renewed it on waking with XCLAIM, which takes an entry
    from whoever holds it: the entry another node had taken over came back, and both played it.
    A renewal now names what is no longer the node's (taken over, or acknowledged) and leaves it be."""
    queue = await queue_with(client, "stalled", "kept", "done")
    held = await queue.read_new("node-a", count=3, block_ms=10)
    (stalled, _), (kept, _), (done, _) = held
    await asyncio.sleep(0.25)
    assert [f["match_id"] for _, f in await queue.reclaim_stale("node-b", min_idle_ms=200, count=1)] == ["stalled"]
    await queue.ack([done])
    lost = await queue.touch("node-a", [stalled, kept, done])
    assert [f["match_id"] for _, f in await queue.read_own_pending("node-b")] == ["stalled"]
    assert [f["match_id"] for _, f in await queue.read_own_pending("node-a")] == ["kept"]
    assert lost == [stalled, done]
    assert await queue.touch("node-a", []) == []


async def test_the_generation_counts_the_events_that_may_let_a_waiting_match_start(client: aioredis.Redis) -> None:
    queue = await queue_with(client)
    assert await queue.generation() == 0
    await queue.bump()
    await queue.bump()
    assert await queue.generation() == 2
    assert await queue.depth() == (0, 0, 0.0)
