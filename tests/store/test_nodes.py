"""Node heartbeats and the claim on a node id (arena.store.nodes) on a real redis-server."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from arena.errors import NodeIdTakenError
from arena.store.nodes import NodeDirectory


async def test_live_nodes_are_listed_with_their_load_and_never_their_claim(client: aioredis.Redis) -> None:
    a = NodeDirectory(client, "node-a", "127.0.0.1:1")
    await a.claim({"connected_bots": 3})
    await NodeDirectory(client, "node-b", "127.0.0.1:2").claim({})
    nodes = await a.nodes()
    assert [(n["node_id"], n["address"]) for n in nodes] == [("node-a", "127.0.0.1:1"), ("node-b", "127.0.0.1:2")]
    assert nodes[0]["connected_bots"] == "3"
    assert not any("instance" in n for n in nodes)
    await a.release()
    assert [n["node_id"] for n in await a.nodes()] == ["node-b"]
    assert await client.zrange("arena:nodes", 0, -1) == [b"node-b"]  # given back: not listed


async def test_a_node_that_stopped_beating_drops_out_of_the_list(client: aioredis.Redis) -> None:
    await NodeDirectory(client, "node-a", "127.0.0.1:1", ttl=0.2).claim({})
    await NodeDirectory(client, "node-b", "127.0.0.1:2").claim({})
    await asyncio.sleep(0.3)  # node-a crashed: its heartbeat expired
    assert [n["node_id"] for n in await NodeDirectory(client, "node-c", "127.0.0.1:3").nodes()] == ["node-b"]
    assert await client.zrange("arena:nodes", 0, -1) == [b"node-b"]  # and the list forgot it


async def test_a_node_id_held_by_a_live_node_is_refused_and_a_silent_ones_is_taken_back(
    client: aioredis.Redis,
) -> None:
    holder = NodeDirectory(client, "node-a", "127.0.0.1:1", interval=0.05, ttl=0.4)
    await holder.claim({})
    stop = asyncio.Event()
    beating = asyncio.ensure_future(holder.run(stop, dict))
    second = NodeDirectory(client, "node-a", "127.0.0.1:2", interval=0.05, ttl=0.4)
    with pytest.raises(NodeIdTakenError, match=r"held by another live node \(at 127\.0\.0\.1:1\)"):
        await second.claim({}, poll_seconds=0.1)
    # The holder crashes (stops beating without giving the id back): the id is taken back after its ttl.
    # (Cancelled until it is: Python 3.11's wait_for, inside run, can swallow a cancel that comes as its
    # wait ends, and the holder then beat on for ever: a CI run hung here for 120 s.)
    for _ in range(100):
        beating.cancel()
        await asyncio.wait([beating], timeout=0.05)
        if beating.done():
            break
    assert beating.done(), "the holder's heartbeat would not stop"
    await second.claim({}, poll_seconds=0.05)
    # The new holder beats on (had it stopped, its claim would expire in 0.4 s and a slow machine could
    # let the old instance take the id again: this test then hung on the old one's beating).
    stop_second = asyncio.Event()
    second_beating = asyncio.ensure_future(second.run(stop_second, dict))
    try:
        assert (await second.nodes())[0]["address"] == "127.0.0.1:2"
        lost: list[bool] = []
        assert not await holder.beat({})  # the old instance may not write the id's heartbeat any more
        await asyncio.wait_for(holder.run(asyncio.Event(), dict, lambda: lost.append(True)), 10)
        assert lost == [True]
    finally:
        stop_second.set()
        await asyncio.wait_for(second_beating, 10)
