"""The server's interceptors build each method's wrapped handler once, not once per call (an idle
bot stream kept its call's closures: a few hundred bytes a bot)."""

from __future__ import annotations

from typing import Any

import grpc

from arena.grpc.call_metrics import ErrorCountingInterceptor
from arena.grpc.decode import DecodeErrorInterceptor
from arena.metrics import ArenaMetrics
from arena.v1 import bot_pb2, registry_pb2


class Details(grpc.HandlerCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def connect(requests: Any, context: Any) -> None:
    """A bot stream's behaviour (never run here)."""


async def register(request: Any, context: Any) -> Any:
    """A unary behaviour (never run here)."""


HANDLERS = {
    "/arena.v1.BotService/Connect": grpc.stream_stream_rpc_method_handler(
        connect, bot_pb2.ConnectRequest.FromString, bot_pb2.ConnectResponse.SerializeToString
    ),
    "/arena.v1.RegistryService/RegisterBot": grpc.unary_unary_rpc_method_handler(
        register, registry_pb2.RegisterBotRequest.FromString, registry_pb2.RegisterBotResponse.SerializeToString
    ),
}


async def test_each_method_is_wrapped_once_by_both_interceptors() -> None:
    decode, counting = DecodeErrorInterceptor(), ErrorCountingInterceptor(ArenaMetrics())

    async def registered(details: grpc.HandlerCallDetails) -> Any:
        return HANDLERS.get(details.method)

    async def through_decode(details: grpc.HandlerCallDetails) -> Any:
        return await decode.intercept_service(registered, details)

    for method, handler in HANDLERS.items():
        first = await counting.intercept_service(through_decode, Details(method))
        second = await counting.intercept_service(through_decode, Details(method))
        assert first is not None and first is not handler
        assert second is first, method
    assert await counting.intercept_service(through_decode, Details("/arena.v1.BotService/Nope")) is None
