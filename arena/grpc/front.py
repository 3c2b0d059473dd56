"""The node's end of its front: ``arena-front`` (``front/``, Rust), a compiled gRPC listener that
holds the node's client connections (``arena serve --front``).

The front takes every bot stream (``BotService/Connect``) and relays its messages over one Unix
socket, the link, in batches: each stream is served by the node's own ``BotServicer.Connect``, with
a context and a request iterator that read and write the link instead of gRPC's, so Hello, the
limits, keep-alives, strikes and closes are the servicer's. Every other call it proxies to the
node's gRPC server on a second Unix socket, naming the client in a header (``arena.grpc.peers``).
Both sockets are in a private folder (mode 0700) that only the node's user reaches.

The link's frames, both ways: a little-endian u32 length (of what follows), a u8 kind and a u32
stream id, then the payload. From the front: OPEN (the client's ``IP:PORT``), DATA (one encoded
``ConnectRequest``), HALF_CLOSE (the bot ended its side), CANCEL (its stream broke) and WRITTEN (the
oldest CONFIRM of the stream is written to it). From the node: DATA (one encoded
``ConnectResponse``), CONFIRM (one, to be told WRITTEN of: a match's end, which is kept for the bot's
next connection until it is written) and END (a u32 status code, then the details). The node starts
the front with the version of the link it speaks (``LINK_VERSION``); a front of another refuses it.

Why: behind its front the node spends about half the CPU a decision and a connected bot costs a
third of the memory (BENCHMARKS.md, "A front outside Python, measured").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import logging
import struct
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from arena.errors import FrontError
from arena.grpc.convert import encoded
from arena.grpc.decode import Undecodable, tolerant
from arena.grpc.peers import grpc_peer
from arena.grpc.servicers import BotServicer
from arena.service.limits import Limits
from arena.service.outbox import Outbox
from arena.v1 import bot_pb2

if TYPE_CHECKING:
    from arena.grpc.server import TlsFiles

log = logging.getLogger(__name__)

HEADER = struct.Struct("<IBI")
"""A frame's head: the length of the rest (kind, id and payload), the kind, the stream id."""
READY = "listening on "
"""What the front prints first, with the address it listens on."""
LINK_VERSION = 2
"""The version of the link's frames (the front's ``--link-version``)."""
START_SECONDS = 10.0
"""How long the front may take to listen."""
STOP_SECONDS = 5.0
"""How long the front may take to exit once its link is closed."""
_decode = tolerant(bot_pb2.ConnectRequest.FromString, "arena.v1.ConnectRequest")


class Kind(enum.IntEnum):
    """A frame's kind."""

    OPEN = 1
    DATA = 2
    HALF_CLOSE = 3
    CANCEL = 4
    END = 5
    CONFIRM = 6
    WRITTEN = 7


class Requests:
    """A relayed stream's messages from the bot, decoded; they end at its half-close (None). The
    servicer reads the Hello as an iterator, then takes the rest as they come (``take``)."""

    __slots__ = ("box", "handler")

    def __init__(self) -> None:
        self.box: Outbox[bot_pb2.ConnectRequest | Undecodable | None] = Outbox()
        self.handler: Callable[[bot_pb2.ConnectRequest | Undecodable | None], None] | None = None

    def __aiter__(self) -> Requests:
        return self

    async def __anext__(self) -> bot_pb2.ConnectRequest | Undecodable:
        item = await self.box.get()
        if item is None:
            raise StopAsyncIteration
        return item

    def put(self, item: bot_pb2.ConnectRequest | Undecodable | None) -> None:
        if self.handler is not None:
            self.handler(item)
        else:
            self.box.put_nowait(item)

    def take(self, handler: Callable[[bot_pb2.ConnectRequest | Undecodable | None], None]) -> None:
        self.handler = handler
        self.box.drain_into(handler)


