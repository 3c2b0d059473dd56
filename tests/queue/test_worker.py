"""The match queue and its referee worker against a real redis-server and real gRPC bots."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from arena.catalogue import DEFAULT_GAME
from arena.games.base import Termination
from arena.league.schedule import SECRET_BYTES, MatchSpec
from arena.queue.worker import RefereeWorker
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from tests.grpc.harness import Arena, eventually
from tests.proxy import StallingProxy


@pytest.fixture
async def store(redis_server: EmbeddedRedis) -> AsyncIterator[tuple[MatchQueue, LeagueStore]]:
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        yield MatchQueue(client), LeagueStore(client)
    finally:
        await client.aclose()


async def schedule(queue: MatchQueue, leagues: LeagueStore, league_id: str, tables: list[list[str]]) -> list[str]:
    matches = [
        MatchSpec(f"{league_id}-{i}", league_id, i, "5211", tuple(bots), i, f"{league_id}-d{i}").to_dict()
        for i, bots in enumerate(tables)
    ]
    spec = {"game": "5211", "time_control": {"decision_allowance": 2.0, "time_bank": 5.0}}
    await queue.ensure_group()
    assert await leagues.create(league_id, spec, matches, secrets.token_bytes(SECRET_BYTES)) == league_id
    return [m["match_id"] for m in matches]


async def run_worker(worker: RefereeWorker, until: object, seconds: float = 30.0) -> None:
    stop = asyncio.Event()
    task = asyncio.ensure_future(worker.run(stop))
    try:
        await eventually(until, seconds)  # type: ignore[arg-type]
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_every_queued_match_is_played_and_stored_once(
    arena: Arena, store: tuple[MatchQueue, LeagueStore]
) -> None:
    queue, leagues = store
    for name in ("a", "b", "c"):
        await arena.connect(name, capacity=8)
    tables = [[x, y] for x, y in (("a", "b"), ("b", "c"), ("c", "a"))] * 10
    ids = await schedule(queue, leagues, "L1", tables)
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-1", default_game=DEFAULT_GAME, lease_seconds=5)
    total = len(ids)

    async def done() -> bool:
        return (await leagues.progress("L1"))[1] == total

    flag = {"done": False}

    async def watch() -> None:
        while not flag["done"]:
            flag["done"] = await done()
            await asyncio.sleep(0.05)

    watcher = asyncio.ensure_future(watch())
    await run_worker(worker, lambda: flag["done"])
    await watcher
    results = await leagues.results("L1")
    assert sorted(r["match_id"] for r in results) == sorted(ids)
    assert all(r["bots"] == tables[int(r["match_id"].split("-")[1])] for r in results)
    assert await leagues.progress("L1") == (total, total, 0)
    assert (await queue.depth())[0] == 0


async def test_matches_of_a_dead_worker_are_reclaimed(arena: Arena, store: tuple[MatchQueue, LeagueStore]) -> None:
    queue, leagues = store
    for name in ("p", "q"):
        await arena.connect(name, capacity=8)
    ids = await schedule(queue, leagues, "L2", [["p", "q"]] * 8)
    taken = await queue.read_new("dead-node", 5, 0)  # a worker that claims work and dies
    assert len(taken) == 5
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-2", default_game=DEFAULT_GAME, lease_seconds=0.5)
    counts = {"done": 0}

    async def poll() -> None:
        while counts["done"] < len(ids):
            counts["done"] = (await leagues.progress("L2"))[1]
            await asyncio.sleep(0.05)

    poller = asyncio.ensure_future(poll())
    await run_worker(worker, lambda: counts["done"] == len(ids))
    await poller
    assert worker.reclaimed >= 5
    assert sorted(r["match_id"] for r in await leagues.results("L2")) == sorted(ids)


async def test_a_match_that_runs_twice_is_counted_once(arena: Arena, store: tuple[MatchQueue, LeagueStore]) -> None:
    queue, leagues = store
    for name in ("x", "y"):
        await arena.connect(name, capacity=8)
    ids = await schedule(queue, leagues, "L3", [["x", "y"]] * 3)
    # The same matches queued again, as after a redelivery: each result is still stored once.
    for match_id in ids:
        await queue.r.xadd(queue.stream, {"league": "L3", "match": match_id})
    earlier = {"match_id": ids[0], "bots": ["x", "y"], "scores": [1, 0], "placings": [1, 2]}
    first = {"result": earlier | {"note": "stored by an earlier run"}}
    assert await leagues.record_result("L3", ids[0], "L3-d0", first["result"]) == (True, 1)
    assert await leagues.record_result("L3", ids[0], "L3-d0", earlier | {"note": "second"}) == (False, 1)
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-3", default_game=DEFAULT_GAME, lease_seconds=5)
    state = {"depth": 1}

    async def poll() -> None:
        while state["depth"]:
            state["depth"] = (await queue.depth())[0]
            await asyncio.sleep(0.05)

    poller = asyncio.ensure_future(poll())
    await run_worker(worker, lambda: state["depth"] == 0)
    await poller
    results = await leagues.results("L3")
    assert sorted(r["match_id"] for r in results) == sorted(ids)
    assert next(r for r in results if r["match_id"] == ids[0])["note"] == "stored by an earlier run"


async def test_a_malformed_stored_spec_ends_each_match_with_one_aborted_result_naming_it(
    arena: Arena, store: tuple[MatchQueue, LeagueStore], caplog: pytest.LogCaptureFixture
) -> None:
    """A league whose stored spec does not read (here a time control that is no number) cannot be
    played: each of its matches gets exactly one result, aborted, whose error names the value, and the
    worker goes on to the other leagues' matches (it used to die of it, leaving every match queued)."""
    queue, leagues = store
    for name in ("m", "n"):
        await arena.connect(name, capacity=8)
    bad = [MatchSpec(f"L4-{i}", "L4", i, "5211", ("m", "n"), i, f"L4-d{i}").to_dict() for i in range(2)]
    await queue.ensure_group()
    malformed = {"game": "5211", "time_control": {"decision_allowance": "soon"}}
    assert await leagues.create("L4", malformed, bad, secrets.token_bytes(SECRET_BYTES)) == "L4"
    good = await schedule(queue, leagues, "L5", [["m", "n"]] * 2)
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-4", default_game=DEFAULT_GAME, lease_seconds=5)
    state = {"done": 0}

    async def poll() -> None:
        while state["done"] < 4:
            state["done"] = (await leagues.progress("L4"))[1] + (await leagues.progress("L5"))[1]
            await asyncio.sleep(0.05)

    poller = asyncio.ensure_future(poll())
    await run_worker(worker, lambda: state["done"] == 4 or poller.done(), 15)
    await poller
    results = await leagues.results("L4")
    assert sorted(r["match_id"] for r in results) == ["L4-0", "L4-1"]
    assert all(r["termination"] == "aborted" for r in results), results
    assert all("'soon'" in r["error"] and "decision_allowance" in r["error"] for r in results), results
    assert sorted(r["match_id"] for r in await leagues.results("L5")) == sorted(good)
    assert all(r["termination"] != "aborted" for r in await leagues.results("L5"))
    assert (await queue.depth())[0] == 0
    assert "L4" in caplog.text and "'soon'" in caplog.text


