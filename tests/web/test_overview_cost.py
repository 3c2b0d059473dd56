"""The home page costs what it shows, whatever the store holds.

Found looking for reads that grow with the arena: the overview (``/`` and ``/api/overview``,
unauthenticated) and ``ListNodes`` listed the live nodes with a ``SCAN`` of the whole keyspace for
their heartbeat hashes: with a million keys stored (records, their summaries and index entries, the
bots'), one page view walked all of them, a thousand per round trip.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp

from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect
from arena.web.site import start_web
from tests.commandstats import commands_run
from tests.test_cross_node import in_process_node

STORED = 60_000
"""Keys that are not the nodes'."""


async def test_the_overview_reads_the_live_nodes_not_the_whole_store(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    client = connect(redis7.url)
    try:
        async with in_process_node(redis7.url, "node-a", tmp_path / "a") as a:
            web = await start_web(a.node, "127.0.0.1", 0)
            try:
                async with client.pipeline(transaction=False) as pipe:  # what finished matches leave
                    for i in range(STORED):
                        pipe.set(f"arena:summary:m{i}", "{}")
                    await pipe.execute()
                async with aiohttp.ClientSession() as session:
                    await client.config_resetstat()
                    async with session.get(f"{web.url}api/overview") as response:
                        assert response.status == 200
                        overview = await response.json()
                used = await commands_run(client)
            finally:
                await web.stop()
        assert [n["node_id"] for n in overview["nodes"]] == ["node-a"]
        assert used < 40, f"one overview ran {used} commands with {STORED} keys stored"
    finally:
        await client.aclose()
