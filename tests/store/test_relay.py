"""The relay's Redis side (arena.store.relay): node inboxes and the bot directory, on a real redis-server."""

from __future__ import annotations

import json
import time
from typing import cast

import redis.asyncio as aioredis

from arena.store.nodes import NodeDirectory
from arena.store.redis_stores import text
from arena.store.relay import PRESENCE_CHUNK, PRESENCE_SECONDS, BotDirectory, RelayStore


async def test_messages_posted_to_a_node_arrive_in_order_to_that_node_alone(client: aioredis.Redis) -> None:
    a, b = RelayStore(client, "node-a"), RelayStore(client, "node-b")
    await a.post("node-b", [{"t": "start", "n": "1"}, {"t": "request", "n": "2"}])
    await a.post("node-b", [{"t": "end", "n": "3"}])
    entries = await b.read("0", count=10, block_ms=10)
    assert [fields for _, fields in entries] == [
        {"t": "start", "n": "1"},
        {"t": "request", "n": "2"},
        {"t": "end", "n": "3"},
    ]
    assert await b.read(entries[1][0], count=10, block_ms=10) == entries[2:]
    assert await a.read("0", count=10, block_ms=10) == []


async def test_a_node_is_alive_while_it_has_a_heartbeat(client: aioredis.Redis) -> None:
    await NodeDirectory(client, "node-a", "127.0.0.1:1").beat({})
    assert await RelayStore(client, "node-b").alive(["node-a", "node-c"]) == {"node-a": True, "node-c": False}


async def test_a_bot_is_where_its_last_node_says_and_an_old_node_cannot_forget_it(client: aioredis.Redis) -> None:
    a, b = BotDirectory(client, "node-a"), BotDirectory(client, "node-b")
    await a.here({"ann": 4}, {"ann": ["5211", "azul"]})
    assert await b.where("ann") == "node-a"
    assert int(cast(bytes, await client.get("arena:botcap:ann"))) == 4
    assert json.loads(cast(bytes, await client.get("arena:botplays:ann"))) == ["5211", "azul"]
    await b.here({"ann": 2})  # it reconnected to node B before node A noticed it leave
    await a.gone("ann")
    assert await a.where("ann") == "node-b"
    await b.gone("ann")
    assert await a.where("ann") is None
    assert await client.zscore("arena:online", "ann") is None


async def test_a_heartbeat_announces_every_bot_of_a_crowded_node(client: aioredis.Redis) -> None:
    """Announced in several script calls (``PRESENCE_CHUNK`` bots each), every bot's entries are all
    there, expiring, and listed online."""
    node = BotDirectory(client, "node-a")
    bots = {f"bot{i}": i % 5 + 1 for i in range(2 * PRESENCE_CHUNK + 7)}
    plays = {name: ["5211"] if capacity % 2 else ["5211", "azul"] for name, capacity in bots.items()}
    await node.here(bots, {name: reversed(games) for name, games in plays.items()})
    for name, capacity in bots.items():
        assert await node.where(name) == "node-a"
        assert int(cast(bytes, await client.get(f"arena:botcap:{name}"))) == capacity
        assert json.loads(cast(bytes, await client.get(f"arena:botplays:{name}"))) == (
            ["5211"] if capacity % 2 else ["5211", "azul"]
        )
        assert 0 < await client.ttl(f"arena:botplays:{name}") <= PRESENCE_SECONDS
        assert 0 < await client.ttl(f"arena:botat:{name}") <= PRESENCE_SECONDS
    # withscores: (member, score) pairs, the scores float.
    online = cast(list[tuple[bytes, float]], await client.zrange("arena:online", 0, -1, withscores=True))
    assert {text(bot) for bot, _ in online} >= set(bots)
    assert all(time.time() < until <= time.time() + PRESENCE_SECONDS for _, until in online)


async def test_a_heartbeat_says_which_bots_were_not_here_and_a_restarted_node_forgets_its_old_ones(
    client: aioredis.Redis,
) -> None:
    a, b = BotDirectory(client, "node-a"), BotDirectory(client, "node-b")
    assert await a.here({"ann": 1, "bob": 1}) == ["ann", "bob"]  # new
    assert await a.here({"ann": 1, "bob": 1}) == []
    await client.delete("arena:botat:bob")  # it lapsed: node A stalled longer than PRESENCE_SECONDS
    await b.here({"cid": 1})
    assert await a.here({"ann": 1, "bob": 1, "cid": 1}) == ["bob", "cid"]  # cid moved here from B
    await b.here({"dan": 1})
    assert await BotDirectory(client, "node-a").clear() == 3  # node A restarted under its id
    assert [await a.where(bot) for bot in ("ann", "bob", "cid", "dan")] == [None, None, None, "node-b"]
    assert [text(m) for m in await client.zrange("arena:online", 0, -1)] == ["dan"]