async def test_a_scheduled_match_that_does_not_read_ends_with_one_aborted_result_naming_it(
    arena: Arena, store: tuple[MatchQueue, LeagueStore]
) -> None:
    """A stored match whose spec does not read (here an index that is no number) gets one aborted
    result whose error names the value, so its league still finishes (it used to be dropped, leaving
    the league one match short for ever)."""
    queue, leagues = store
    for name in ("m", "n"):
        await arena.connect(name, capacity=8)
    good = MatchSpec("L6-0", "L6", 0, "5211", ("m", "n"), 0, "L6-d0").to_dict()
    bad = MatchSpec("L6-1", "L6", 1, "5211", ("m", "n"), 1, "L6-d1").to_dict() | {"index": "first"}
    await queue.ensure_group()
    spec = {"game": "5211", "players": 2}
    assert await leagues.create("L6", spec, [good, bad], secrets.token_bytes(SECRET_BYTES)) == "L6"
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-6", default_game=DEFAULT_GAME, lease_seconds=5)

    async def finished() -> bool:
        return (await leagues.progress("L6"))[1] == 2

    state = {"done": False}

    async def poll() -> None:
        while not state["done"]:
            state["done"] = await finished()
            await asyncio.sleep(0.05)

    poller = asyncio.ensure_future(poll())
    await run_worker(worker, lambda: state["done"] or poller.done(), 15)
    await poller
    results = {r["match_id"]: r for r in await leagues.results("L6")}
    assert sorted(results) == ["L6-0", "L6-1"]
    assert results["L6-0"]["termination"] != "aborted"
    assert results["L6-1"]["termination"] == "aborted"
    assert "'first'" in results["L6-1"]["error"] and "L6-1" in results["L6-1"]["error"], results["L6-1"]
    assert (await queue.depth())[0] == 0


