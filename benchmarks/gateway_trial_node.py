"""A trial, not a transport: ``arena serve`` with its bot streams also reachable through the gateway
trial's one Unix socket (``benchmarks/gateway_trial/``), to measure what a front outside Python
would save the node (BENCHMARKS.md, "A front outside Python, measured").

Run as ``python benchmarks/gateway_trial_node.py SOCKET -- <arena serve arguments>``: the node
serves as ``arena serve`` does and, beside its gRPC server, accepts the gateway on ``SOCKET``. Each
bot stream the gateway opens is handed to the node's own ``BotServicer.Connect``, unchanged, with a
context and a request iterator that read and write the socket's frames instead of gRPC's: the
node's semantics (Hello, limits, keep-alives, strikes, closes) are the servicer's, and only the
transport under it differs. Frames, both ways: a little-endian u32 length (of what follows), a u8
kind and a u32 stream id, then the payload (OPEN: the bot's address; DATA: one encoded message;
HALF_CLOSE and CANCEL: none; END: a u32 status code and the details).

Not for production: the gateway trial has no TLS and proxies no other RPC.
"""

from __future__ import annotations

import asyncio
import enum
import struct
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from arena.grpc import server as grpc_server
from arena.grpc.decode import Undecodable, tolerant
from arena.grpc.servicers import BotServicer
from arena.service.outbox import Outbox
from arena.v1 import bot_pb2

HEADER = struct.Struct("<IBI")
"""Length of the rest (kind, id and payload), kind, stream id."""
decode = tolerant(bot_pb2.ConnectRequest.FromString, "arena.v1.ConnectRequest")


class Kind(enum.IntEnum):
    OPEN = 1
    DATA = 2
    HALF_CLOSE = 3
    CANCEL = 4
    END = 5


class EndedError(Exception):
    """Raised by ``MuxContext.abort``, as ``grpc.aio``'s abort raises."""


class Requests:
    """The bot's messages after the gateway's OPEN, decoded; ends at its half-close."""

    def __init__(self) -> None:
        self.box: Outbox[bot_pb2.ConnectRequest | Undecodable | None] = Outbox()

    def __aiter__(self) -> Requests:
        return self

    async def __anext__(self) -> bot_pb2.ConnectRequest | Undecodable:
        item = await self.box.get()
        if item is None:
            raise StopAsyncIteration
        return item


class MuxContext:
    """What ``BotServicer.Connect`` uses of a ``grpc.aio.ServicerContext``, over the socket."""

    def __init__(self, mux: Mux, ident: int, peer: str) -> None:
        self.mux, self.ident, self._peer = mux, ident, peer
        self.requests = Requests()
        self.ended = False

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def write(self, message: bytes | bot_pb2.ConnectResponse) -> None:
        self.mux.send(Kind.DATA, self.ident, grpc_server.encoded(message))

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.end(code.value[0], details)
        raise EndedError

    def end(self, code: int, details: str) -> None:
        if not self.ended:
            self.ended = True
            self.mux.send(Kind.END, self.ident, struct.pack("<I", code) + details.encode())


class Mux(asyncio.Protocol):
    """The node's end of the gateway's socket: frames in, dispatched to streams; frames out, one
    write a loop iteration."""

    def __init__(self, servicer: BotServicer) -> None:
        self.servicer = servicer
        self.buffer = bytearray()
        self.out: list[bytes] = []
        self.streams: dict[int, tuple[MuxContext, asyncio.Task[None]]] = {}
        self.transport: asyncio.WriteTransport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        for _, task in self.streams.values():
            task.cancel()

    def send(self, kind: Kind, ident: int, payload: bytes) -> None:
        if not self.out:
            self.loop.call_soon(self.flush)
        self.out.append(HEADER.pack(5 + len(payload), kind, ident))
        self.out.append(payload)

    def flush(self) -> None:
        out, self.out = self.out, []
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(b"".join(out))

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        at, size = 0, len(buffer)
        while size - at >= HEADER.size:
            length, kind, ident = HEADER.unpack_from(buffer, at)
            if size - at < 4 + length:
                break
            payload = bytes(buffer[at + HEADER.size : at + 4 + length])
            at += 4 + length
            entry = self.streams.get(ident)
            if kind == Kind.DATA and entry is not None:
                entry[0].requests.box.put_nowait(decode(payload))
            elif kind == Kind.OPEN:
                address = payload.decode()
                context = MuxContext(self, ident, ("ipv6:" if address.startswith("[") else "ipv4:") + address)
                self.streams[ident] = (context, self.loop.create_task(self.run(context)))
            elif kind == Kind.HALF_CLOSE and entry is not None:
                entry[0].requests.box.put_nowait(None)
            elif kind == Kind.CANCEL and entry is not None:
                entry[1].cancel()
        del buffer[:at]

    async def run(self, context: MuxContext) -> None:
        try:
            await self.servicer.Connect(context.requests, context)  # type: ignore[arg-type]
            context.end(grpc.StatusCode.OK.value[0], "")
        except (EndedError, asyncio.CancelledError):
            pass
        finally:
            self.streams.pop(context.ident, None)


def with_mux(socket: str, start: Callable[..., Awaitable[grpc_server.GrpcServer]]) -> Callable[..., Any]:
    """``start_server``, which also serves the node's bot streams to the gateway on ``socket``."""

    async def start_server(node: Any, *args: Any, **kwargs: Any) -> grpc_server.GrpcServer:
        started = await start(node, *args, **kwargs)
        servicer = BotServicer(node)
        await asyncio.get_running_loop().create_unix_server(lambda: Mux(servicer), socket)
        return started

    return start_server


def main() -> int:
    socket, separator, *serve = sys.argv[1:]
    if separator != "--":
        print("usage: gateway_trial_node.py SOCKET -- <arena serve arguments>", file=sys.stderr)
        return 2
    from arena.cli.main import main as arena_main
    from arena.serve import process

    setattr(process, "start_server", with_mux(socket, grpc_server.start_server))  # noqa: B010 - a trial's patch
    return arena_main(["serve", *serve])


if __name__ == "__main__":
    sys.exit(main())
