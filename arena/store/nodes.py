"""Node liveness: each node keeps a heartbeat hash in Redis that expires unless refreshed.

``arena:node:{id}`` holds the node's address, start time, last heartbeat and load; it expires
``ttl`` seconds after the last refresh, so a dead node disappears from the list on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from arena.store.redis_stores import key, text

log = logging.getLogger(__name__)


class NodeRegistry:
    """This node's heartbeat, and the list of every live node."""

    def __init__(
        self, client: aioredis.Redis, node_id: str, address: str, interval: float = 2.0, ttl: float = 6.0
    ) -> None:
        self.r = client
        self.node_id = node_id
        self.address = address
        self.interval = interval
        self.ttl = ttl
        self.started_at = time.time()

    async def beat(self, load: Mapping[str, int]) -> None:
        """Write one heartbeat with the node's current load."""
        fields: dict[str, object] = {
            "node_id": self.node_id,
            "address": self.address,
            "started_at": self.started_at,
            "heartbeat_at": time.time(),
            **load,
        }
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.hset(key("node", self.node_id), mapping=fields)  # type: ignore[arg-type]
            pipe.pexpire(key("node", self.node_id), int(self.ttl * 1000))
            await pipe.execute()

    async def run(self, stop: asyncio.Event, load: Callable[[], Mapping[str, int]]) -> None:
        """Beat every ``interval`` until ``stop``; then remove this node's entry."""
        while not stop.is_set():
            try:
                await self.beat(load())
            except (RedisError, OSError) as error:
                log.warning("heartbeat failed: %s", error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval)
        with contextlib.suppress(RedisError, OSError):
            await self.r.delete(key("node", self.node_id))

    async def nodes(self) -> list[dict[str, str]]:
        """Every node with a live heartbeat, by id."""
        found = []
        async for name in self.r.scan_iter(match=key("node", "*"), count=1000):
            values = await self.r.hgetall(name)
            if values:
                found.append({text(k): text(v) for k, v in values.items()})
        return sorted(found, key=lambda node: node.get("node_id", ""))
