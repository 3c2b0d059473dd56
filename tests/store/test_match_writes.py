"""What a match costs the store: one call at its start, one at its end.

Found measuring where a 2-player node's time goes (BENCHMARKS.md, stop 37): `MONITOR` showed six
round trips to Redis a match, each 230-310 µs of the node's CPU in redis-py: the bots' registration
(a pipeline), the slots' claim and the running list's entry (a script each) at the start; the slots'
release (a transaction), the record's save and the unlisting (a script each) at the end. Spread over
a 2-player 5211 match's 66 decisions, that was some 20 µs a decision.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as aioredis

from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import key
from tests.grpc.rawbot import RawBot
from tests.test_cross_node import in_process_node, register, start_5211

BOTS = ("writes-ann", "writes-bob")


@contextlib.asynccontextmanager
async def monitored(url: str) -> AsyncIterator[list[dict[str, Any]]]:
    """Every command Redis runs meanwhile (``MONITOR``), as redis-py parses them."""
    seen: list[dict[str, Any]] = []
    client = aioredis.Redis.from_url(url)
    started = asyncio.Event()

    async def listen() -> None:
        async with client.monitor() as monitor:
            started.set()
            async for command in monitor.listen():
                seen.append(command)

    task = asyncio.ensure_future(listen())
    try:
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.sleep(0.1)  # MONITOR answered before the first command is watched
        yield seen
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await client.aclose()


async def connected(channel: grpc.aio.Channel, address: str, capacity: int) -> list[RawBot]:
    """``BOTS``, registered, connected to ``address`` with this capacity, and welcomed."""
    tokens = await register(channel, BOTS)
    bots = [RawBot(address, tokens[name], capacity=capacity).start() for name in BOTS]
    for bot in bots:
        await asyncio.wait_for(bot.welcomed.wait(), 10)
    return bots


async def test_a_match_costs_the_store_one_call_at_its_start_and_one_at_its_end(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    probe = aioredis.Redis.from_url(redis7.url, single_connection_client=True)
    bots: list[RawBot] = []
    try:
        # The heartbeat (which refreshes slots and says where the bots are) beats once, at the start.
        async with in_process_node(redis7.url, "node-w", tmp_path / "w", heartbeat_seconds=60.0) as node:
            address = f"127.0.0.1:{node.port}"
            async with grpc.aio.insecure_channel(address) as channel:
                bots = await connected(channel, address, capacity=2)
                first = (await start_5211(channel, BOTS, seed=1)).match_id  # scripts loaded, the bots seen
                await bots[0].wait_ended(first)
                probe_port = str((await probe.client_info())["addr"]).rsplit(":", 1)[1]
                async with monitored(redis7.url) as seen:
                    match_id = (await start_5211(channel, BOTS, seed=2)).match_id
                    await bots[0].wait_ended(match_id)
                    for _ in range(100):  # whatever the node writes after the end, written
                        if not await probe.exists(key("running-match", match_id)) and await probe.exists(
                            key("record", match_id)
                        ):
                            break
                        await asyncio.sleep(0.05)
                    await asyncio.sleep(0.2)
    finally:
        for bot in bots:
            await bot.stop()
        await probe.aclose()
    about = (match_id, *BOTS)
    calls = [
        " ".join(map(str, c["command"])) if isinstance(c["command"], list) else str(c["command"])
        for c in seen
        if c.get("client_type") != "lua" and str(c.get("client_port")) != probe_port
    ]
    mine = [c for c in calls if any(name in c for name in about)]
    assert len(mine) == 2, f"a match ran {len(mine)} commands on the store: {[c[:120] for c in mine]}"
    assert all(c.upper().startswith("EVALSHA") for c in mine), mine


class FailingOnce:
    """The node's real record store, whose next call of several stores' writes fails as if Redis
    had gone (``fail_next``), before running anything."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.fail_next = False

    async def together(self, calls: Any) -> Any:
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("Redis went away (a test's)")
        return await self.store.together(calls)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_an_end_whose_one_call_fails_is_written_part_by_part(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """The end's call failed (Redis away): the slots are freed, the record kept and the match
    unlisted all the same, each on its own with its own retries."""
    probe = aioredis.Redis.from_url(redis7.url)
    bots: list[RawBot] = []
    try:
        async with in_process_node(redis7.url, "node-f", tmp_path / "f") as node:
            store = node.node.matches.store = FailingOnce(node.node.matches.store)
            address = f"127.0.0.1:{node.port}"
            async with grpc.aio.insecure_channel(address) as channel:
                bots = await connected(channel, address, capacity=1)
                match_id = (await start_5211(channel, BOTS, seed=3)).match_id
                store.fail_next = True  # the start's call is made: the next is the end's
                record = await asyncio.wait_for(node.node.matches.wait(match_id), 30)
                assert not store.fail_next, "the end made no call of several writes"
                assert record.outcome is not None
                assert await probe.exists(key("record", match_id))
                for _ in range(200):
                    held = [await probe.zscore(key("slots", bot), f"{match_id}#1") for bot in BOTS]
                    listed = await probe.exists(key("running-match", match_id))
                    if held == [None, None] and not listed:
                        break
                    await asyncio.sleep(0.05)
                assert held == [None, None], "the slots stayed held"
                assert not listed, "the match stayed listed"
                second = (await start_5211(channel, BOTS, seed=4)).match_id  # both bots free again
                assert (await asyncio.wait_for(node.node.matches.wait(second), 30)).outcome is not None
    finally:
        for bot in bots:
            await bot.stop()
        await probe.aclose()
