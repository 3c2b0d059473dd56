"""The gRPC server's call counting: an interceptor that counts every call into the node's metrics."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from arena.metrics import ArenaMetrics
from arena.v1 import bot_pb2, ladder_pb2, league_pb2, match_pb2, node_pb2, registry_pb2

SERVICES = tuple(
    service for module in (bot_pb2, match_pb2, league_pb2, ladder_pb2, registry_pb2, node_pb2)
    for service in module.DESCRIPTOR.services_by_name.values()
)  # fmt: skip
"""The arena's gRPC services, whose methods' call counters start at zero."""


class ErrorCountingInterceptor(grpc.aio.ServerInterceptor):
    """Counts calls that end with a non-OK status, by method and code.

    Unary and server-streaming methods are wrapped here. The bot stream (stream-stream) is not:
    wrapping would put a layer on every message of the hot path, so it counts its own errors
    (``ArenaMetrics.grpc_error``).
    """

    def __init__(self, metrics: ArenaMetrics) -> None:
        self.metrics = metrics
        self._wrapped: dict[str, tuple[Any, Any]] = {}
        """By method: the handler that was wrapped, and its wrapper (built once: per call, its closures
        stayed with every open bot stream)."""
        for service in SERVICES:  # every known method's counter starts at zero
            for method in service.methods:
                metrics.grpc_calls.labels(service.full_name, method.name, "OK")

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        """Wrap the method's behaviour to read its final status."""
        handler: Any = await continuation(handler_call_details)
        if handler is None:
            return None
        full_name = str(handler_call_details.method)
        kept = self._wrapped.get(full_name)
        if kept is not None and kept[0] is handler:
            return kept[1]  # type: ignore[no-any-return]
        wrapped = self._wrap(handler, full_name)
        self._wrapped[full_name] = (handler, wrapped)
        return wrapped

    def _wrap(self, handler: Any, full_name: str) -> grpc.RpcMethodHandler[Any, Any]:
        service, _, method = full_name.lstrip("/").rpartition("/")
        errors, calls = self.metrics.grpc_errors, self.metrics.grpc_calls

        def count(context: Any, failed: bool, errors_too: bool = True) -> None:
            code = context.code()
            if code is None and failed:
                code = grpc.StatusCode.UNKNOWN
            name = "OK" if code is None else code.name if isinstance(code, grpc.StatusCode) else str(code)
            calls.labels(service, method, name).inc()
            if errors_too and name != "OK":
                errors.labels(method, name).inc()

        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: Any) -> Any:
                failed = True
                try:
                    response = await inner_uu(request, context)
                    failed = False
                    return response
                finally:
                    count(context, failed)

            return grpc.unary_unary_rpc_method_handler(
                unary_unary, handler.request_deserializer, handler.response_serializer
            )
        if handler.unary_stream is not None:
            inner_us = handler.unary_stream

            async def unary_stream(request: Any, context: Any) -> AsyncIterator[Any]:
                failed = True
                try:
                    async for response in inner_us(request, context):
                        yield response
                    failed = False
                finally:
                    count(context, failed)

            return grpc.unary_stream_rpc_method_handler(
                unary_stream, handler.request_deserializer, handler.response_serializer
            )
        if handler.stream_stream is not None and inspect.iscoroutinefunction(handler.stream_stream):
            # The bot stream writes through its context: wrapping the call (not its messages) adds
            # nothing to the hot path. Its errors are counted by its servicer (grpc_error).
            inner_ss = handler.stream_stream

            async def stream_stream(requests: Any, context: Any) -> None:
                failed = True
                try:
                    await inner_ss(requests, context)
                    failed = False
                finally:
                    count(context, failed, errors_too=False)

            return grpc.stream_stream_rpc_method_handler(
                stream_stream, handler.request_deserializer, handler.response_serializer
            )
        return handler  # type: ignore[no-any-return]
