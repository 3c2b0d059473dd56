"""Protocol robustness: bytes that do not decode, a bot in two seats, names, echoed input, lost ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
import redis.asyncio as aioredis

from arena.errors import NameTakenError
from arena.games.lookup import GAMES
from arena.referee.timecontrol import TimeControl
from arena.service.auth import BotRegistry
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import RedisTokenStore, connect
from arena.v1 import (
    bot_pb2,
    common_pb2,
    league_pb2,
    league_pb2_grpc,
    match_pb2,
    registry_pb2,
    registry_pb2_grpc,
)
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually, stalled_end
from tests.grpc.rawbot import RawBot
from tests.registered import registered

ECHO_LIMIT = 80
"""The documented length to which echoed input is cut (bot.proto, registry.proto)."""
MAX_DETAILS = ECHO_LIMIT + 400
"""Error details echo at most ECHO_LIMIT characters of any input, plus their own words."""

GARBAGE = b"\xff\xff\xff\xff\x0f"
"""Not a protobuf message of any type (a truncated field with an invalid wire type)."""


def identity(data: bytes) -> bytes:
    return data


async def raw_unary(arena: Arena, method: str, body: bytes) -> grpc.aio.AioRpcError:
    call = arena.channel.unary_unary(method, request_serializer=identity, response_deserializer=identity)
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await asyncio.wait_for(call(body, metadata=ADMIN_METADATA), 10)
    return failure.value


async def raw_stream(arena: Arena, messages: list[bytes], keep_open: float = 10.0) -> grpc.aio.AioRpcError | None:
    """Send raw frames on a Connect stream (then keep it open); the status the server ends it with."""
    call = arena.channel.stream_stream(
        "/arena.v1.BotService/Connect", request_serializer=identity, response_deserializer=identity
    )

    async def requests() -> AsyncIterator[bytes]:
        for message in messages:
            yield message
        await asyncio.sleep(keep_open)

    try:
        async for _ in call(requests()):
            pass
    except grpc.aio.AioRpcError as error:
        return error
    return None


def hello(token: str, *games: str) -> bytes:
    return bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token=token, games=list(games))).SerializeToString()


async def register(arena: Arena, name: str, *games: str) -> registry_pb2.RegisterBotResponse:
    stub = registry_pb2_grpc.RegistryServiceStub(arena.channel)
    request = registry_pb2.RegisterBotRequest(name=name, games=list(games))
    return await stub.RegisterBot(request, metadata=ADMIN_METADATA)


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await asyncio.wait_for(call, 10)  # type: ignore[arg-type]
    return failure.value


# -- bytes that do not decode -----------------------------------------------------------------------


async def test_an_undecodable_message_after_hello_ends_the_stream_with_invalid_argument(arena: Arena) -> None:
    token = await arena.register("garbler")
    error = await asyncio.wait_for(raw_stream(arena, [hello(token), GARBAGE]), 10)
    assert error is not None
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not decode" in (error.details() or "")
    await eventually(lambda: arena.node.hub.sessions["garbler"].connection is None)


async def test_an_undecodable_first_message_is_invalid_argument(arena: Arena) -> None:
    error = await asyncio.wait_for(raw_stream(arena, [GARBAGE]), 10)
    assert error is not None
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ConnectRequest" in (error.details() or "")


@pytest.mark.parametrize(
    "method",
    [
        "/arena.v1.RegistryService/RegisterBot",
        "/arena.v1.LeagueService/GetLeague",
        "/arena.v1.MatchService/StartMatch",
        "/arena.v1.MatchService/ListMatches",
    ],
)
async def test_garbage_bytes_as_a_request_are_invalid_argument_not_unknown(arena: Arena, method: str) -> None:
    error = await raw_unary(arena, method, GARBAGE)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = error.details() or ""
    assert "does not decode" in details
    assert "DecodeError" not in details and "class" not in details


async def test_a_malformed_page_token_is_invalid_argument(arena: Arena) -> None:
    for token in ("²", "-1", "abc", "1" * 200, "50"):  # page tokens are opaque cursors the server gave out
        with pytest.raises(grpc.aio.AioRpcError) as failure:
            await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_token=token))
        assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "page token" in (failure.value.details() or "")
        assert len(failure.value.details() or "") <= MAX_DETAILS


# -- a bot in two seats -----------------------------------------------------------------------------


async def test_a_bot_seated_twice_plays_both_seats(arena: Arena) -> None:
    twin = await arena.connect("twin")
    await arena.connect("single")
    match_id = await arena.start_match(["twin", "twin", "single"], seed=5)
    end = await twin.wait_ended(match_id, 30)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not end.outcome.forfeited_seats
    assert not twin.messages("action_rejected")
    assert not twin.messages("error")
    assert sorted(m.seat for m in twin.messages("match_started")) == [0, 1]
    await eventually(lambda: sorted(m.seat for m in twin.messages("match_ended")) == [0, 1])
    record = await arena.record(match_id)
    assert {d.seat for d in record.decisions if not d.fault} == {0, 1, 2}


async def test_a_bot_in_two_seats_must_say_which_seat_it_answers_for(arena: Arena) -> None:
    old = await arena.connect("old-twin", chooser=lambda request: None)
    await arena.connect("partner")
    tc = TimeControl(decision_allowance=5.0, time_bank=0.0, strike_limit=3, disconnect_grace=5.0)
    match_id = await arena.start_match(["old-twin", "old-twin", "partner"], tc=tc)
    await eventually(lambda: len(old.messages("action_request")) >= 2)
    request = old.messages("action_request")[0]
    old.send_action(match_id, request.sequence, request.legal_actions[0])  # no seat
    await eventually(lambda: old.messages("error"))
    assert "holds 2 seats" in old.messages("error")[0].reason
    old.send_action(match_id, request.sequence, request.legal_actions[0], seat=7)
    await eventually(lambda: len(old.messages("error")) >= 2)
    assert "no seat 7" in old.messages("error")[1].reason


async def test_a_client_that_does_not_echo_the_seat_still_plays_a_single_seat(arena: Arena) -> None:
    token = await arena.register("legacy")
    legacy = RawBot(arena.address, token, echo_seat=False).start()
    arena.bots.append(legacy)
    await legacy.welcomed.wait()
    await arena.connect("modern")
    match_id = await arena.start_match(["modern", "legacy"], seed=2)
    end = await legacy.wait_ended(match_id, 30)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not legacy.messages("action_rejected") and not legacy.messages("error")


# -- names and games --------------------------------------------------------------------------------


async def test_a_name_with_a_trailing_newline_is_refused(arena: Arena, arena_client: aioredis.Redis) -> None:
    await arena.register("alice")
    for name in ("alice\n", "bob\n", "carol\r\n"):
        error = await refused(register(arena, name))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, name
    assert await registered(arena_client) == ["alice"]


async def test_a_name_that_differs_only_by_case_is_taken(arena: Arena, arena_client: aioredis.Redis) -> None:
    await arena.register("alice")
    for name in ("Alice", "ALICE", "alicE"):
        error = await refused(register(arena, name))
        assert error.code() == grpc.StatusCode.ALREADY_EXISTS
        assert "already registered" in (error.details() or "") and "regardless of case" in (error.details() or "")
    assert await registered(arena_client) == ["alice"]


async def test_registering_for_an_unknown_game_is_invalid_argument_and_registers_nothing(
    arena: Arena, arena_client: aioredis.Redis
) -> None:
    error = await refused(register(arena, "chessbot", "chess"))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'chess'" in (error.details() or "")
    assert await registered(arena_client) == []
    assert list((await register(arena, "chessbot", "5211")).bot.games) == ["5211"]


@pytest.fixture
def second_game() -> str:
    """The arena's second game, so registration can be narrower than every game."""
    assert {"5211", "coloretto"} <= set(GAMES)
    return "coloretto"


