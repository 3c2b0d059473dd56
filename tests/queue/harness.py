"""A league service on a real redis-server beside the arena fixture's node, with its referee worker."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from redis.exceptions import RedisError

from arena.catalogue import DEFAULT_GAME
from arena.league.table import LeagueTable
from arena.queue.worker import RefereeWorker
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect
from tests.grpc.harness import Arena


@pytest.fixture
async def leagues(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node, given leagues on the test's redis-server and a referee worker."""
    client = connect(redis_server.url)
    service = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock, arena.node.registry.check_plays)
    arena.node.leagues = service
    arena.node.matches.runs = service.store.run_of  # as ``arena serve`` wires its leagues
    worker = RefereeWorker(
        service.queue, service.store, arena.node.matches, "node-test", default_game=DEFAULT_GAME, lease_seconds=2
    )
    stop = asyncio.Event()
    task = asyncio.ensure_future(worker.run(stop))
    try:
        yield service
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await client.aclose()


async def wait_done(service: LeagueService, league_id: str, seconds: float) -> None:
    """Wait until every scheduled match of the league has its result (riding out a Redis restart)."""
    for _ in range(int(seconds / 0.1)):
        with contextlib.suppress(RedisError):
            if (await service.get(league_id)).progress.finished:
                return
        await asyncio.sleep(0.1)
    raise AssertionError(f"league {league_id} not done in {seconds} s: {(await service.get(league_id)).progress}")


def assert_same_table(table: LeagueTable, other: LeagueTable) -> None:
    """The two tables agree: the same rows, counts exactly, ratings to a millionth of a point."""
    assert [(r.bot, r.rank, r.rated, r.matches, r.wins, r.points, r.timeouts) for r in table.rows] == [
        (r.bot, r.rank, r.rated, r.matches, r.wins, r.points, r.timeouts) for r in other.rows
    ]
    for row, twin in zip(table.rows, other.rows, strict=True):
        assert (row.rating, row.rating_low, row.rating_high) == pytest.approx(
            (twin.rating, twin.rating_low, twin.rating_high), abs=1e-6
        )