class LinkContext:
    """What ``BotServicer.Connect`` uses of a ``grpc.aio.ServicerContext``, over the link."""

    __slots__ = ("_peer", "confirms", "drained", "ended", "ident", "link", "requests")

    def __init__(self, link: FrontLink, ident: int, peer: str) -> None:
        self.link, self.ident, self._peer = link, ident, peer
        self.requests = Requests()
        self.ended = False
        self.confirms: deque[Callable[[], None]] | None = None
        """What to call as the front writes each CONFIRM sent, oldest first."""
        self.drained: asyncio.Future[None] | None = None
        """Resolved once no CONFIRM is left unwritten (``flushed`` waits on it)."""

    def peer(self) -> str:
        return self._peer

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def write(self, message: bytes | bot_pb2.ConnectResponse) -> None:
        self.write_now(message)

    def write_now(self, message: bytes | bot_pb2.ConnectResponse, written: Callable[[], None] | None = None) -> None:
        if written is None:
            self.link.send(Kind.DATA, self.ident, encoded(message))
            return
        if self.confirms is None:
            self.confirms = deque()
        self.confirms.append(written)
        self.link.send(Kind.CONFIRM, self.ident, encoded(message))

    def written(self) -> None:
        """The front wrote the oldest CONFIRM to the bot's stream."""
        if self.confirms:
            self.confirms.popleft()()
            if not self.confirms and self.drained is not None and not self.drained.done():
                self.drained.set_result(None)

    async def flushed(self) -> None:
        """Wait until the front has written every CONFIRM sent (the task is cancelled instead if the
        bot's stream goes first)."""
        if self.confirms:
            self.drained = asyncio.get_running_loop().create_future()
            try:
                await self.drained
            finally:
                self.drained = None

    def take_requests(self, handler: Callable[[bot_pb2.ConnectRequest | Undecodable | None], None]) -> None:
        self.requests.take(handler)

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        """End the stream with ``code`` and raise, as ``grpc.aio``'s abort does."""
        self.end(code, details)
        raise grpc.aio.AbortError(details)

    def end(self, code: grpc.StatusCode, details: str) -> None:
        """End the bot's stream with ``code`` (once; what was written before goes first)."""
        if not self.ended:
            self.ended = True
            self.link.send(Kind.END, self.ident, struct.pack("<I", code.value[0]) + details.encode())


class FrontLink(asyncio.Protocol):
    """The node's end of the link: frames in, handed to their streams; frames out, written once a
    loop iteration."""

    def __init__(self, servicer: BotServicer) -> None:
        self.servicer = servicer
        self.buffer = bytearray()
        self.out: list[bytes] = []
        self.streams: dict[int, tuple[LinkContext, asyncio.Task[None]]] = {}
        self.transport: asyncio.WriteTransport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        for _, task in list(self.streams.values()):
            task.cancel()

    def close(self) -> None:
        """Flush what is queued and close the link (the front then exits)."""
        if self.transport is not None and not self.transport.is_closing():
            self.flush()
            self.transport.close()

    def send(self, kind: Kind, ident: int, payload: bytes) -> None:
        if not self.out:
            self.loop.call_soon(self.flush)
        self.out += (HEADER.pack(5 + len(payload), kind, ident), payload)

    def flush(self) -> None:
        out, self.out = self.out, []
        if out and self.transport is not None and not self.transport.is_closing():
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
            if kind == Kind.DATA:
                if entry is not None:
                    entry[0].requests.put(_decode(payload))
            elif kind == Kind.OPEN:
                context = LinkContext(self, ident, grpc_peer(payload.decode(errors="replace")))
                self.streams[ident] = (context, self.loop.create_task(self._serve(context)))
            elif kind == Kind.HALF_CLOSE:
                if entry is not None:
                    entry[0].requests.put(None)
            elif kind == Kind.WRITTEN:
                if entry is not None:
                    entry[0].written()
            elif kind == Kind.CANCEL and entry is not None:
                entry[1].cancel()
        del buffer[:at]

    async def _serve(self, context: LinkContext) -> None:
        try:
            await self.servicer.Connect(context.requests, context)  # type: ignore[arg-type]
            context.end(grpc.StatusCode.OK, "")
        except (grpc.aio.AbortError, asyncio.CancelledError):
            pass
        except Exception:  # a bug: the bot's stream ends, the node carries on
            log.exception("a relayed bot stream failed")
            context.end(grpc.StatusCode.INTERNAL, "the node logged why")
        finally:
            self.streams.pop(context.ident, None)


