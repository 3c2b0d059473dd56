"""The relay's Redis side (arena.store.relay): node inboxes and the bot directory, on a real redis-server."""

from __future__ import annotations

import json

import pytest
import redis.asyncio as aioredis

from arena.store.nodes import NodeDirectory
from arena.store.relay import PRESENCE_CHUNK, PRESENCE_SECONDS, BotDirectory, PresenceRota, RelayStore


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
    assert int(await client.get("arena:botcap:ann")) == 4
    assert json.loads(await client.get("arena:botplays:ann")) == ["5211", "azul"]
    await b.here({"ann": 2})  # it reconnected to node B before node A noticed it leave
    await a.gone("ann")
    assert await a.where("ann") == "node-b"
    await b.gone("ann")
    assert await a.where("ann") is None
    assert await client.zscore("arena:online", "ann") is None


@pytest.mark.parametrize("beat", [0.5, 2.0, 3.0, 6.0, 20.0])
def test_the_heartbeat_refreshes_every_bot_once_in_each_round_of_shares_well_within_its_presence(beat: float) -> None:
    """A share of the bots a beat (a node of 10,000 idle bots spent most of its core re-announcing
    them all every beat); each bot once every ``shares`` beats, and that well within the presence's
    lifetime wherever it can be."""
    rota = PresenceRota(beat)
    bots = [f"bot-{i}" for i in range(3_000)]
    rounds = [[bot for _ in range(rota.shares) for bot in rota.due(bots)] for _ in range(3)]
    for refreshed in rounds:
        assert sorted(refreshed) == sorted(bots)  # each exactly once a round
    assert rota.shares == 1 or rota.shares * beat * 2.5 <= PRESENCE_SECONDS
    if beat <= PRESENCE_SECONDS / 5:
        assert rota.shares > 1  # a node beating often refreshes a share of its bots at a time


async def test_a_thousand_bots_announced_at_once_are_all_located(client: aioredis.Redis) -> None:
    """The directory writes a large announcement in chunks: every bot is there, with its capacity and games."""
    directory = BotDirectory(client, "node-a")
    bots = {f"bot-{i}": 1 + i % 3 for i in range(PRESENCE_CHUNK * 4 + 7)}
    await directory.here(bots, {bot: ["5211"] for bot in bots})
    assert await client.zcard("arena:online") == len(bots)
    assert [await directory.where(bot) for bot in ("bot-0", f"bot-{len(bots) - 1}")] == ["node-a", "node-a"]
    assert await client.get(f"arena:botcap:bot-{len(bots) - 1}") == str(1 + (len(bots) - 1) % 3).encode()
