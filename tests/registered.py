"""Which bots are registered, read straight from the store by a test (the arena itself never lists
them all: a read of every bot grows with the arena)."""

from __future__ import annotations

import redis.asyncio as aioredis

from arena.store.redis_stores import key, text

PREFIX = f"{key('bot')}:"


async def registered(client: aioredis.Redis) -> list[str]:
    """Every registered bot's name, sorted."""
    return sorted(text(name)[len(PREFIX) :] for name in await client.keys(PREFIX + "*"))
