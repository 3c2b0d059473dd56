"""A league or ladder id is never a way into the store's other keys.

Found in a trial: ``GetLeague("<id>:secret")`` read the league's deal secret as if it were its spec,
and the error that came back (UNKNOWN, ``UnicodeDecodeError``) quoted a byte of it; ``"<id>:pairs"``
answered UNKNOWN with Redis's WRONGTYPE. The same held for every call taking a league or ladder id.
"""

from __future__ import annotations

from collections.abc import Awaitable

import grpc
import pytest
import redis.asyncio as aioredis

from arena.errors import BadFilterError, LadderNotFoundError
from arena.service.ladders import LadderService
from arena.service.leagues import LeagueService
from arena.store.ladders import LadderStore
from arena.store.match_queue import MatchQueue
from arena.v1 import league_pb2, league_pb2_grpc, match_pb2, match_pb2_grpc
from tests.grpc.harness import ADMIN_METADATA, Arena
from tests.referee.doubles import ManualClock
from tests.security.test_league_secrecy import create_league

SUFFIXES = (":secret", ":pairs", ":results", ":cancelled", ":")


async def test_a_league_id_with_a_key_s_suffix_is_no_league(arena: Arena, leagues: LeagueService) -> None:
    for name in ("k1", "k2"):
        await arena.register(name)
    league = await create_league(arena, ["k1", "k2"], games=1, duplicate=True)
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    matches = match_pb2_grpc.MatchServiceStub(arena.channel)
    for suffix in SUFFIXES:
        bad = league.league_id + suffix
        calls: list[Awaitable[object]] = [
            stub.GetLeague(league_pb2.GetLeagueRequest(league_id=bad)),
            stub.GetLeaderboard(league_pb2.GetLeaderboardRequest(league_id=bad)),
            stub.CancelLeague(league_pb2.CancelLeagueRequest(league_id=bad), metadata=ADMIN_METADATA),
        ]
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND, (bad, refused.value.details())
            assert refused.value.details() == f"no league {bad!r}"
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await matches.ListMatches(match_pb2.ListMatchesRequest(league_id=bad))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (bad, refused.value.details())
        assert bad in (refused.value.details() or "")
    # Nothing changed: the league is still there and not cancelled.
    again = await stub.GetLeague(league_pb2.GetLeagueRequest(league_id=league.league_id))
    assert again.league.state != league_pb2.LEAGUE_STATE_CANCELLED


async def test_a_ladder_id_with_a_key_s_suffix_is_no_ladder(arena_client: aioredis.Redis) -> None:
    ladders = LadderService(LadderStore(arena_client), MatchQueue(arena_client), ManualClock())
    info = await ladders.create("5211", 2, duplicate=True)
    for suffix in SUFFIXES:
        bad = info.ladder_id + suffix
        for call in (ladders.get(bad), ladders.standings(bad), ladders.pause(bad), ladders.history(bad, "k1")):
            with pytest.raises(LadderNotFoundError, match=f"^no ladder {bad!r}$"):
                await call
    assert (await ladders.get(info.ladder_id)).state == info.state


def test_a_list_filter_that_is_no_league_or_ladder_id_is_refused_naming_it() -> None:
    from arena.store.match_index import MatchQuery

    for bad in ("L1:secret", "LD1:pairs", "a b", "x" * 65):
        with pytest.raises(BadFilterError, match="is not a"):
            MatchQuery(league=bad)
        with pytest.raises(BadFilterError, match="is not a"):
            MatchQuery(ladder=bad)
    assert MatchQuery(league="L0123abcd").league == "L0123abcd"


async def test_a_bug_s_exception_is_logged_not_sent(arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    """What an unexpected exception says may quote what it read (the trial's error quoted a byte of a
    deal secret): the client is told INTERNAL and which call, the log has the rest."""

    class Broken:
        async def get(self, league_id: str) -> None:
            raise RuntimeError(f"read b'\\xee' under {league_id}")

    arena.node.leagues = Broken()  # type: ignore[assignment]  # a stand-in for a bug, not a service
    stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.GetLeague(league_pb2.GetLeagueRequest(league_id="L1"))
    assert refused.value.code() == grpc.StatusCode.INTERNAL
    assert refused.value.details() == "GetLeague failed: the node logged why"
    assert "\\xee" in caplog.text and "RuntimeError" in caplog.text
