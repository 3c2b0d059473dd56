"""The gRPC server of one arena node: the services, health checking, reflection, optional TLS."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.grpc.call_metrics import ErrorCountingInterceptor
from arena.grpc.convert import encoded
from arena.grpc.decode import DecodeErrorInterceptor
from arena.grpc.front import Front, front_command, start_front
from arena.grpc.ladders import LadderServicer
from arena.grpc.servicers import BotServicer, LeagueServicer, MatchServicer, NodeServicer, RegistryServicer
from arena.node import ArenaNode
from arena.service.limits import Limits
from arena.v1 import (
    bot_pb2,
    ladder_pb2,
    ladder_pb2_grpc,
    league_pb2,
    league_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
    node_pb2,
    node_pb2_grpc,
    registry_pb2,
    registry_pb2_grpc,
)

MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message a client may send: bots send short actions, so anything bigger is refused."""

SERVICE_NAMES = (
    bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    match_pb2.DESCRIPTOR.services_by_name["MatchService"].full_name,
    registry_pb2.DESCRIPTOR.services_by_name["RegistryService"].full_name,
    league_pb2.DESCRIPTOR.services_by_name["LeagueService"].full_name,
    node_pb2.DESCRIPTOR.services_by_name["NodeService"].full_name,
    ladder_pb2.DESCRIPTOR.services_by_name["LadderService"].full_name,
)


def server_options(limits: Limits, reuse_port: bool = False) -> list[tuple[str, int]]:
    """gRPC core's channel args for the transport-level limits (per TCP connection, or in total).

    Over ``max_connections`` a new connection is accepted and closed at once; a connection that
    has not finished its handshake in time, or has had no call open for a while, is closed; the
    server's keepalive pings close a connection whose peer stopped answering (no FIN needed).
    Any unanswered ping times out as fast as a keepalive one: otherwise a stuck BDP ping holds the
    one in-flight ping slot for a minute and the keepalive ping is never sent.
    ``reuse_port`` lets sibling worker processes listen on the same port (SO_REUSEPORT: the kernel
    spreads new connections over them); without it a taken port is an error.

    No argument here is for memory: the read chunk sizes, lookahead (window), write buffer, HPACK
    table sizes, BDP probing and channelz each moved an idle stream's cost by under 0.2 KiB in
    ``bench_memory --echo-only`` (BENCHMARKS.md, "Memory per connected idle bot"), and
    ``grpc.minimal_stack`` (1.8 KiB less) also drops the filter that enforces
    ``grpc.max_receive_message_length``: it must never be set. What does save memory is gRPC core's
    filter fusion, an experiment rather than an argument, which the ``arena`` package turns on
    before grpc is imported (``arena/__init__.py``): 3 KiB a stream less, the message limit kept.
    """

    def ms(seconds: float) -> int:
        return max(1, int(seconds * 1000))

    return [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", 16 * 1024 * 1024),
        ("grpc.max_allowed_incoming_connections", limits.max_connections),
        ("grpc.server_handshake_timeout_ms", ms(limits.handshake_timeout_seconds)),
        ("grpc.max_connection_idle_ms", ms(limits.idle_connection_seconds)),
        ("grpc.max_concurrent_streams", limits.max_streams_per_connection),
        ("grpc.keepalive_time_ms", ms(limits.keepalive_seconds)),
        ("grpc.keepalive_timeout_ms", ms(limits.keepalive_timeout_seconds)),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.ping_timeout_ms", ms(limits.keepalive_timeout_seconds)),
        ("grpc.so_reuseport", 1 if reuse_port else 0),
    ]


@dataclasses.dataclass(frozen=True)
class TlsFiles:
    """A certificate chain and private key, PEM files; with ``client_ca``, mutual TLS: every client
    must present a certificate signed by that CA (bots then need a certificate as well as a token)."""

    cert: Path
    key: Path
    client_ca: Path | None = None


