"""The test harness: a real arena gRPC server on 127.0.0.1 (a free port), real channels, raw bots.

An :class:`Arena` plays one game (``game``: its bots connect for it and its matches are of it): the
``arena`` fixture the default game, ``game_arena`` each hosted game of the catalogue in turn (a
pytest parameter), for the tests about the protocol rather than one game's rules."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from google.protobuf import duration_pb2

from arena import catalogue
from arena.grpc.server import GrpcServer, start_server
from arena.node import ArenaNode
from arena.referee.timecontrol import TimeControl
from arena.serve.launch import start_serve
from arena.serve.process import redis_node as serve_node
from arena.service.limits import Limits
from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect
from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from tests.grpc.rawbot import Chooser, RawBot

ADMIN = "admin-secret-for-tests"
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN}"),)


@dataclasses.dataclass
class Arena:
    node: ArenaNode
    server: GrpcServer
    channel: grpc.aio.Channel
    bots: list[RawBot] = dataclasses.field(default_factory=list)
    game: str = catalogue.DEFAULT_GAME
    """The game its bots connect for and its matches play."""

    @property
    def players(self) -> int:
        """The fewest seats a match of ``game`` has."""
        return catalogue.entry(self.game).rules.player_counts.start

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def matches(self) -> match_pb2_grpc.MatchServiceAsyncStub:
        return match_pb2_grpc.MatchServiceStub(self.channel)

    async def register(self, name: str) -> str:
        stub = registry_pb2_grpc.RegistryServiceStub(self.channel)
        response = await stub.RegisterBot(registry_pb2.RegisterBotRequest(name=name), metadata=ADMIN_METADATA)
        return response.token

    async def connect(
        self, name: str, chooser: Chooser | None = None, capacity: int = 16, think_seconds: float = 0.0
    ) -> RawBot:
        token = await self.register(name)
        bot = RawBot(self.address, token, chooser, capacity, games=(self.game,), think_seconds=think_seconds).start()
        self.bots.append(bot)
        await bot.welcomed.wait()
        return bot

    async def start_match(
        self, names: list[str], seed: int = 1, tc: TimeControl | None = None, game: str = "", **options: str
    ) -> str:
        request = match_pb2.StartMatchRequest(game=game or self.game, bot_names=names, seed=seed, options=options)
        if tc is not None:
            request.time_control.CopyFrom(
                common_pb2.TimeControl(
                    decision_allowance=duration_pb2.Duration(seconds=0, nanos=0),
                    strike_limit=tc.strike_limit,
                )
            )
            request.time_control.decision_allowance.FromNanoseconds(int(tc.decision_allowance * 1e9))
            request.time_control.time_bank.FromNanoseconds(int(tc.time_bank * 1e9))
            request.time_control.disconnect_grace.FromNanoseconds(int(tc.disconnect_grace * 1e9))
        response = await self.matches.StartMatch(request, metadata=ADMIN_METADATA)
        return response.match_id

    async def record(self, match_id: str) -> match_pb2.MatchRecord:
        response = await self.matches.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))
        return response.record


@pytest.fixture(scope="session")
def arena_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """The arena's embedded redis-server that the ``arena`` fixtures' nodes keep their bots and
    records in: one a test session (a pytest-xdist worker), its database emptied for each node.
    These tests are not about surviving a crash, so it does not sync each write to disk."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("arena-redis")).start()
    try:
        with redis.Redis.from_url(server.url) as client:
            client.config_set("appendfsync", "no")
        yield server
    finally:
        server.stop()