async def test_the_registered_games_are_kept_and_enforced(arena: Arena, second_game: str) -> None:
    narrow = await register(arena, "narrow", "5211")
    assert list(narrow.bot.games) == ["5211"]
    wide = await register(arena, "wide")
    assert sorted(wide.bot.games) == sorted(GAMES)
    assert await arena.node.registry.games_of("narrow") == frozenset({"5211"})
    # A Hello for a game the bot is not registered for is refused, naming it.
    error = await asyncio.wait_for(raw_stream(arena, [hello(narrow.token, second_game)]), 10)
    assert error is not None and error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert second_game in (error.details() or "") and "narrow" in (error.details() or "")
    # An empty Hello plays every registered game, and only those.
    bot = RawBot(arena.address, narrow.token, games=()).start()
    arena.bots.append(bot)
    await bot.welcomed.wait()
    assert list(bot.messages("welcome")[0].games) == ["5211"]
    await arena.connect("partner2")
    # A match in a game the bot is not registered for is refused, naming the bot and the game.
    request = match_pb2.StartMatchRequest(game=second_game, bot_names=["narrow", "partner2"])
    error = await refused(arena.matches.StartMatch(request, metadata=ADMIN_METADATA))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'narrow'" in (error.details() or "") and second_game in (error.details() or "")


