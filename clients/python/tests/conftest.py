"""A scripted arena for the SDK's tests: a real grpc.aio server on 127.0.0.1, port 0.

Each ``Connect`` stream becomes a :class:`Peer` that the test drives by hand: it reads what the bot
sent, sends what the protocol says, and may end or abort the stream to exercise reconnects.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest

from arena import catalogue, wire
from arena.games.g5211 import Game5211
from arena.games.g5211.state import State
from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2

# Test the SDK in this checkout, whether or not (and wherever) arena-bot is installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GAME = Game5211()
STEP = 5.0
"""Upper bound, in seconds, on any single wait in these tests."""


class Peer:
    """The server's side of one bot stream."""

    def __init__(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        self.context = context
        self.finished = asyncio.Event()
        self.abort_with: tuple[grpc.StatusCode, str] | None = None

    async def recv(self, wait: float = STEP) -> bot_pb2.ConnectRequest:
        """The bot's next message."""
        message = await asyncio.wait_for(self.context.read(), wait)
        assert message is not grpc.aio.EOF, "the bot closed the stream"
        assert isinstance(message, bot_pb2.ConnectRequest)
        return message

    async def recv_kind(self, kind: str, wait: float = STEP) -> Any:
        """The bot's next message of ``kind`` (pings are skipped unless asked for)."""
        while True:
            message = await self.recv(wait)
            got = message.WhichOneof("kind")
            if got == kind:
                return getattr(message, kind)
            assert got == "ping", f"expected {kind}, got {message}"

    async def send(self, **kind: Any) -> None:
        """Send one ConnectResponse, e.g. ``send(welcome=Welcome(...))``."""
        await self.context.write(bot_pb2.ConnectResponse(**kind))

    async def welcome(self, keep_alive: float = 0.0) -> bot_pb2.Hello:
        """Read the Hello and answer Welcome."""
        hello = await self.recv_kind("hello")
        await self.send(
            welcome=bot_pb2.Welcome(
                bot_name="tester",
                keep_alive_interval=wire.duration_to_proto(keep_alive),
                games=list(hello.games),
                max_concurrent_matches=max(1, hello.max_concurrent_matches),
            )
        )
        return hello  # type: ignore[no-any-return]

    def end(self, code: grpc.StatusCode | None = None, details: str = "") -> None:
        """End the stream: cleanly, or with an error status."""
        if code is not None:
            self.abort_with = (code, details)
        self.finished.set()


class ScriptedBotService(bot_pb2_grpc.BotServiceServicer):
    """Hands every new stream to the test as a Peer and keeps it open until the test ends it."""

    def __init__(self) -> None:
        self.peers: asyncio.Queue[Peer] = asyncio.Queue()

    async def Connect(self, request_iterator: Any, context: Any) -> None:  # type: ignore[override]  # noqa: N802
        peer = Peer(context)
        await self.peers.put(peer)
        await peer.finished.wait()
        if peer.abort_with is not None:
            await context.abort(*peer.abort_with)

    async def next_peer(self, wait: float = STEP) -> Peer:
        """The next stream a bot opens."""
        return await asyncio.wait_for(self.peers.get(), wait)


class Arena:
    """A running scripted server."""

    def __init__(self, server: grpc.aio.Server, address: str, service: ScriptedBotService) -> None:
        self.server = server
        self.address = address
        self.service = service


@pytest.fixture
async def arena() -> AsyncIterator[Arena]:
    server = grpc.aio.server()
    service = ScriptedBotService()
    bot_pb2_grpc.add_BotServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield Arena(server, f"127.0.0.1:{port}", service)
    finally:
        await server.stop(0)


def states(num_players: int = 3, seed: int = 1) -> Iterator[State]:
    """A match played by taking the first legal action everywhere."""
    state = GAME.initial_state(num_players, seed)
    yield state
    while seats := GAME.to_move(state):
        state = GAME.apply(state, {s: GAME.legal_actions(state, s)[0] for s in seats})
        yield state


def match_started(match_id: str, seat: int = 0, num_players: int = 3) -> bot_pb2.MatchStarted:
    """A MatchStarted as the server sends it."""
    return bot_pb2.MatchStarted(
        match_id=match_id,
        game="5211",
        seat=seat,
        num_players=num_players,
        bot_names=[f"bot{s}" for s in range(num_players)],
        time_control=common_pb2.TimeControl(
            decision_allowance=wire.duration_to_proto(1.0),
            time_bank=wire.duration_to_proto(10.0),
            strike_limit=3,
            disconnect_grace=wire.duration_to_proto(30.0),
        ),
        options=wire.options_to_proto({"long_game": False}),
    )


def action_request(match_id: str, sequence: int, state: State, seat: int = 0) -> bot_pb2.ActionRequest:
    """An ActionRequest for ``seat`` in ``state``, as the server builds it."""
    request = bot_pb2.ActionRequest(
        match_id=match_id,
        sequence=sequence,
        seat=seat,
        allowance=wire.duration_to_proto(1.0),
        time_bank=wire.duration_to_proto(10.0),
        observation=catalogue.observation_to_proto(GAME.observe(state, seat)),
        legal_actions=[str(a) for a in GAME.legal_actions(state, seat)],
        action_hint=GAME.describe_action(state, seat),
    )
    request.deadline.GetCurrentTime()
    return request


def match_ended(match_id: str, seat: int = 0, num_players: int = 3) -> bot_pb2.MatchEnded:
    """A MatchEnded where seat 0 wins."""
    return bot_pb2.MatchEnded(
        match_id=match_id,
        seat=seat,
        outcome=common_pb2.Outcome(
            termination=common_pb2.TERMINATION_NORMAL,
            scores=[10 - s for s in range(num_players)],
            placings=[1 + s for s in range(num_players)],
            winners=[0],
        ),
    )