@dataclasses.dataclass
class GrpcServer:
    """A started gRPC server and the port it bound (its front's, behind one)."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    front: Front | None = None
    """The node's front (``arena serve --front``), which listens on ``port``."""
    folder: Path | None = None
    """The private folder of the front's sockets."""

    async def stop(self, grace_seconds: float) -> None:
        """Refuse new calls, mark the node not serving, and stop after ``grace_seconds``."""
        await self.health.enter_graceful_shutdown()
        await self.close(grace_seconds)

    async def close(self, grace_seconds: float) -> None:
        """Stop the server after ``grace_seconds``, then its front."""
        await self.server.stop(grace_seconds)
        if self.front is not None:
            await self.front.stop()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """``add_BotServiceServicer_to_server``, with a response serializer that passes encoded messages on."""
    handlers = {
        "Connect": grpc.stream_stream_rpc_method_handler(
            servicer.Connect, request_deserializer=bot_pb2.ConnectRequest.FromString, response_serializer=encoded
        )
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("arena.v1.BotService", handlers),))
    server.add_registered_method_handlers("arena.v1.BotService", handlers)


async def start_server(
    node: ArenaNode,
    address: str = "127.0.0.1:0",
    tls: TlsFiles | None = None,
    reuse_port: bool = False,
    front: Path | None = None,
) -> GrpcServer:
    """Build and start the server on ``address`` (port 0 picks a free port); ``reuse_port`` shares
    the port with sibling workers. With ``front`` (the ``arena-front`` binary), the front listens on
    ``address`` and the server on a Unix socket beside its link, in a private folder
    (``arena.grpc.front``); the front serves the TLS, if any.

    Raises ``OSError`` if the address cannot be bound or the front cannot be run, ``FrontError`` if
    the front refuses to start (its reason).
    """
    interceptors: list[grpc.aio.ServerInterceptor] = [DecodeErrorInterceptor()]
    if node.metrics is not None:
        # Outermost, so it counts the INVALID_ARGUMENT of an undecodable request too.
        interceptors.insert(0, ErrorCountingInterceptor(node.metrics))
    server = grpc.aio.server(interceptors=interceptors, options=server_options(node.limits, reuse_port))
    bots = BotServicer(node)
    _add_bot_service(bots, server)
    match_pb2_grpc.add_MatchServiceServicer_to_server(MatchServicer(node), server)
    registry_pb2_grpc.add_RegistryServiceServicer_to_server(RegistryServicer(node), server)
    league_pb2_grpc.add_LeagueServiceServicer_to_server(LeagueServicer(node), server)
    node_pb2_grpc.add_NodeServiceServicer_to_server(NodeServicer(node), server)
    ladder_pb2_grpc.add_LadderServiceServicer_to_server(LadderServicer(node), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (*SERVICE_NAMES, ""):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection((*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    if front is not None:
        return await _start_behind_front(node, server, health_servicer, bots, address, front, reuse_port, tls)
    if tls is None:
        port = server.add_insecure_port(address)
    else:
        credentials = grpc.ssl_server_credentials(
            [(tls.key.read_bytes(), tls.cert.read_bytes())],
            root_certificates=tls.client_ca.read_bytes() if tls.client_ca is not None else None,
            require_client_auth=tls.client_ca is not None,
        )
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"could not bind {address}")
    await server.start()
    return GrpcServer(server, port, health_servicer)


async def _start_behind_front(
    node: ArenaNode,
    server: grpc.aio.Server,
    health_servicer: health.aio.HealthServicer,
    bots: BotServicer,
    address: str,
    binary: Path,
    reuse_port: bool,
    tls: TlsFiles | None,
) -> GrpcServer:
    folder = Path(tempfile.mkdtemp(prefix="arena-front-"))  # mode 0700: only this user reaches the sockets
    try:
        command, link, backend = front_command(binary, address, folder, node.limits, reuse_port, tls)
        if server.add_insecure_port(f"unix:{backend}") == 0:
            raise OSError(f"could not bind unix:{backend}")
        await server.start()
        try:
            started = await start_front(command, link, bots)
        except BaseException:
            await server.stop(0)
            raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return GrpcServer(server, started.port, health_servicer, started, folder)
