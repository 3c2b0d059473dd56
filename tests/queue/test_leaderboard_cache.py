"""GetLeaderboard fits a league's table once per league version, however many anonymous callers ask."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from arena.league.aggregate import PairingAggregate
from arena.league.result import StoredResult
from arena.league.schedule import LeagueSpec
from arena.league.table import LeagueTable
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect
from arena.v1 import league_pb2, league_pb2_grpc
from tests.grpc.harness import Arena


@pytest.fixture
async def leagues(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node with leagues on the test's redis-server (no worker: nothing plays)."""
    client = connect(redis_server.url)
    arena.node.leagues = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock)
    try:
        yield arena.node.leagues
    finally:
        await client.aclose()


async def test_the_leaderboard_is_fitted_once_per_league_version(
    arena: Arena, leagues: LeagueService, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = LeagueSpec("Lcache", "5211", 2, ("a", "b", "c"), games_per_pairing=4, seed=3)
    await leagues.create(spec, TimeControl())
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    fits: list[int] = []
    original = LeagueTable.from_aggregate.__func__  # type: ignore[attr-defined]

    def counting(cls: type[LeagueTable], /, aggregate: PairingAggregate, bots: Sequence[str] = (), **kw: Any) -> Any:
        fits.append(aggregate.rated)
        return original(cls, aggregate, bots, **kw)

    monkeypatch.setattr(LeagueTable, "from_aggregate", classmethod(counting))

    async def board() -> league_pb2.GetLeaderboardResponse:
        return await stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id="Lcache"))

    async def add_result(i: int) -> None:
        match = await leagues.store.match("Lcache", f"Lcache.{i:05d}")
        assert match is not None
        result = StoredResult(match["match_id"], tuple(match["bots"]), (10, 5), (1, 2), timeouts=(0, 0))
        stored, _ = await leagues.store.record_result("Lcache", match["match_id"], match["deal_id"], result.to_dict())
        assert stored

    first = await asyncio.gather(*(board() for _ in range(20)))
    assert fits == [0]
    await add_result(0)
    await add_result(1)
    boards = [await board() for _ in range(20)]
    assert fits == [0, 2]
    assert {tuple(e.bot_name for e in b.entries) for b in boards} == {tuple(e.bot_name for e in boards[0].entries)}
    assert sum(e.matches for e in boards[-1].entries) == 4  # two matches, two seats each
    assert len(first[0].entries) == 3
