"""Node liveness and identity: each node keeps a heartbeat hash in Redis that expires unless refreshed.

``arena:node:{id}`` holds the node's address, start time, last heartbeat and load; it expires
``ttl`` seconds after the last refresh, so a dead node disappears from the list on its own.
``arena:nodes`` scores each node's id by when its hash expires: the list reads it, not the
keyspace (a ``SCAN`` for the hashes walked every key stored, a thousand a round trip, on each view
of the web site's home page).

The hash is also the node's claim on its id (which is its consumer name on the match queue, so
two live nodes with one id would take each other's matches): it carries a random ``instance``
token, and a heartbeat renews it only while the token is still ours. A node starting under an id
held by another live instance refuses to start; one restarted after a crash waits until the old
heartbeat expires (at most ``ttl``) and takes its id back; a graceful stop gives the id back as it
ends (once its matches are over).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from arena.errors import NodeIdTakenError
from arena.store.redis_stores import key, text

log = logging.getLogger(__name__)

MISSED_BEATS = 3
"""A node whose heartbeat is this many beats late counts as gone: its entry expires."""

NODES_KEY = key("nodes")
"""The live nodes' ids, scored by when their heartbeat expires (seconds since the epoch)."""

# Write the heartbeat unless another instance holds the id: KEYS[1] the node's hash, KEYS[2] the
# nodes' zset; ARGV[1] our instance token, ARGV[2] the expiry in ms, ARGV[3] the expiry time,
# ARGV[4] the node's id, then field/value pairs. 1 if written, 0 if held.
_BEAT = """
local holder = redis.call('HGET', KEYS[1], 'instance')
if holder and holder ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'instance', ARGV[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
"""

# Give the id back, if it is still ours (KEYS as _BEAT's; ARGV: our instance token, the node's id).
_RELEASE = """
if redis.call('HGET', KEYS[1], 'instance') == ARGV[1] then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class NodeDirectory:
    """This node's heartbeat, and the list of every live node."""

    def __init__(
        self, client: aioredis.Redis, node_id: str, address: str, interval: float = 2.0, ttl: float | None = None
    ) -> None:
        self.r = client
        self.node_id = node_id
        self.address = address
        self.interval = interval
        self.ttl = interval * MISSED_BEATS if ttl is None else ttl
        self.started_at = time.time()
        self.instance = secrets.token_hex(16)
        """This process's claim on ``node_id``; kept in the heartbeat, never listed."""
        self._beat = client.register_script(_BEAT)
        self._release = client.register_script(_RELEASE)
        self._beating = asyncio.Lock()
        """One heartbeat at a time: one written after ``address`` changed is the last to land."""

    async def beat(self, load: Mapping[str, int]) -> bool:
        """Write one heartbeat with the node's current load; False if another instance holds the id."""
        async with self._beating:
            fields: dict[str, object] = {
                "node_id": self.node_id,
                "address": self.address,
                "started_at": self.started_at,
                "heartbeat_at": time.time(),
                **load,
            }
            pairs = [str(item) for pair in fields.items() for item in pair]
            expires = repr(time.time() + self.ttl)
            args: list[str | int] = [self.instance, int(self.ttl * 1000), expires, self.node_id, *pairs]
            return bool(await self._beat(keys=[key("node", self.node_id), NODES_KEY], args=args))

    async def claim(self, load: Mapping[str, int], poll_seconds: float = 0.25) -> None:
        """Take this node's id, with a first heartbeat; raise ``NodeIdTakenError`` if another live
        node holds it. A holder that stops beating (it crashed) is waited out: at most ``ttl``."""
        held_beat: str | None = None
        deadline = time.monotonic() + self.ttl + self.interval
        while not await self.beat(load):
            holder = {text(k): text(v) for k, v in (await self.r.hgetall(key("node", self.node_id))).items()}
            beat_at = holder.get("heartbeat_at")
            if held_beat is None:
                held_beat = beat_at
            elif (beat_at is not None and beat_at != held_beat) or time.monotonic() > deadline:
                raise NodeIdTakenError(
                    f"node id {self.node_id!r} is held by another live node (at {holder.get('address', '?')!s:.80}): "
                    "give this node another --node-id, or stop the other one first"
                )
            await asyncio.sleep(poll_seconds)

    async def run(
        self, stop: asyncio.Event, load: Callable[[], Mapping[str, int]], on_lost: Callable[[], None] | None = None
    ) -> None:
        """Beat every ``interval`` until ``stop``; then give the id back. If another instance took
        the id meanwhile (this node was silent past ``ttl``), stop beating and call ``on_lost``."""
        while not stop.is_set():
            try:
                if not await self.beat(load()):
                    log.error("node id %r was taken by another node; this node stops", self.node_id)
                    if on_lost is not None:
                        on_lost()
                    return
            except (RedisError, OSError) as error:
                log.warning("heartbeat failed: %s", error)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.interval)
        await self.release()

    async def release(self) -> None:
        """Remove this node's entry, if the id is still ours."""
        with contextlib.suppress(RedisError, OSError):
            await self._release(keys=[key("node", self.node_id), NODES_KEY], args=[self.instance, self.node_id])

    async def nodes(self) -> list[dict[str, str]]:
        """Every node with a live heartbeat, by id (without their instance tokens): two round trips."""
        now = time.time()
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(NODES_KEY, "-inf", now)
            pipe.zrangebyscore(NODES_KEY, now, "+inf")
            _, ids = await pipe.execute()
        if not ids:
            return []
        async with self.r.pipeline(transaction=False) as pipe:
            for node_id in ids:
                pipe.hgetall(key("node", text(node_id)))
            hashes = await pipe.execute()
        found = [{text(k): text(v) for k, v in values.items() if text(k) != "instance"} for values in hashes if values]
        return sorted(found, key=lambda node: node.get("node_id", ""))
