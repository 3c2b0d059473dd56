"""The running index (arena.store.running) on a real redis-server: every node's running matches,
filtered then paged, a dead node's left out and swept away."""

from __future__ import annotations

from typing import cast

import pytest
import redis.asyncio as aioredis

from arena.referee.timecontrol import TimeControl
from arena.store import running as running_module
from arena.store.chain import ScriptChain
from arena.store.match_index import MatchQuery, MatchSummary, Phase, index_names
from arena.store.nodes import NodeDirectory
from arena.store.redis_stores import key, text
from arena.store.running import NODES_KEY, RunningEntry, RunningIndex, running_key


def info(
    match_id: str, started_at: float, players: tuple[str, ...] = ("ann", "bob"), game: str = "5211"
) -> MatchSummary:
    return MatchSummary(match_id, game, list(players), {}, TimeControl(), None, started_at, 0.0, Phase.RUNNING)


async def live(client: aioredis.Redis, node: str) -> RunningIndex:
    """The index as ``node`` sees it, with a heartbeat for it."""
    assert await NodeDirectory(client, node, f"127.0.0.1:{len(node)}").beat({})
    return RunningIndex(client, node)


async def list_on(index: RunningIndex, summary: MatchSummary, sealed: bool) -> None:
    """List a match as its node does as it starts it (``RunningIndex.listing``, in the start's one call)."""
    await ScriptChain(index.r).one(index.listing(summary, sealed))


async def every_page(index: RunningIndex, query: MatchQuery, limit: int) -> list[str]:
    found: list[str] = []
    after = None
    for _ in range(100):
        page, _resume = await index.page(query, after, limit + 1)
        found += [i.match_id for i in page[:limit]]
        if len(page) <= limit and _resume is None:
            return found
        after = page[limit - 1].position if len(page) > limit else _resume
    raise AssertionError("the list did not end")


async def test_a_node_lists_every_live_nodes_matches_filtered_then_paged(client: aioredis.Redis) -> None:
    a, b = await live(client, "node-a"), await live(client, "node-b")
    await list_on(a, info("m1", 10.0), sealed=False)
    await list_on(a, info("m2", 11.0, ("cat", "ann")), sealed=False)
    await list_on(b, info("m3", 11.0, ("bob", "cat"), game="azul"), sealed=False)  # ties with m2's start
    await list_on(b, info("L1234abcd.00001.a", 12.0), sealed=False)
    everything = ["L1234abcd.00001.a", "m3", "m2", "m1"]
    assert [i.match_id for i in (await b.page(MatchQuery(), None, 10))[0]] == everything
    for limit in (1, 2, 3):
        assert await every_page(a, MatchQuery(), limit) == everything
    assert await every_page(a, MatchQuery(bot="ann"), 1) == ["L1234abcd.00001.a", "m2", "m1"]
    assert await every_page(a, MatchQuery(game="azul"), 1) == ["m3"]
    assert await every_page(a, MatchQuery(league="L1234abcd"), 1) == ["L1234abcd.00001.a"]
    listed = (await a.page(MatchQuery(bot="cat", game="azul"), None, 5))[0]
    assert listed == [info("m3", 11.0, ("bob", "cat"), game="azul")]
    assert listed[0].running
    # An ended match is gone from every filter.
    await b.ended(info("m3", 11.0, ("bob", "cat"), game="azul"))
    assert await every_page(a, MatchQuery(bot="cat"), 1) == ["m2"]
    assert await client.keys("arena:running-match:m3") == []


async def test_find_names_the_referees_node_and_its_address(client: aioredis.Redis) -> None:
    a = await live(client, "node-a")
    await list_on(a, info("m1", 10.0), sealed=True)
    found = await RunningIndex(client, "node-b").find("m1")
    assert found is not None
    assert (found.node, found.address, found.sealed) == ("node-a", "127.0.0.1:6", True)
    assert await a.find("nope") is None


async def test_a_dead_nodes_matches_are_not_listed_and_a_live_node_sweeps_them(client: aioredis.Redis) -> None:
    ghost = RunningIndex(client, "ghost")  # no heartbeat: it died
    for n in range(5):
        await list_on(ghost, info(f"g{n}", float(n), ("ann", f"bot{n}")), sealed=False)
    a = await live(client, "node-a")
    await list_on(a, info("m1", 1.5), sealed=False)
    assert [i.match_id for i in (await a.page(MatchQuery(), None, 10))[0]] == ["m1"]
    assert await a.find("g1") is None
    await a.sweep()
    assert sorted(k.decode() for k in cast(list[bytes], await client.keys("arena:running*"))) == [
        "arena:running",
        "arena:running-match:m1",
        "arena:running-nodes",
        "arena:running-on:node-a",
        "arena:running:bot:ann",
        "arena:running:bot:bob",
        "arena:running:game:5211",
        "arena:running:game:5211:bot:ann",
        "arena:running:game:5211:bot:bob",
    ]
    assert await client.smembers("arena:running-nodes") == {b"node-a"}


async def test_a_node_restarting_under_its_id_clears_what_it_left(client: aioredis.Redis) -> None:
    before = await live(client, "node-a")
    await list_on(before, info("m1", 1.0), sealed=False)
    await RunningIndex(client, "node-a").clear()
    assert await client.keys("arena:running*") == []


