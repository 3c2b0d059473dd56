"""Leagues heal themselves: every scheduled match ends with exactly one result, whatever crashes.

Each test reproduces a finding of the fault-injection trials against real redis-servers, real
arena nodes and raw bots:

- a crash of the store's host (Redis SIGKILLed, its last second of writes cut from the append-only
  file, restarted) left leagues stuck short of their end, with matches "running" forever;
- a node killed during CreateLeague left leagues with part of their matches queued, and a client
  retrying after UNAVAILABLE would have scheduled the league twice;
- a bot's matches at once were only counted on its own node, so matches refereed elsewhere broke
  the limit its connection asked for;
- an idle node with thousands of matches queued for absent bots burned a fifth of a core;
- the live Elo skipped results whose update failed (now retired: the table's pairing aggregate is
  updated in the script that stores the result, and must equal the table of the stored results).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

import grpc
import psutil
import pytest
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from arena.catalogue import DEFAULT_GAME
from arena.cli.admin import register_bot
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec, schedule_league
from arena.league.table import LeagueTable
from arena.queue.worker import RefereeWorker
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueProgress, LeagueService
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.leagues import QUEUE_STREAM, LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect, key, text
from arena.v1 import bot_pb2, common_pb2, league_pb2, league_pb2_grpc
from tests.grpc.harness import ADMIN, ADMIN_METADATA, Arena, start_node
from tests.grpc.rawbot import RawBot
from tests.queue.harness import assert_same_table

TC = TimeControl(decision_allowance=5.0, time_bank=5.0)


@pytest.fixture
async def leagues7(arena: Arena, redis7: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node with leagues on a Redis 7 and a referee worker (1 s lease, reconciling
    every second)."""
    client = connect(redis7.url)
    service = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock)
    arena.node.leagues = service
    worker = RefereeWorker(
        service.queue,
        service.store,
        arena.node.matches,
        "node-crash",
        default_game=DEFAULT_GAME,
        lease_seconds=1,
        reconcile_seconds=1,
    )
    stop = asyncio.Event()
    task = asyncio.ensure_future(worker.run(stop))
    try:
        yield service
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)
        await client.aclose()


def aof_file(server: EmbeddedRedis) -> Path:
    """The append-only file Redis 7 is writing now (the newest incremental part)."""
    parts = sorted((server.data_dir / "appendonlydir").glob("*.incr.aof"), key=lambda p: int(p.name.split(".")[-3]))
    return parts[-1]


