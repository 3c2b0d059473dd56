"""The ladder store (arena.store.ladders) on a real redis-server: create, pause, the matchmaker
lease, scheduling with seat counts, results after an index, rating history, and who is online."""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis

from arena.store.ladders import HISTORY_POINTS, LadderStore, Online
from arena.store.leagues import QUEUE_STREAM, LeagueStore
from arena.store.redis_stores import text

SPEC = {"kind": "ladder", "game": "5211", "players_per_match": 2, "created_at": 1.0}


def matches(ladder_id: str, first: int, tables: list[list[str]]) -> list[dict[str, Any]]:
    return [
        {"match_id": f"{ladder_id}.{i:06d}", "index": i, "bots": bots, "deal_id": f"{ladder_id}.d{i:05d}"}
        for i, bots in enumerate(tables, start=first)
    ]


def seats(tables: list[list[str]]) -> list[tuple[int, str]]:
    return [(seat, bot) for bots in tables for seat, bot in enumerate(bots)]


async def test_a_ladder_is_created_once_and_a_retried_request_returns_it(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    assert await store.create("lad", SPEC, b"secret", request_id="req") == "lad"
    assert await store.create("other", SPEC | {"created_at": 2.0}, b"x", request_id="req") == "lad"
    assert await store.spec("other") is None
    assert await store.create("lad", SPEC | {"name": "again"}, b"x") is None
    assert await store.spec("lad") == SPEC
    assert await LeagueStore(client).secret("lad") == b"secret"
    assert await store.create("new", SPEC | {"created_at": 3.0}, b"x") == "new"
    assert await store.ladder_ids() == ["new", "lad"]
    assert await store.ladder_ids(limit=1) == ["new"]
    assert await store.all_ids() == ["lad", "new"]


async def test_a_league_is_not_a_ladder(client: aioredis.Redis) -> None:
    await LeagueStore(client).create("lg", {"league_id": "lg", "game": "5211"}, [], b"s")
    assert await LadderStore(client).spec("lg") is None
    assert await LadderStore(client).spec("nope") is None


async def test_pause_and_resume_are_seen_per_ladder(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    await store.set_paused("a", True)
    assert await store.paused(["a", "b"]) == [True, False]
    await store.set_paused("a", False)
    assert await store.paused(["a", "b"]) == [False, False]
    assert await store.paused([]) == []


async def test_one_node_at_a_time_holds_the_matchmaker_lease(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    assert await store.hold_matchmaking("node-a", 30)
    assert await store.hold_matchmaking("node-a", 30)  # kept
    assert not await store.hold_matchmaking("node-b", 30)
    await store.release_matchmaking("node-b")  # not its lease: nothing changes
    assert not await store.hold_matchmaking("node-b", 30)
    await store.release_matchmaking("node-a")
    assert await store.hold_matchmaking("node-b", 30)
    assert 0 < await client.pttl("arena:ladder:matchmaker") <= 30_000


async def test_only_the_lease_holder_schedules_and_never_on_a_paused_ladder(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    await store.create("lad", SPEC, b"s")
    tables = [["ann", "bob"], ["bob", "cid"]]
    assert await store.schedule("node-a", "lad", matches("lad", 0, tables), seats(tables)) == 0  # no lease
    assert await store.hold_matchmaking("node-a", 30)
    await store.set_paused("lad", True)
    assert await store.schedule("node-a", "lad", matches("lad", 0, tables), seats(tables)) == 0
    assert await store.counts("lad") == (0, 0) and await client.xlen(QUEUE_STREAM) == 0
    assert await store.seat_counts("lad", 2) == {}
    await store.set_paused("lad", False)
    assert await store.schedule("node-a", "lad", matches("lad", 0, tables), seats(tables)) == 2
    assert await store.next_index("lad") == 2
    assert await store.counts("lad") == (0, 2)
    assert await client.xlen(QUEUE_STREAM) == 2
    assert sorted(await store.open_tables(["lad"])) == tables
    assert await LeagueStore(client).active_ids() == ["lad"]
    assert await store.seat_counts("lad", 2) == {"ann": [1, 0], "bob": [1, 1], "cid": [0, 1]}
    assert await store.seat_counts("lad", 1) == {"ann": [1], "bob": [1]}  # seats past the table are left out


async def test_results_are_read_from_an_index_on_in_arrival_order(client: aioredis.Redis) -> None:
    store, leagues = LadderStore(client), LeagueStore(client)
    await store.create("lad", SPEC, b"s")
    await store.hold_matchmaking("node-a", 30)
    tables = [["ann", "bob"], ["bob", "cid"], ["cid", "ann"]]
    scheduled = matches("lad", 0, tables)
    await store.schedule("node-a", "lad", scheduled, seats(tables))
    for match in reversed(scheduled):
        result = {"match_id": match["match_id"], "bots": match["bots"], "scores": [1, 0], "placings": [1, 2]}
        await leagues.record_result("lad", match["match_id"], match["deal_id"], result)
    assert await store.counts("lad") == (3, 0)
    assert await store.open_tables(["lad"]) == []
    ids = [m["match_id"] for m in reversed(scheduled)]
    assert [r["match_id"] for r in await store.results("lad")] == ids
    assert [r["match_id"] for r in await store.results("lad", after=1)] == ids[1:]
    assert await store.results("lad", after=3) == []
    pairs = await store.current_pairings("lad", done=3)
    assert pairs == (await leagues.pairings("lad"))[0] and pairs


async def test_a_rating_point_is_charted_only_when_the_games_change(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    await store.chart("lad", {})
    await store.chart("lad", {"ann": {"games": 1, "rating": 1500.0}, "bob": {"games": 1, "rating": 1490.0}})
    await store.chart("lad", {"ann": {"games": 1, "rating": 1501.0}, "bob": {"games": 2, "rating": 1480.0}})
    assert await store.history("lad", "ann", 10) == [{"games": 1, "rating": 1500.0}]
    assert await store.history("lad", "bob", 10) == [{"games": 1, "rating": 1490.0}, {"games": 2, "rating": 1480.0}]
    assert await store.history("lad", "bob", 1) == [{"games": 2, "rating": 1480.0}]
    assert await store.history("lad", "cid", 10) == []


async def test_the_history_keeps_its_last_points_only(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    key = "arena:ladder:lad:history:ann"
    await client.rpush(key, *(json.dumps({"games": g}) for g in range(HISTORY_POINTS)))
    await client.hset("arena:ladder:lad:charted", "ann", HISTORY_POINTS - 1)
    await store.chart("lad", {"ann": {"games": HISTORY_POINTS}})
    assert await client.llen(key) == HISTORY_POINTS
    points = await store.history("lad", "ann", HISTORY_POINTS)
    assert points[0] == {"games": 1} and points[-1] == {"games": HISTORY_POINTS}


async def test_retired_bots_are_remembered(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    assert await store.retired([]) == frozenset()
    await store.retire("ann")
    assert await store.retired(["ann", "bob"]) == frozenset({"ann"})
    assert await LeagueStore(client).retired(["ann"])


async def test_online_bots_are_those_whose_entry_has_not_expired(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    now = time.time()
    await client.zadd("arena:online", {"ann": now + 60, "old": now - 1, "half": now + 60})
    await client.set("arena:botplays:ann", json.dumps(["5211", "azul"]))
    await client.set("arena:botcap:ann", "3")
    await client.set("arena:botplays:half", json.dumps(["5211"]))  # no capacity: not usable yet
    # Held by a league's match and a ladder's (the referee's match ids: a run suffix, a slot number).
    holds = {"lg.00001.a1b2c3#1": now + 60, "LD0123abcd.000001.d4e5f6#1": now + 60, "lg.00002.a1b2c3#1": now - 1}
    await client.zadd("arena:slots:ann", holds)
    assert await store.online({"azul"}) == {"ann": Online(frozenset({"5211", "azul"}), 3, 1)}
    await client.zadd("arena:online", {"fay": now + 60})
    await client.set("arena:botplays:fay", json.dumps(["fool"]))
    await client.set("arena:botcap:fay", "1")
    assert list(await store.online({"5211", "coloretto"})) == ["ann"]  # the games asked for alone
    assert await store.online({"coloretto"}) == {}
    assert await client.zscore("arena:online", "old") is None  # expired entries are swept
    assert text(await client.get("arena:botcap:ann")) == "3"


async def test_the_games_of_named_bots_are_read_for_those_bots_alone(client: aioredis.Redis) -> None:
    store = LadderStore(client)
    await client.set("arena:botplays:ann", json.dumps(["5211", "azul"]))
    await client.set("arena:botplays:zed", json.dumps(["fool"]))  # online, not asked about
    assert await store.plays(["ann", "bob"]) == {"ann": frozenset({"5211", "azul"})}
    assert await store.plays([]) == {}
