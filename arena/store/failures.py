"""Refused Hellos and wrong admin tokens counted across the arena, per peer address.

Each node locks out an address on its own count (``arena.service.limits.Lockout``); it also adds every
failure it sees to ``arena:failures:{kind}:{address}`` and takes the arena's count when it is higher,
so an address that spreads its guesses over the nodes (or over the workers of one ``arena serve
--workers N``) is locked out after as many in all as one node allows, give or take one a node. The
count is forgotten after ``forget_seconds`` without a failure, as each node's is.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from arena.store.redis_stores import STORE_ERRORS, key

_COUNT = """
local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
"""


class FailureKind(enum.StrEnum):
    """What was refused (each kind counted apart, as each node counts them: ``ArenaNode``'s lockouts)."""

    ADMIN_TOKEN = "admin"
    HELLO = "hello"


class SharedFailures:
    """The arena's failure counts (only failures reach Redis: a right token costs nothing here)."""

    def __init__(self, client: aioredis.Redis, forget_seconds: float) -> None:
        self._count = client.register_script(_COUNT)
        self.forget_ms = int(forget_seconds * 1000)

    def counter(self, kind: FailureKind) -> Callable[[str], Awaitable[int]]:
        """Adds one failure of ``kind`` from an address; returns the arena's count for it, or 0 when the
        store cannot be reached (each node then goes by its own count)."""

        async def count(address: str) -> int:
            try:
                stored = await self._count(keys=[key(f"failures:{kind.value}", address[:200])], args=[self.forget_ms])
            except STORE_ERRORS:
                return 0
            return int(stored)

        return count