async def test_each_match_is_told_with_the_node_it_is_listed_on_sealed_ones_too(client: aioredis.Redis) -> None:
    a, b = await live(client, "node-a"), RunningIndex(client, "node-b")  # b has no heartbeat: not looked at
    await list_on(a, info("m1", 1.0), sealed=False)
    await list_on(a, info("m2", 2.0), sealed=True)
    await list_on(b, info("m3", 3.0), sealed=False)
    assert await a.nodes_of(["m3", "m1", "nope", "m2"]) == ["node-b", "node-a", None, "node-a"]
    await a.ended(info("m1", 1.0))
    await b.clear()  # node-b restarted under its id
    assert await a.nodes_of(["m1", "m2", "m3"]) == [None, "node-a", None]
    assert await a.nodes_of([]) == []


async def test_a_list_bounded_by_its_scan_goes_on_from_where_it_stopped(
    client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(running_module, "SCAN", 4)
    ghost, a = RunningIndex(client, "ghost"), await live(client, "node-a")
    for n in range(6):
        await list_on(ghost, info(f"g{n}", 10.0 + n), sealed=False)
    await list_on(a, info("m1", 1.0), sealed=False)
    page, resume = await a.page(MatchQuery(), None, 3)
    assert page == [] and resume == (12.0, "g2")  # four stale entries looked at
    page, resume = await a.page(MatchQuery(), resume, 3)
    assert [i.match_id for i in page] == ["m1"] and resume is None


async def test_a_sealed_match_is_in_no_list_index_and_is_found_as_sealed(client: aioredis.Redis) -> None:
    """A rotation of a duplicate deal is listed to no one while it runs (nor once it ends, until its
    deal is over); the node asked for it by id still learns that it is sealed."""
    a, b = await live(client, "node-a"), await live(client, "node-b")
    await list_on(a, info("m1", 10.0), sealed=False)
    await list_on(a, info("m2", 11.0), sealed=True)
    for query in (MatchQuery(), MatchQuery(bot="ann"), MatchQuery(game="5211", bot="bob")):
        assert await every_page(b, query, 1) == ["m1"]
    indexes = [k for k in cast(list[bytes], await client.keys("arena:running*")) if await client.type(k) == b"zset"]
    assert len(indexes) == 6 and [k for k in indexes if await client.zscore(k, "m2") is not None] == []
    found = await b.find("m2")
    assert found is not None and (found.node, found.sealed) == ("node-a", True)
    await a.ended(info("m2", 11.0))
    assert await b.find("m2") is None and await client.sismember("arena:running-on:node-a", "m2") == 0


async def index_as_an_older_node_did(client: aioredis.Redis, node: str, listed: MatchSummary, sealed: bool) -> None:
    """List a running match as a node of an earlier version did: in every list index, even sealed."""
    async with client.pipeline(transaction=True) as pipe:
        pipe.set(key("running-match", listed.match_id), RunningEntry(listed, node, sealed).to_json())
        pipe.sadd(key("running-on", node), listed.match_id)
        pipe.sadd(NODES_KEY, node)
        for name in index_names(listed):
            pipe.zadd(running_key(name), {listed.match_id: listed.started_at})
        await pipe.execute()


async def test_sealed_entries_an_older_node_indexed_are_skipped_and_the_list_goes_on_past_them(
    client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, a = await live(client, "node-old"), await live(client, "node-a")
    for n in range(5):
        await index_as_an_older_node_did(client, old.node_id, info(f"s{n}", 20.0 + n), sealed=True)
    await list_on(a, info("m1", 1.0), sealed=False)
    await list_on(a, info("m2", 2.0), sealed=False)
    assert await a.page(MatchQuery(), None, 2) == ([info("m2", 2.0), info("m1", 1.0)], None)  # a full page
    monkeypatch.setattr(running_module, "SCAN", 4)
    page, resume = await a.page(MatchQuery(), None, 2)
    assert page == [] and resume == (21.0, "s1")  # four sealed entries looked at: the list goes on
    page, resume = await a.page(MatchQuery(), resume, 2)
    assert [i.match_id for i in page] == ["m2", "m1"] and resume is None
    assert await every_page(a, MatchQuery(bot="ann"), 1) == ["m2", "m1"]


async def test_a_heartbeat_unlists_what_its_node_listed_and_no_longer_runs(client: aioredis.Redis) -> None:
    """A trial killed Redis as matches ended: their unlisting failed once and was never tried again,
    so a live node listed them as running for ever."""
    a = await live(client, "node-a")
    for number, started_at in enumerate((100.0, 100.0, 150.0, 100.0)):
        await list_on(a, info(f"m{number}", started_at), sealed=number == 3)
    await a.prune({"m0"}, 100.0 + running_module.PRUNE_SECONDS)  # m1 ended, m2 is just starting
    assert await a.nodes_of(["m0", "m1", "m2", "m3"]) == ["node-a", None, "node-a", None]
    assert await every_page(a, MatchQuery(), 10) == ["m2", "m0"]
    assert {text(m) for m in await client.smembers("arena:running-on:node-a")} == {"m0", "m2"}