async def test_a_league_in_a_game_a_bot_is_not_registered_for_is_refused(
    arena: Arena, second_game: str, redis_server: EmbeddedRedis
) -> None:
    client = connect(redis_server.url)
    checks = arena.node.registry.check_plays
    arena.node.leagues = LeagueService(LeagueStore(client), MatchQueue(client), arena.node.clock, checks)
    try:
        await register(arena, "narrow-l", "5211")
        await register(arena, "wide-l")
        stub = league_pb2_grpc.LeagueServiceStub(arena.channel)
        spec = league_pb2.LeagueSpec(
            game=second_game, players_per_match=2, bot_names=["wide-l", "narrow-l"], games_per_pairing=1
        )
        request = league_pb2.CreateLeagueRequest(spec=spec)
        error = await refused(stub.CreateLeague(request, metadata=ADMIN_METADATA))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "'narrow-l'" in (error.details() or "") and second_game in (error.details() or "")
        assert not await arena.node.leagues.recent()
    finally:
        await client.aclose()


async def test_names_are_unique_regardless_of_case_in_redis_even_when_registered_at_once(
    redis_server: EmbeddedRedis,
) -> None:
    client = connect(redis_server.url)
    try:
        registry = BotRegistry(RedisTokenStore(client), open_registration=True)
        names = ["Alice", "alice", "ALICE", "aLiCe"] * 5
        results = await asyncio.gather(*(registry.register(n, games=["5211"]) for n in names), return_exceptions=True)
        winners = [(name, r) for name, r in zip(names, results, strict=True) if isinstance(r, str)]
        assert len(winners) == 1
        assert all(isinstance(r, NameTakenError) for r in results if not isinstance(r, str))
        [(name, token)] = winners
        assert await registered(client) == [name]
        assert await registry.games_of(name) == frozenset({"5211"})
        assert await registry.authenticate(token) == name
    finally:
        await client.aclose()


# -- echoed input -----------------------------------------------------------------------------------


async def test_a_huge_game_name_gets_a_short_clear_error(arena: Arena) -> None:
    huge = "g" * 60_000
    request = match_pb2.StartMatchRequest(game=huge, bot_names=["a", "b"])
    error = await refused(arena.matches.StartMatch(request, metadata=ADMIN_METADATA))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = error.details() or ""
    assert "unknown game" in details and "60000 characters" in details
    assert len(details) <= MAX_DETAILS
    error = await refused(register(arena, "bighead", huge))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(error.details() or "") <= MAX_DETAILS
    token = await arena.register("hello-huge")
    stream_error = await asyncio.wait_for(raw_stream(arena, [hello(token, huge)]), 10)
    assert stream_error is not None and stream_error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert len(stream_error.details() or "") <= MAX_DETAILS


async def test_a_huge_action_is_echoed_truncated_in_the_rejection(arena: Arena) -> None:
    huge = "G1 " * 15_000  # parses as a play of 15 000 cards: illegal, and echoed
    answers = iter([huge])
    cheat = await arena.connect("long-winded", chooser=lambda request: next(answers, request.legal_actions[0]))
    await arena.connect("listener")
    match_id = await arena.start_match(["long-winded", "listener"])
    await cheat.wait_ended(match_id, 30)
    [rejection] = cheat.messages("action_rejected")
    assert len(rejection.reason) <= MAX_DETAILS
    record = await arena.record(match_id)
    assert all(len(r.reason) <= MAX_DETAILS for r in record.rejections)


async def test_a_huge_unknown_match_id_is_echoed_truncated(arena: Arena) -> None:
    bot = await arena.connect("prober")
    bot.send_action("m" * 30_000, 1, "G1")
    await eventually(lambda: bot.messages("error"))
    error = bot.messages("error")[0]
    assert len(error.reason) <= MAX_DETAILS and len(error.match_id) <= ECHO_LIMIT


# -- match ends are not lost ------------------------------------------------------------------------


async def test_a_match_end_queued_to_a_dropped_connection_is_told_on_the_next(arena: Arena) -> None:
    ended = await stalled_end(arena)
    await asyncio.sleep(0.2)
    stalled = arena.node.hub.sessions["dropper"].connection
    assert stalled is not None and stalled.unconfirmed, "the match end should be queued behind the stalled writes"
    ended.call.cancel()
    await ended.channel.close()
    await eventually(lambda: arena.node.hub.sessions["dropper"].connection is None)
    again = RawBot(arena.address, ended.token).start()
    arena.bots.append(again)
    told = await again.wait_ended(ended.match_id, 10)
    assert told.outcome == (await ended.stays.wait_ended(ended.match_id)).outcome
