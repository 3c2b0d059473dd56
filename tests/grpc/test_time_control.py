"""A time control from the wire (StartMatch, CreateLeague, CreateLadder) is checked before anything is
done: a Duration that is not one, a negative one, or one past what any match needs is INVALID_ARGUMENT
naming the field and the value, and nothing starts, is stored or is queued."""

from __future__ import annotations

import grpc
import pytest
import redis.asyncio as aioredis
from google.protobuf import duration_pb2

from arena.service.ladders import LadderService
from arena.service.leagues import LeagueService
from arena.store.ladders import LadderStore
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.v1 import common_pb2, ladder_pb2, ladder_pb2_grpc, league_pb2, league_pb2_grpc, match_pb2
from tests.grpc.harness import ADMIN_METADATA, Arena

TEN_THOUSAND_YEARS = 315_360_000_000

BAD: list[tuple[str, duration_pb2.Duration | int, str]] = [
    (
        "disconnect_grace",
        duration_pb2.Duration(seconds=TEN_THOUSAND_YEARS),
        "disconnect_grace must be between 0 and 1 hour, not 315360000000 s",
    ),
    ("time_bank", duration_pb2.Duration(seconds=86_400), "time_bank must be between 0 and 1 hour, not 86400 s"),
    ("time_bank", duration_pb2.Duration(seconds=-1), "time_bank must be between 0 and 1 hour, not -1 s"),
    (
        "decision_allowance",
        duration_pb2.Duration(seconds=-5),
        "decision_allowance must be more than 0 and at most 10 minutes, not -5 s",
    ),
    (
        "decision_allowance",
        duration_pb2.Duration(),
        "decision_allowance must be more than 0 and at most 10 minutes, not 0 s",
    ),
    (
        "decision_allowance",
        duration_pb2.Duration(nanos=2_000_000_000),
        "decision_allowance is not a Duration: nanos must be between -999999999 and 999999999, not 2000000000",
    ),
    (
        "time_bank",
        duration_pb2.Duration(seconds=1, nanos=-500_000_000),
        "time_bank is not a Duration: seconds and nanos must have the same sign, not 1 and -500000000",
    ),
    (  # named as sent, not as the nearest float (a trial's: "not 315360000000 s")
        "time_bank",
        duration_pb2.Duration(seconds=TEN_THOUSAND_YEARS, nanos=1),
        "time_bank must be between 0 and 1 hour, not 315360000000.000000001 s",
    ),
    (  # a trial's: accepted as it came
        "strike_limit",
        4_294_967_295,  # a -1 sent as an unsigned number
        "strike_limit must be at most 10000, not 4294967295",
    ),
]
"""(field, value, the error's details after the field's path)."""


def time_control(field: str, value: duration_pb2.Duration | int) -> common_pb2.TimeControl:
    message = common_pb2.TimeControl()
    if isinstance(value, int):
        setattr(message, field, value)
    else:
        getattr(message, field).CopyFrom(value)
    return message


async def status_of(call: object) -> tuple[grpc.StatusCode, str]:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


@pytest.mark.parametrize(("field", "value", "details"), BAD, ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(BAD)])
async def test_a_start_match_time_control_out_of_range_is_refused_naming_the_field_and_value(
    arena: Arena, field: str, value: duration_pb2.Duration | int, details: str
) -> None:
    for name in ("ann", "bob"):
        await arena.connect(name)
    request = match_pb2.StartMatchRequest(
        game="5211", bot_names=["ann", "bob"], time_control=time_control(field, value)
    )
    assert await status_of(arena.matches.StartMatch(request, metadata=ADMIN_METADATA)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        f"time_control.{details}",
    )
    assert not arena.node.matches.running


async def test_league_and_ladder_time_controls_out_of_range_are_refused_and_nothing_is_stored(
    arena_client: aioredis.Redis, arena: Arena
) -> None:
    for name in ("ann", "bob"):
        await arena.register(name)
    leagues = LeagueService(
        LeagueStore(arena_client), MatchQueue(arena_client), arena.node.clock, arena.node.registry.check_plays
    )
    ladders = LadderService(LadderStore(arena_client), leagues.queue, arena.node.clock)
    arena.node.leagues, arena.node.ladders = leagues, ladders
    league_stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
    ladder_stub = ladder_pb2_grpc.LadderServiceStub(arena.channel)
    for field, value, details in BAD:
        tc = time_control(field, value)
        league = league_pb2.LeagueSpec(game="5211", bot_names=["ann", "bob"], players_per_match=2, time_control=tc)
        create_league = league_stub.CreateLeague(league_pb2.CreateLeagueRequest(spec=league), metadata=ADMIN_METADATA)
        assert await status_of(create_league) == (grpc.StatusCode.INVALID_ARGUMENT, f"spec.time_control.{details}")
        ladder = ladder_pb2.LadderSpec(game="5211", players_per_match=2, time_control=tc)
        create_ladder = ladder_stub.CreateLadder(ladder_pb2.CreateLadderRequest(spec=ladder), metadata=ADMIN_METADATA)
        assert await status_of(create_ladder) == (grpc.StatusCode.INVALID_ARGUMENT, f"spec.time_control.{details}")
    assert await leagues.recent() == [] and await ladders.recent() == []
    assert (await leagues.queue.depth())[0] == 0


async def test_time_controls_at_the_bounds_are_accepted(arena: Arena) -> None:
    for name in ("ann", "bob"):
        await arena.connect(name)
    tc = common_pb2.TimeControl(
        decision_allowance=duration_pb2.Duration(seconds=600),
        time_bank=duration_pb2.Duration(seconds=3600),
        disconnect_grace=duration_pb2.Duration(seconds=3600),
        strike_limit=10_000,
    )
    request = match_pb2.StartMatchRequest(game="5211", bot_names=["ann", "bob"], seed=1, time_control=tc)
    match_id = (await arena.matches.StartMatch(request, metadata=ADMIN_METADATA)).match_id
    end = await arena.bots[-1].wait_ended(match_id, 10)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
