"""A work queue on one Redis Stream with one consumer group.

Workers read new entries through the group; an entry stays pending (owned by its worker) until it
is acknowledged, which a worker does only after the match's result is stored. A worker refreshes
the entries it is working on (``touch``); entries left idle longer than the lease — their worker
died, or stalled — are reclaimed by another worker with XAUTOCLAIM. A refresh renews only what is
still the worker's own: one that woke from a stall learns what was taken over, and leaves it be.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from arena.store.leagues import QUEUE_GROUP, QUEUE_STREAM
from arena.store.redis_stores import text
from arena.store.slots import GENERATION_KEY

Entry = tuple[str, dict[str, str]]
"""A stream entry: its id and its fields."""


_TOUCH = """
local owned, lost = {}, {}
for i = 3, #ARGV do
    local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
    if pending[1] and pending[1][2] == ARGV[2] then
        owned[#owned + 1] = ARGV[i]
    else
        lost[#lost + 1] = ARGV[i]
    end
end
for i = 1, #owned, 1000 do
    local claim = {KEYS[1], ARGV[1], ARGV[2], 0}
    for j = i, math.min(i + 999, #owned) do
        claim[#claim + 1] = owned[j]
    end
    claim[#claim + 1] = 'JUSTID'
    redis.call('XCLAIM', unpack(claim))
end
return lost
"""
"""Renew a consumer's entries (reset their idle time) and name those no longer its own: XCLAIM
alone would take them from whoever holds them now."""


def _entries(raw: object) -> list[Entry]:
    result: list[Entry] = []
    for entry_id, fields in raw or []:  # type: ignore[attr-defined]
        if fields is None:  # deleted while pending
            continue
        result.append((text(entry_id), {text(k): text(v) for k, v in fields.items()}))
    return result


def _read_reply(raw: object) -> list[Entry]:
    """The entries of an XREADGROUP reply on one stream (RESP2: ``[[stream, entries]]``)."""
    return _entries(raw[0][1]) if raw else []  # type: ignore[index]


class MatchQueue:
    """The queue of matches to referee, shared by every node."""

    def __init__(self, client: aioredis.Redis, stream: str = QUEUE_STREAM, group: str = QUEUE_GROUP) -> None:
        self.r = client
        self.stream = stream
        self.group = group
        self._touch = client.register_script(_TOUCH)

    async def ensure_group(self) -> None:
        """Create the stream and the consumer group if they do not exist."""
        try:
            await self.r.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def read_new(self, consumer: str, count: int, block_ms: int) -> list[Entry]:
        """Up to ``count`` entries no worker has seen, waiting up to ``block_ms`` for one."""
        raw = await self.r.xreadgroup(self.group, consumer, {self.stream: ">"}, count=count, block=block_ms)
        return _read_reply(raw)

    async def read_own_pending(self, consumer: str, count: int = 1000) -> list[Entry]:
        """Entries this consumer name holds but never acknowledged (after a restart)."""
        raw = await self.r.xreadgroup(self.group, consumer, {self.stream: "0"}, count=count)
        return _read_reply(raw)

    async def reclaim_stale(self, consumer: str, min_idle_ms: int, count: int) -> list[Entry]:
        """Take over entries idle for ``min_idle_ms`` (their worker is presumed dead)."""
        result = await self.r.xautoclaim(self.stream, self.group, consumer, min_idle_ms, "0-0", count=count)
        return _entries(result[1])

    async def touch(self, consumer: str, entry_ids: Sequence[str]) -> list[str]:
        """Reset the idle time of entries this worker is still working on (its lease); returns those
        of them that are no longer its own (another worker took them over, or they were acknowledged),
        which it must give up."""
        if not entry_ids:
            return []
        lost = await self._touch(keys=[self.stream], args=[self.group, consumer, *entry_ids])
        return [text(entry_id) for entry_id in lost]

    async def ack(self, entry_ids: Sequence[str]) -> None:
        """Done with these entries: acknowledge and delete them."""
        if entry_ids:
            async with self.r.pipeline(transaction=True) as pipe:
                pipe.xack(self.stream, self.group, *entry_ids)
                pipe.xdel(self.stream, *entry_ids)
                await pipe.execute()

    async def generation(self) -> int:
        """The current count of events that can let a waiting match start (see ``bump``)."""
        return int(await self.r.get(GENERATION_KEY) or 0)

    async def bump(self) -> None:
        """Tell every worker that a waiting match may start now."""
        await self.r.incr(GENERATION_KEY)

    async def depth(self) -> tuple[int, int, float]:
        """(entries not yet acknowledged, of which pending at a worker, age in seconds of the oldest)."""
        length = int(await self.r.xlen(self.stream))
        pending = 0
        try:
            summary = await self.r.xpending(self.stream, self.group)
            pending = int(summary["pending"])
        except ResponseError:
            pass
        oldest = await self.r.xrange(self.stream, count=1)
        age = 0.0
        if oldest:
            millis = int(text(oldest[0][0]).split("-")[0])
            age = max(0.0, time.time() - millis / 1000)
        return length, pending, age