@pytest.fixture
async def arena_client(arena_redis: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    """A client of the session's redis-server, whose database the test starts empty."""
    client = connect(arena_redis.url)
    await client.flushdb()
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def arena(arena_redis: EmbeddedRedis) -> AsyncIterator[Arena]:
    async with limited_arena(arena_redis) as served:
        yield served


@pytest.fixture(params=catalogue.names())
async def game_arena(request: pytest.FixtureRequest, arena_redis: EmbeddedRedis) -> AsyncIterator[Arena]:
    """The ``arena`` fixture, once for each hosted game."""
    async with limited_arena(arena_redis) as served:
        served.game = request.param
        yield served


@contextlib.asynccontextmanager
async def redis_node(redis: EmbeddedRedis, admin_token: str | None = ADMIN, **options: Any) -> AsyncIterator[ArenaNode]:
    """A node built the way ``arena serve`` builds its core (``arena.serve.process.redis_node``) on
    ``redis``, whose database it starts empty; ``options`` are that function's."""
    client = connect(redis.url)
    await client.flushdb()
    try:
        yield serve_node(client, admin_token, **options)
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def limited_arena(redis: EmbeddedRedis, front: Path | None = None, **limits: float) -> AsyncIterator[Arena]:
    """The ``arena`` fixture's server (a node on ``redis``, emptied first; 1 s keep-alive), with these
    limits; behind ``front`` (``arena-front``, built) if given."""
    async with redis_node(redis, keep_alive_seconds=1.0, limits=Limits(**limits)) as node:  # type: ignore[arg-type]
        server = await start_server(node, "127.0.0.1:0", front=front)
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        arena = Arena(node, server, channel)
        try:
            yield arena
        finally:
            for bot in arena.bots:
                await bot.stop()
            await node.matches.shutdown(0.5)
            await channel.close()
            await server.stop(0.5)


@dataclasses.dataclass
class StalledEnd:
    """A match that ended while its bot "dropper" had a stream that stopped reading (``stalled_end``)."""

    token: str
    """Dropper's token, to connect again."""
    match_id: str
    stays: RawBot
    """The other seat's bot, which reads as it should."""
    channel: grpc.aio.Channel
    call: grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse]
    """Dropper's stalled stream (cancel it, then close ``channel``, to drop it)."""


async def stalled_end(arena: Arena) -> StalledEnd:
    """Bot "dropper" connects, reads its Welcome and then nothing: its small receive window fills and
    the server's writes to it wait. It plays a match against "stays" (answering nothing, so it times
    out at every turn) to the match's end, whose message is then queued behind the stalled writes."""
    token = await arena.register("dropper")
    stays = await arena.connect("stays")
    channel = grpc.aio.insecure_channel(
        arena.address, options=[("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
    )
    hello = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token=token, games=["5211"]))

    async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
        yield hello
        await asyncio.sleep(60)

    call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests())
    first = await call.read()
    assert isinstance(first, bot_pb2.ConnectResponse)  # not grpc.aio.EOF
    assert first.WhichOneof("kind") == "welcome"
    tc = TimeControl(decision_allowance=0.02, time_bank=0.0, strike_limit=1000, disconnect_grace=30.0)
    match_id = await arena.start_match(["dropper", "stays"], tc=tc)
    record = await asyncio.wait_for(arena.node.matches.wait(match_id), 60)
    assert record.outcome is not None
    return StalledEnd(token, match_id, stays, channel, call)


async def eventually(predicate: Callable[[], object], seconds: float = 10.0) -> None:
    """Wait until ``predicate()`` is true, polling; fail after ``seconds``."""
    for _ in range(int(seconds / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"condition not met within {seconds} s")


async def located(client: aioredis.Redis, *bots: str, seconds: float = 15.0) -> None:
    """Wait until every bot named is in the node directory (its node has said where it is connected)."""
    for _ in range(int(seconds / 0.05)):
        if await client.exists(*(f"arena:botat:{bot}" for bot in bots)) == len(bots):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"bots {', '.join(bots)} were not all located within {seconds} s")


QUICK_NODE = ["--lease-seconds", "1", "--heartbeat-seconds", "1"]
"""A node whose queued matches and node id a killed node's restart takes back within seconds."""


def start_node(redis_url: str, node_id: str, port: int, data: Path, web_port: int = 0) -> subprocess.Popen[str]:
    """An ``arena serve`` node on an external Redis, with a 1 s lease, a heartbeat a second (gone after
    3 s silent) and open registration; matches and leagues need ``ADMIN`` (the caller stops it). No
    web site unless ``web_port`` is given."""
    args = ["--address", f"127.0.0.1:{port}", "--redis", redis_url, "--node-id", node_id, *QUICK_NODE]
    args += ["--open-registration", "--admin-token", ADMIN, "--data-dir", str(data), "--metrics-address", ""]
    args += ["--web-port", str(web_port)]
    args += ["--log-format", "text", "--log-level", "warning"]
    return start_serve(args)[0]
