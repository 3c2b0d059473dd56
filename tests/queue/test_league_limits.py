"""A league over the size limits is refused, naming the numbers, before anything is scheduled."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import grpc
import pytest

from arena.league.schedule import Design, LeagueFormat, LeagueSpec, match_count, schedule_league
from arena.service.leagues import LeagueService
from arena.service.limits import Limits
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import connect
from arena.v1 import league_pb2, league_pb2_grpc
from tests.grpc.harness import ADMIN_METADATA, Arena


@pytest.fixture
async def leagues(arena: Arena, redis_server: EmbeddedRedis) -> AsyncIterator[LeagueService]:
    """The arena fixture's node with small league limits, on the test's redis-server (nothing plays)."""
    client = connect(redis_server.url)
    limits = Limits(max_league_bots=12, max_league_matches=1000)
    arena.node.leagues = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock, limits=limits)
    try:
        yield arena.node.leagues
    finally:
        await client.aclose()


async def create(arena: Arena, bots: int, games: int) -> league_pb2.CreateLeagueResponse:
    spec = league_pb2.LeagueSpec(game="5211", players_per_match=2, bot_names=[f"b{i}" for i in range(bots)])
    spec.games_per_pairing = games
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    return await stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=spec), metadata=ADMIN_METADATA)


@pytest.mark.parametrize(
    ("bots", "games", "message"),
    [
        (10, 50, "a league of 2250 matches is too big: at most 1000"),
        (13, 1, "a league of 13 bots is too big: at most 12"),
    ],
)
async def test_a_league_over_the_limits_is_refused_and_nothing_is_stored(
    arena: Arena, leagues: LeagueService, bots: int, games: int, message: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await create(arena, bots, games)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (raised.value.details() or "")
    assert await leagues.store.league_ids(10) == []
    created = await create(arena, 10, 20)  # 900 matches: fits
    assert created.league.progress.total == 900


def test_the_match_count_is_exact_or_for_a_cyclic_design_an_upper_bound() -> None:
    for n, k, games, duplicate, gauntlet in itertools.product(
        (3, 5, 9, 14), (2, 3, 4), (1, 3), (False, True), (False, True)
    ):
        if k > n:
            continue
        bots = tuple(f"b{i}" for i in range(n))
        spec = LeagueSpec(
            "L",
            "5211",
            k,
            bots,
            games_per_pairing=games,
            duplicate=duplicate,
            format=LeagueFormat.GAUNTLET if gauntlet else LeagueFormat.ROUND_ROBIN,
            candidate="b0" if gauntlet else None,
            max_tables=40,
        )
        scheduled = len(schedule_league(spec))
        assert scheduled <= match_count(spec), spec
        if spec.design is not Design.CYCLIC:
            assert scheduled == match_count(spec), spec
