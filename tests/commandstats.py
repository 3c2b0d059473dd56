"""How many commands a Redis server ran since its statistics were last reset (``CONFIG RESETSTAT``):
what a call cost the store, counted where it cannot be missed."""

from __future__ import annotations

import redis.asyncio as aioredis

UNCOUNTED = frozenset({"cmdstat_info", "cmdstat_config"})
"""The counting's own commands."""


async def commands_run(client: aioredis.Redis) -> int:
    """Commands run since the last ``CONFIG RESETSTAT`` (those a script runs included), but the counting's own."""
    stats = await client.info("commandstats")
    return sum(int(entry["calls"]) for name, entry in stats.items() if name not in UNCOUNTED)
