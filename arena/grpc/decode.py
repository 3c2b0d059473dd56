"""Requests whose bytes do not decode get INVALID_ARGUMENT, not UNKNOWN with a Python class name.

gRPC decodes a request before the servicer sees it, and a decoding failure escapes as an internal
error (UNKNOWN for a unary call; on the bot stream, it silently killed the reader). This interceptor
wraps the arena services' decoders so a bad message decodes to an :class:`Undecodable` marker: a
unary call is then ended with INVALID_ARGUMENT before its method runs, and the bot stream's
servicer ends the stream with INVALID_ARGUMENT when one arrives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

SERVICE_PREFIX = "/arena.v1."


@dataclasses.dataclass(frozen=True, slots=True)
class Undecodable:
    """Stands for a request message whose bytes did not decode."""

    message_type: str
    size: int

    def __str__(self) -> str:
        return f"a message of {self.size} bytes does not decode as {self.message_type}"


def tolerant(decode: Callable[[bytes], Any], message_type: str) -> Callable[[bytes], Any]:
    """``decode``, returning an ``Undecodable`` instead of raising."""

    def decoded(data: bytes) -> Any:
        try:
            return decode(data)
        except (DecodeError, ValueError, TypeError):
            return Undecodable(message_type, len(data))

    return decoded


class DecodeErrorInterceptor(grpc.aio.ServerInterceptor):
    """Wraps the decoders of the arena's own methods (health and reflection are left as they are).

    Each method's wrapped handler is built once and kept (the arena's methods are a fixed set): built
    per call, its closures stayed with every open bot stream, a few hundred bytes an idle bot.
    """

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Any, Any]] = {}
        """By method: the handler that was wrapped, and its wrapper."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        """The method's handler, its decoder made tolerant (and unary behaviours guarded)."""
        handler: Any = await continuation(handler_call_details)
        method = str(handler_call_details.method)
        if handler is None or not method.startswith(SERVICE_PREFIX) or handler.request_deserializer is None:
            return handler  # type: ignore[no-any-return]
        kept = self._wrapped.get(method)
        if kept is not None and kept[0] is handler:
            return kept[1]  # type: ignore[no-any-return]
        wrapped = self._wrap(handler, method)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    @staticmethod
    def _wrap(handler: Any, method: str) -> grpc.RpcMethodHandler[Any, Any]:
        # Every arena method X takes an XRequest (Buf style), so the name says the type.
        type_name = f"arena.v1.{method.rsplit('/', 1)[-1]}Request"
        deserializer = tolerant(handler.request_deserializer, type_name)
        if handler.unary_unary is not None:
            inner_uu = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                if isinstance(request, Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(request))
                return await inner_uu(request, context)

            return grpc.unary_unary_rpc_method_handler(unary_unary, deserializer, handler.response_serializer)
        if handler.unary_stream is not None:
            inner_us = handler.unary_stream

            async def unary_stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                if isinstance(request, Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(request))
                async for response in inner_us(request, context):
                    yield response

            return grpc.unary_stream_rpc_method_handler(unary_stream, deserializer, handler.response_serializer)
        if handler.stream_stream is not None:
            # The servicer checks each message itself (the bot stream's hot path gets no extra layer).
            return grpc.stream_stream_rpc_method_handler(
                handler.stream_stream, deserializer, handler.response_serializer
            )
        return handler  # type: ignore[no-any-return]