async def sample_sizes(server: EmbeddedRedis, history: list[tuple[float, int]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError, IndexError):
            history.append((time.monotonic(), aof_file(server).stat().st_size))
        await asyncio.sleep(0.02)


def crash_host(server: EmbeddedRedis, history: list[tuple[float, int]]) -> EmbeddedRedis:
    """What a power cut does under ``appendfsync everysec``: Redis dies, its last second is lost."""
    server._stopping.set()  # its watchdog must not restart it before the cut
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    server.stop()  # the machine is gone: so is the folder's lock
    cutoff = time.monotonic() - 1.0
    path = aof_file(server)
    before = max((size for at, size in history if at <= cutoff), default=0)
    os.truncate(path, before)
    return EmbeddedRedis(server.data_dir, port=server.port, binary=server.binary).start()


async def test_a_store_host_crash_loses_no_result(arena: Arena, leagues7: LeagueService, redis7: EmbeddedRedis) -> None:
    for name in ("h1", "h2", "h3"):
        await arena.connect(name, capacity=6)
    spec = LeagueSpec("LH", "5211", 2, ("h1", "h2", "h3"), games_per_pairing=40, seed=1)
    await leagues7.create(spec, TC)
    history: list[tuple[float, int]] = []
    stop = asyncio.Event()
    sampler = asyncio.ensure_future(sample_sizes(redis7, history, stop))
    servers = [redis7]

    async def progress_now() -> LeagueProgress:
        for _ in range(100):  # the test's own connection breaks with each crash, as the node's do
            with contextlib.suppress(RedisError):
                return (await leagues7.get("LH")).progress
            await asyncio.sleep(0.1)
        raise AssertionError("the store did not come back")

    try:
        for done in (25, 60):
            since = time.monotonic()
            for _ in range(600):
                if (await progress_now()).done >= done:
                    break
                await asyncio.sleep(0.05)
            # Mid-league: the last second cut holds results, not the league's creation or the last crash.
            await asyncio.sleep(max(0.0, since + 1.5 - time.monotonic()))
            servers.append(crash_host(servers[-1], history))
            history.clear()
        for _ in range(1200):
            progress = await progress_now()
            if progress.finished and progress.running == 0:
                break
            await asyncio.sleep(0.1)
        assert progress.finished and progress.running == 0, progress
        results = await leagues7.results("LH")
        assert Counter(r["match_id"] for r in results) == Counter(
            dict.fromkeys((m.match_id for m in schedule_league(spec)), 1)
        )
        assert all(r["termination"] == "normal" for r in results)
        _, table = await leagues7.leaderboard("LH")
        assert sum(row.matches for row in table.rows) == 2 * len(results)
        # The pairing aggregate, updated with each result in the same script, lost and doubled nothing.
        replay = LeagueTable.from_results([StoredResult.from_dict(r) for r in results], spec.bots)
        assert_same_table(table, replay)
    finally:
        stop.set()
        await sampler
        for server in servers[1:]:
            server.stop()


async def test_matches_lost_from_the_queue_are_found_and_played(arena: Arena, leagues7: LeagueService) -> None:
    """The state the trials left: five results gone, their matches marked running, the queue empty."""
    for name in ("r1", "r2"):
        await arena.connect(name, capacity=4)
    spec = LeagueSpec("LQ", "5211", 2, ("r1", "r2"), games_per_pairing=20, seed=2)
    await leagues7.create(spec, TC)
    for _ in range(600):
        if (await leagues7.get("LQ")).progress.finished:
            break
        await asyncio.sleep(0.05)
    r = leagues7.store.r
    lost = [m.match_id for m in schedule_league(spec)][-5:]
    for match_id in lost:
        await r.delete(key("result", f"LQ:{match_id}"))
        await r.lrem(key("league", "LQ:results"), 0, match_id)
        await r.sadd(key("league", "LQ:running"), match_id)
        await r.sadd(key("league", "LQ:open"), match_id)
    await r.sadd(key("leagues", "active"), "LQ")
    assert await r.xlen(QUEUE_STREAM) == 0
    assert (await leagues7.get("LQ")).progress.done == 15
    for _ in range(600):
        progress = (await leagues7.get("LQ")).progress
        if progress.finished and progress.running == 0:
            break
        await asyncio.sleep(0.05)
    assert progress.finished and progress.running == 0, progress
    results = await leagues7.results("LQ")
    assert sorted(r["match_id"] for r in results) == sorted(m.match_id for m in schedule_league(spec))


def league_request(names: list[str], games: int, request_id: str) -> league_pb2.CreateLeagueRequest:
    tc = common_pb2.TimeControl()
    tc.decision_allowance.FromSeconds(5)
    spec = league_pb2.LeagueSpec(game="5211", players_per_match=2, bot_names=names, games_per_pairing=games)
    spec.time_control.CopyFrom(tc)
    return league_pb2.CreateLeagueRequest(spec=spec, request_id=request_id)


async def create(address: str, request: league_pb2.CreateLeagueRequest) -> league_pb2.League | None:
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            return (
                await league_pb2_grpc.LeagueServiceStub(channel).CreateLeague(
                    request, timeout=30, metadata=ADMIN_METADATA
                )
            ).league
        except grpc.aio.AioRpcError:
            return None


async def queued_or_parked(client: aioredis.Redis, league_id: str) -> int:
    """How many of the league's matches are on the queue or parked for an absent bot."""
    count = 0
    async for _ in _league_entries(client, league_id):
        count += 1
    async for name in client.scan_iter(match=key("parked", "*")):
        count += sum(1 for m in await client.smembers(name) if text(m).startswith(f"{league_id} "))
    return count


async def _league_entries(client: aioredis.Redis, league_id: str) -> AsyncIterator[str]:
    last = "-"
    while True:
        # (id, fields) entries, all bytes: the client does not decode.
        entries = cast(list[tuple[bytes, dict[bytes, bytes]]], await client.xrange(QUEUE_STREAM, last, "+", count=1000))
        fresh = [(text(i), f) for i, f in entries if text(i) != last]
        if not fresh:
            return
        for entry_id, fields in fresh:
            if text(fields.get(b"league", b"")) == league_id:
                yield entry_id
        last = fresh[-1][0]


async def test_a_node_killed_while_creating_a_league_leaves_it_whole_or_not_at_all(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    names = [f"c{i}" for i in range(10)]
    client = connect(redis7.url)
    port = free_port()
    address = f"127.0.0.1:{port}"
    node = start_node(redis7.url, "node-c0", port, tmp_path / "c0")
    try:
        for name in names:
            await asyncio.to_thread(register_bot, address, name, ADMIN)
        for trial, delay in enumerate((0.05, 0.2, 0.4, 0.8)):
            before = await client.zcard(key("leagues"))
            request = league_request(names, 223, f"trial-{trial}")  # 45 pairs x 223 = 10,035 matches
            call = asyncio.ensure_future(create(address, request))
            await asyncio.sleep(delay)
            node.send_signal(signal.SIGKILL)
            node.wait(10)
            await call
            for league_id in [text(i) for i in await client.zrange(key("leagues"), 0, -1)]:
                total = await client.hlen(key("league", f"{league_id}:matches"))
                assert total == 10_035, f"trial {trial}: league {league_id} stored with {total} of 10,035 matches"
                assert await queued_or_parked(client, league_id) == total, f"trial {trial}: {league_id} not all queued"
            node = start_node(redis7.url, f"node-c{trial + 1}", port, tmp_path / f"c{trial + 1}")
            retried = await create(address, request)  # the client's retry, with the same request id
            assert retried is not None
            assert await client.zcard(key("leagues")) == before + 1, f"trial {trial}: the retry scheduled it twice"
            again = await create(address, request)
            assert again is not None and again.league_id == retried.league_id
    finally:
        node.send_signal(signal.SIGKILL)
        node.wait(10)
        await client.aclose()


class CountingBot(RawBot):
    """A raw bot that keeps the most matches it was ever in at once, and when each began and ended."""

    def __init__(self, address: str, token: str) -> None:
        super().__init__(address, token, capacity=1)
        self.most_at_once = 0
        self.spans: dict[str, list[float]] = {}

    async def handle(self, response: bot_pb2.ConnectResponse) -> None:
        await super().handle(response)
        kind = response.WhichOneof("kind")
        if kind in ("match_started", "match_ended"):
            match_id = getattr(response, kind).match_id
            self.spans.setdefault(match_id, []).append(time.monotonic())
        self.most_at_once = max(self.most_at_once, len(self.started.keys() - self.ended.keys()))


def longest_idle_stretch(bots: list[CountingBot]) -> float:
    """The longest time between a league's first start and last end in which no match was running."""
    spans = sorted((times[0], times[-1]) for bot in bots for times in bot.spans.values())
    longest, reach = 0.0, spans[0][1]
    for start, end in spans[1:]:
        longest = max(longest, start - reach)
        reach = max(reach, end)
    return longest


async def test_a_bots_matches_at_once_hold_across_nodes(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    ports = [free_port(), free_port()]
    addresses = [f"127.0.0.1:{p}" for p in ports]
    nodes = [start_node(redis7.url, f"node-{i}", p, tmp_path / str(i)) for i, p in enumerate(ports)]
    client = connect(redis7.url)
    bots: list[CountingBot] = []
    try:
        names = ["q1", "q2", "q3", "q4"]
        for i, name in enumerate(names):
            token = await asyncio.to_thread(register_bot, addresses[0], name, ADMIN)
            bots.append(CountingBot(addresses[i % 2], token).start())  # two bots on each node
        for bot in bots:
            await asyncio.wait_for(bot.welcomed.wait(), 10)
        league = await create(addresses[0], league_request(names, 6, "capacity"))
        assert league is not None and league.progress.total == 36
        store = LeagueStore(client)
        for _ in range(1200):
            if (await store.progress(league.league_id))[1] == 36:
                break
            await asyncio.sleep(0.05)
        assert (await store.progress(league.league_id))[1] == 36
        assert [bot.most_at_once for bot in bots] == [1, 1, 1, 1]
        # Queued matches whose bots are free start at once: in trials, stretches of 12-17 s with none running.
        assert longest_idle_stretch(bots) < 3.0
    finally:
        for bot in bots:
            await bot.stop()
        for node in nodes:
            node.send_signal(signal.SIGKILL)
            node.wait(10)
        await client.aclose()


async def test_a_league_waiting_for_a_bot_that_is_not_connected_says_so(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """A trial killed a bot for good mid-league: the league stood at "7/24 done, 0 running" with
    17 queued, and nothing (GetLeague, ``league watch``, the site) said that it waited for that bot."""
    port, web = free_port(), free_port()
    address = f"127.0.0.1:{port}"
    node = start_node(redis7.url, "node-waits", port, tmp_path / "waits", web_port=web)
    try:
        for name in ("here1", "away1"):
            await asyncio.to_thread(register_bot, address, name, ADMIN)
        league = await create(address, league_request(["here1", "away1"], 6, "waits"))
        assert league is not None
        async with grpc.aio.insecure_channel(address) as channel:
            stub = league_pb2_grpc.LeagueServiceStub(channel)
            request = league_pb2.GetLeagueRequest(league_id=league.league_id)
            for _ in range(300):
                progress = (await stub.GetLeague(request)).league.progress
                if sum(progress.waiting_for.values()) == 6:
                    break
                await asyncio.sleep(0.1)
            assert dict(progress.waiting_for) in ({"here1": 6}, {"away1": 6}, {"here1": 3, "away1": 3})
            assert progress.queued == 6
            waits = dict(progress.waiting_for)
        url = f"http://127.0.0.1:{web}/leagues/{league.league_id}"
        page = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=10).read().decode())
        assert all(f"waiting for {name} ({count})" in page for name, count in waits.items()), page
    finally:
        node.send_signal(signal.SIGKILL)
        node.wait(10)


async def test_an_idle_node_waiting_for_absent_bots_costs_nothing(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    port = free_port()
    address = f"127.0.0.1:{port}"
    node = start_node(redis7.url, "node-idle", port, tmp_path / "idle")
    try:
        for name in ("gone1", "gone2"):
            await asyncio.to_thread(register_bot, address, name, ADMIN)
        league = await create(address, league_request(["gone1", "gone2"], 10_000, "idle"))
        assert league is not None and league.progress.total == 10_000
        client = connect(redis7.url)
        for _ in range(600):  # it parks them all, for when their bots connect
            if await client.xlen(QUEUE_STREAM) == 0:
                break
            await asyncio.sleep(0.1)
        parked = sum([await client.scard(key("parked", bot)) for bot in ("gone1", "gone2")])
        await client.aclose()
        assert parked == 10_000
        await asyncio.sleep(1)
        process = psutil.Process(node.pid)
        before = process.cpu_times()
        await asyncio.sleep(5)
        after = process.cpu_times()
        used = (after.user - before.user) + (after.system - before.system)
        assert used < 0.1, f"an idle node used {used / 5:.1%} of a core"
    finally:
        node.send_signal(signal.SIGKILL)
        node.wait(10)