async def test_a_stopped_worker_keeps_the_leases_of_the_matches_it_still_plays(
    arena: Arena, store: tuple[MatchQueue, LeagueStore]
) -> None:
    """A stopping node's worker stopped renewing the leases of the league matches it was still
    playing, so past the lease another node took them over and played them again: a duplicate
    deal's rotation too, whose cards were released while the first run was still being played (a
    trial, with --shutdown-grace above --lease-seconds). Until ``halt``, a stopped worker claims
    nothing new but keeps what it plays; what it holds unstarted it leaves to the others."""
    queue, leagues = store
    for name in ("a", "b"):
        await arena.connect(name, think_seconds=0.25)
    await schedule(queue, leagues, "L9", [["a", "b"], ["a", "c"]])  # c is nowhere: its match waits
    worker = RefereeWorker(queue, leagues, arena.node.matches, "node-1", default_game=DEFAULT_GAME, lease_seconds=1)
    stop, halt = asyncio.Event(), asyncio.Event()
    task = asyncio.ensure_future(worker.run(stop, halt))
    try:
        await eventually(lambda: any(h.task is not None for h in worker.held.values()), 10)
        stop.set()
        await asyncio.sleep(2.5)  # past two leases, the match still playing
        assert arena.node.matches.running, "the match must outlast the leases"
        taken = await queue.reclaim_stale("node-2", 1000, 10)
        assert [fields["match"] for _, fields in taken] == [], taken
    finally:
        halt.set()
        await asyncio.wait_for(task, 10)


async def test_a_worker_cut_off_from_redis_past_its_lease_stops_its_matches(
    arena: Arena, store: tuple[MatchQueue, LeagueStore], redis_server: EmbeddedRedis
) -> None:
    """A node that lost Redis (or stalled) for longer than its lease played on: another node took
    its matches over and played them too, and the deal of a duplicate rotation could be released
    while the stale run still played its cards. A worker that has not renewed a match's lease for
    most of the lease now stops it before its next turn (ABORTED), before another node may take it."""
    queue, leagues = store
    for name in ("a", "b"):
        await arena.connect(name, capacity=2, think_seconds=0.05)
    await schedule(queue, leagues, "L10", [["a", "b"]])
    proxy = StallingProxy(redis_server.port)
    cut_off = aioredis.Redis(host="127.0.0.1", port=await proxy.start(), password=redis_server.password)
    matches = arena.node.matches
    stalled = RefereeWorker(
        MatchQueue(cut_off), LeagueStore(cut_off), matches, "node-1", default_game=DEFAULT_GAME, lease_seconds=1
    )
    other = RefereeWorker(queue, leagues, matches, "node-2", default_game=DEFAULT_GAME, lease_seconds=1)
    stop = asyncio.Event()
    first = asyncio.ensure_future(stalled.run(stop))
    second: asyncio.Future[None] | None = None
    try:
        await eventually(lambda: matches.running, 10)
        (stale,) = matches.running
        proxy.stalled.set()
        second = asyncio.ensure_future(other.run(stop))
        await eventually(lambda: other.results_stored == 1, 20)
        (result,) = await leagues.results("L10")
        assert result["record_id"] != stale
        stale_run, counted = await matches.record(stale), await matches.record(result["record_id"])
        assert stale_run.outcome is not None and stale_run.outcome.termination is Termination.ABORTED, stale_run.outcome
        assert stale_run.ended_at is not None and counted.ended_at is not None
        assert stale_run.ended_at < counted.ended_at
    finally:
        stop.set()
        first.cancel()  # its Redis calls hang: it is cut off
        await asyncio.gather(first, return_exceptions=True)
        if second is not None:
            await asyncio.wait_for(second, 10)
        await proxy.stop()
        await cut_off.aclose()