@dataclasses.dataclass
class Front:
    """A running front: its process, the port it listens on, and the node's end of its link."""

    process: asyncio.subprocess.Process
    port: int
    link_server: asyncio.Server
    links: list[FrontLink]
    said: asyncio.Task[None] | None = None
    """Copies the front's standard error into the node's log."""

    async def stop(self) -> None:
        """Close the link (the front exits), then wait for the front; kill it if it lingers."""
        self.link_server.close()
        for link in self.links:
            link.close()
        try:
            await asyncio.wait_for(self.process.wait(), STOP_SECONDS)
        except TimeoutError:
            log.warning("the front did not exit %g s after its link closed: killed", STOP_SECONDS)
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        if self.said is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.said, 1)


def front_command(
    binary: Path, address: str, folder: Path, limits: Limits, reuse_port: bool, tls: TlsFiles | None = None
) -> tuple[list[str], Path, Path]:
    """The front's command line, with its link's and the node's gRPC socket in ``folder``; with
    ``tls``, the front serves TLS (mutual TLS with its ``client_ca``)."""
    link, backend = folder / "link.sock", folder / "grpc.sock"
    command = [str(binary), "--listen", address, "--node", str(link), "--backend", str(backend)]
    command += ["--link-version", str(LINK_VERSION)]
    command += ["--max-connections", str(limits.max_connections)]
    command += ["--max-streams-per-connection", str(limits.max_streams_per_connection)]
    command += ["--keepalive-seconds", f"{limits.keepalive_seconds:g}"]
    command += ["--keepalive-timeout-seconds", f"{limits.keepalive_timeout_seconds:g}"]
    command += ["--handshake-timeout-seconds", f"{limits.handshake_timeout_seconds:g}"]
    command += ["--idle-connection-seconds", f"{limits.idle_connection_seconds:g}"]
    if tls is not None:
        command += ["--tls-cert", str(tls.cert), "--tls-key", str(tls.key)]
        if tls.client_ca is not None:
            command += ["--tls-client-ca", str(tls.client_ca)]
    return [*command, *(["--reuse-port"] if reuse_port else [])], link, backend


async def start_front(command: list[str], link_path: Path, servicer: BotServicer) -> Front:
    """Listen on the link, start the front (``command``, from ``front_command``), and wait until it
    listens. Raises ``FrontError`` with the front's reason if it refuses to start, ``OSError`` if it
    cannot be run."""
    links: list[FrontLink] = []

    def accepted() -> FrontLink:
        link = FrontLink(servicer)
        links.append(link)
        return link

    link_server = await asyncio.get_running_loop().create_unix_server(accepted, str(link_path))
    try:
        process = await asyncio.create_subprocess_exec(  # a session of its own: a terminal's Ctrl-C
            *command,  # is the node's to handle, and the front exits once the node closes its link
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    except OSError:
        link_server.close()
        raise
    assert process.stdout is not None
    assert process.stderr is not None
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), START_SECONDS)).decode().strip()
    except TimeoutError:
        line = ""
    if not line.startswith(READY):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        said = (await process.stderr.read()).decode(errors="replace").strip().splitlines()
        link_server.close()
        raise FrontError(f"the front did not start: {said[-1] if said else f'it said {line!r}'}")
    front = Front(process, int(line.rsplit(":", 1)[1]), link_server, links)
    front.said = asyncio.create_task(_log_lines(process.stderr))
    return front


async def _log_lines(stream: asyncio.StreamReader) -> None:
    """What the front says on its standard error, into the node's log (so the pipe never fills)."""
    while line := await stream.readline():
        log.warning("arena-front: %s", line.decode(errors="replace").rstrip())
