"""A bot written from the proto alone (arena.v1 messages and grpc, no SDK): the contract is enough.

It records every message it receives, so tests can check what a seat was told.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any, Self

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc

Chooser = Callable[[bot_pb2.ActionRequest], str | None]
"""Returns the action text to send, or None to stay silent."""


def random_chooser(seed: int = 0) -> Callable[[bot_pb2.ActionRequest], str]:
    rng = random.Random(seed)
    return lambda request: rng.choice(list(request.legal_actions))


class RawBot:
    """One connection of one bot; ``run`` plays until the stream ends or ``stop`` is called."""

    def __init__(
        self,
        address: str,
        token: str,
        chooser: Chooser | None = None,
        capacity: int = 16,
        games: tuple[str, ...] = ("5211",),
        echo_seat: bool = True,
        client_name: str = "rawbot",
        think_seconds: float = 0.0,
    ) -> None:
        self.address = address
        self.token = token
        self.chooser = chooser or random_chooser()
        self.capacity = capacity
        self.games = games
        self.echo_seat = echo_seat
        self.client_name = client_name
        """Whether Actions carry the request's seat (clients older than the field leave it unset)."""
        self.think_seconds = think_seconds
        """How long it waits before answering each request (a match of its lasts a while)."""
        self.received: list[bot_pb2.ConnectResponse] = []
        self.ended: dict[str, bot_pb2.MatchEnded] = {}
        self.started: dict[str, bot_pb2.MatchStarted] = {}
        self.outbox: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
        self.welcomed = asyncio.Event()
        self.error: grpc.aio.AioRpcError | None = None
        self._match_ended = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self.channel: grpc.aio.Channel | None = None

    def start(self) -> Self:
        self._task = asyncio.ensure_future(self.run())
        return self

    async def _requests(self) -> AsyncIterator[bot_pb2.ConnectRequest]:
        yield bot_pb2.ConnectRequest(
            hello=bot_pb2.Hello(
                token=self.token,
                games=list(self.games),
                max_concurrent_matches=self.capacity,
                client_name=self.client_name,
            )
        )
        while (message := await self.outbox.get()) is not None:
            yield message

    def send_action(self, match_id: str, sequence: int, text: str, seat: int | None = None) -> None:
        action = bot_pb2.Action(match_id=match_id, sequence=sequence, text=text)
        if seat is not None:
            action.seat = seat
        self.outbox.put_nowait(bot_pb2.ConnectRequest(action=action))

    async def run(self) -> None:
        async with grpc.aio.insecure_channel(self.address) as channel:
            self.channel = channel
            stub = bot_pb2_grpc.BotServiceStub(channel)
            try:
                async for response in stub.Connect(self._requests()):
                    self.received.append(response)
                    await self.handle(response)
            except grpc.aio.AioRpcError as error:
                self.error = error
            except asyncio.CancelledError:
                pass

    async def handle(self, response: bot_pb2.ConnectResponse) -> None:
        kind = response.WhichOneof("kind")
        if kind == "welcome":
            self.welcomed.set()
        elif kind == "match_started":
            self.started[response.match_started.match_id] = response.match_started
        elif kind == "action_request":
            if self.think_seconds:
                await asyncio.sleep(self.think_seconds)
            request = response.action_request
            text = self.chooser(request)
            if text is not None:
                self.send_action(request.match_id, request.sequence, text, request.seat if self.echo_seat else None)
        elif kind == "match_ended":
            async with self._match_ended:
                self.ended[response.match_ended.match_id] = response.match_ended
                self._match_ended.notify_all()

    async def wait_ended(self, match_id: str, seconds: float = 30.0) -> bot_pb2.MatchEnded:
        async def ended() -> bot_pb2.MatchEnded:
            async with self._match_ended:
                await self._match_ended.wait_for(lambda: match_id in self.ended)
                return self.ended[match_id]

        return await asyncio.wait_for(ended(), seconds)

    def messages(self, kind: str) -> list[Any]:
        return [getattr(r, kind) for r in self.received if r.WhichOneof("kind") == kind]

    async def stop(self) -> None:
        self.outbox.put_nowait(None)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
