"""``arena serve``: one arena node with its store, its gRPC server and a graceful shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import logging
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path

import redis.asyncio as aioredis

from arena import catalogue
from arena.errors import FolderInUseError, NodeIdTakenError, StartupError
from arena.grpc import convert
from arena.grpc.server import GrpcServer, TlsFiles, start_server
from arena.metrics import ArenaMetrics
from arena.node import ArenaNode
from arena.queue.worker import RefereeWorker
from arena.referee.clock import MonotonicClock
from arena.serve import startup
from arena.service.auth import BotRegistry, new_token
from arena.service.ladders import LadderService, Matchmaker
from arena.service.leagues import LeagueService
from arena.service.limits import FAILURES_FORGOTTEN_SECONDS, AdminNetworks, Limits
from arena.service.matches import MatchManager
from arena.service.relay import Relay
from arena.service.sessions import BotSession, CloseReason, SessionHub
from arena.service.siblings import SiblingLinks
from arena.store.clients import RedisClientBook
from arena.store.embedded import EmbeddedRedis, redacted
from arena.store.failures import FailureKind, SharedFailures
from arena.store.ladders import LadderStore
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.nodes import NodeDirectory
from arena.store.redis_stores import RedisRecordStore, RedisTokenStore, connect
from arena.store.relay import RelayStore
from arena.store.running import RunningIndex
from arena.store.slots import SlotBroker
from arena.web.site import WebServer, start_web

log = logging.getLogger(__name__)


@dataclasses.dataclass
class ServeConfig:
    """How to run a node."""

    address: str = "127.0.0.1:50051"
    redis_url: str | None = None
    """An external Redis; None starts the embedded one with its data in ``data_dir``."""
    data_dir: Path = Path("data")
    admin_token: str | None = None
    open_registration: bool = False
    tls: TlsFiles | None = None
    shutdown_grace_seconds: float = 30.0
    keep_alive_seconds: float = 15.0
    metrics_address: str | None = "127.0.0.1:9464"
    """host:port of the Prometheus ``/metrics`` endpoint; None for none."""
    node_id: str = ""
    """This node's name among the nodes sharing one Redis (its queue consumer name); default
    hostname-pid. A node restarted under the same name takes back the work it held."""
    lease_seconds: float = 30.0
    """A queued match held by a node silent this long is taken over by another."""
    heartbeat_seconds: float = 2.0
    """How often the node writes its heartbeat; it counts as gone (its id free, the matches it referees
    for bots elsewhere let go) once ``MISSED_BEATS`` beats are missed."""
    limits: Limits = dataclasses.field(default_factory=Limits)
    """What clients may ask of the node."""
    admin_networks: AdminNetworks = dataclasses.field(default_factory=AdminNetworks)
    """Where the admin token is accepted from (``--admin-network``); none listed: anywhere."""
    web_address: str | None = None
    """host:port of the web site (``arena serve --web-port``); None for none."""
    advertise_address: str | None = None
    """host:port where clients reach this node, which the other nodes name (``--advertise-address``);
    None: ``address``, its host this machine's name if it is a wildcard (``startup.advertised_address``)."""
    shared_port: bool = False
    """A worker of ``arena serve --workers N``: the port is shared with its siblings (SO_REUSEPORT),
    and the supervisor checked it was free."""
    siblings_dir: Path | None = None
    """A worker of ``arena serve --workers N``: the supervisor's private folder (mode 0700) where
    each worker listens on a Unix socket for its siblings' relay messages (see ``siblings``)."""
    siblings: tuple[str, ...] = ()
    """The node ids of this worker's siblings, which it relays to over their sockets, not through Redis."""
    front: Path | None = None
    """The ``arena-front`` binary that listens on ``address`` for the node (``arena serve --front``)."""


@dataclasses.dataclass
class RunningNode:
    """A started node: its services, server and store."""

    node: ArenaNode
    grpc: GrpcServer
    redis: aioredis.Redis
    embedded: EmbeddedRedis | None
    admin_token: str | None
    metrics_port: int | None
    worker: RefereeWorker
    stop_worker: asyncio.Event
    """Set when the node stops taking work: its queue worker and matchmaker stop."""
    stop_relay: asyncio.Event
    """Set once its matches are over: its relay and heartbeat stop (the matches need them till then)."""
    worker_task: asyncio.Task[None]
    heartbeat_task: asyncio.Task[None]
    relay_task: asyncio.Task[None]
    links: SiblingLinks | None = None
    """The links to the sibling workers, for a worker of ``arena serve --workers N``."""
    lost_id: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    """Set if another node took this node's id (it was silent past the heartbeat's expiry)."""
    web: WebServer | None = None
    """The node's web site, if it serves one."""
    matchmaker_task: asyncio.Task[None] | None = None
    """The ladders' matchmaker (it makes matches while this node holds the lease)."""
    stopping: bool = False
    """Set by the first ``stop``."""

    @property
    def port(self) -> int:
        """The bound gRPC port."""
        return self.grpc.port

    async def stop(self, grace_seconds: float) -> None:
        """Stop taking work, let matches finish for up to ``grace_seconds`` (then abort and record
        them), close the server and the store. Until the matches are over the node keeps reading its
        relay inbox and beating: a match refereed here may have a bot on another node, and a bot here
        may play a match refereed elsewhere. Once stopped (or stopping), a call does nothing."""
        if self.stopping:
            return
        self.stopping = True
        self.node.matches.closing = True  # a start is refused from now on (the shutdown waits for those under way)
        self.stop_worker.set()
        await self.grpc.health.enter_graceful_shutdown()
        if self.web is not None:
            await self.web.stop()
        if self.matchmaker_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.matchmaker_task, 5)
        # The worker claims nothing more, but keeps the leases of the matches it plays until they are over.
        await self.node.matches.shutdown(grace_seconds)
        await self._let_bots_go()
        self.stop_relay.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(self.worker_task, self.heartbeat_task, self.relay_task), 5)
        if self.links is not None:
            self.links.close()
        await self.grpc.close(min(grace_seconds, 5.0))
        await self.redis.aclose()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)

    async def _let_bots_go(self) -> None:
        """End every bot stream, UNAVAILABLE (the bots reconnect to another node), and give the
        store their departures, rather than leave gRPC to cancel the streams under them."""
        hub = self.node.hub
        hub.sent_away = True  # a bot that comes straight back is refused (it would be cut off by the stop)
        for session in hub.connected():
            hub.close_bot(session.name, CloseReason.SHUTTING_DOWN)
        for _ in range(100):
            if not hub.connected():
                break
            await asyncio.sleep(0.02)
        relay = self.node.matches.relay
        if relay is not None and relay.pending_sends:
            await asyncio.wait(list(relay.pending_sends), timeout=2.0)


MIN_ADMIN_TOKEN = 16
"""The fewest characters of an admin token an operator gives: a shorter one is a word to guess."""


def given_admin_token(config: ServeConfig) -> str | None:
    """The admin token the operator gave (``--admin-token`` or ``ARENA_ADMIN_TOKEN``), if any;
    ``StartupError`` for one shorter than ``MIN_ADMIN_TOKEN``. Checked before the store starts."""
    token = config.admin_token or os.environ.get("ARENA_ADMIN_TOKEN")
    if token and len(token) < MIN_ADMIN_TOKEN:
        raise StartupError(
            f"the admin token given is {len(token)} characters long: give one of at least {MIN_ADMIN_TOKEN} "
            "(openssl rand -hex 24), or none and the node makes one in its data folder"
        )
    return token


def admin_token_for(config: ServeConfig) -> str | None:
    """The admin token: given, from ARENA_ADMIN_TOKEN, or made once and kept in the data folder.

    The file is created with mode 0600 in one call (never readable by others, whatever the umask)
    and never replaced: a node that finds one keeps it. With open registration too: matches and
    leagues still need the admin token.
    """
    token = given_admin_token(config)
    if token:
        return token
    path = config.data_dir / "admin-token"
    make_private_dir(config.data_dir)
    token = new_token()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")
    log.info("admin token created", extra={"path": str(path)})
    return token


def make_private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) with mode 0700 if it does not exist yet."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


async def start_node(config: ServeConfig) -> RunningNode:
    """Start the store (embedded Redis unless a URL is given), the services and the gRPC server.

    Every operator mistake found on the way (an unwritable data folder, an unreachable Redis or a
    wrong password, Redis unable to persist, a node id held by a live node, a taken port) raises
    ``StartupError`` before the node takes any work, with what was started so far stopped again.
    """
    async with contextlib.AsyncExitStack() as started:
        running = await _start_node(config, started)
        started.pop_all()  # the node owns them now: RunningNode.stop
        return running


def open_store(config: ServeConfig) -> tuple[EmbeddedRedis | None, str]:
    """The node's Redis: ``--redis-url``'s, or an embedded one started in the data folder (the
    caller stops it), after checking the folder where it will be used. Returns (embedded or None, URL).

    Call it from the thread that lives as long as the node (see ``EmbeddedRedis``). Raises
    ``StartupError`` for an unusable data folder or an embedded Redis that does not start.
    """
    url = config.redis_url
    makes_token = not (config.open_registration or config.admin_token or os.environ.get("ARENA_ADMIN_TOKEN"))
    if url is None or (makes_token and not (config.data_dir / "admin-token").exists()):
        startup.check_data_folder(config.data_dir)
    if url is not None:
        return None, url
    make_private_dir(config.data_dir)
    try:
        embedded = EmbeddedRedis(config.data_dir / "redis").start()
    except FolderInUseError as error:
        raise StartupError(
            f"the data folder {config.data_dir} is in use by another arena (process {error.holder or 'unknown'}): "
            "stop it, or give another --data-dir"
        ) from error
    except (RuntimeError, OSError) as error:
        raise StartupError(f"the embedded Redis did not start ({error}): check --data-dir") from error
    return embedded, embedded.url


def redis_node(
    client: aioredis.Redis,
    admin_token: str | None,
    open_registration: bool = False,
    keep_alive_seconds: float = 15.0,
    limits: Limits | None = None,
    metrics: ArenaMetrics | None = None,
) -> ArenaNode:
    """A node's bot registry, sessions, matches and client book on this Redis, with its metrics;
    ``arena serve`` adds leagues, ladders, the relay and the node directory (``start_node``)."""
    clock = MonotonicClock()
    hub = SessionHub(clock)
    metrics = metrics or ArenaMetrics()
    node = ArenaNode(
        registry=BotRegistry(RedisTokenStore(client), admin_token, open_registration),
        hub=hub,
        matches=MatchManager(hub, clock, RedisRecordStore(client), metrics),
        clock=clock,
        keep_alive_seconds=keep_alive_seconds,
        metrics=metrics,
        limits=limits or Limits(),
        clients=RedisClientBook(client),
    )
    node.watch_gauges()
    return node


async def _start_node(config: ServeConfig, started: contextlib.AsyncExitStack) -> RunningNode:
    if config.advertise_address is not None:
        startup.check_advertise_address(config.advertise_address)
    given_admin_token(config)
    if not config.shared_port:
        startup.check_port_free(config.address, "--address")
    if config.metrics_address:
        startup.check_port_free(config.metrics_address, "--metrics-address", "serve metrics on")
    if config.web_address:
        startup.check_port_free(config.web_address, "--web-port", "serve the web site on")
    embedded, url = open_store(config)
    if embedded is not None:
        started.push_async_callback(asyncio.to_thread, embedded.stop)
    await startup.check_redis(url)
    client = connect(url)
    started.push_async_callback(client.aclose)
    try:
        admin = admin_token_for(config)
    except OSError as error:
        raise StartupError(f"cannot keep the admin token in the data folder {config.data_dir}: {error}") from error
    metrics = ArenaMetrics()
    node = redis_node(client, admin, config.open_registration, config.keep_alive_seconds, config.limits, metrics)
    node.admin_networks = config.admin_networks
    clock, hub = node.clock, node.hub
    node.leagues = leagues = LeagueService(
        LeagueStore(client), MatchQueue(client), clock, node.registry.check_plays, config.limits
    )
    node.matches.runs = leagues.store.run_of
    node.ladders = LadderService(LadderStore(client), leagues.queue, clock)
    node_id = config.node_id or f"{socket.gethostname()}-{os.getpid()}"
    matchmaker = Matchmaker(node.ladders, node_id)
    worker = RefereeWorker(
        node.leagues.queue,
        node.leagues.store,
        node.matches,
        node_id,
        default_game=catalogue.DEFAULT_GAME,
        lease_seconds=config.lease_seconds,
        metrics=metrics,
    )
    _, _, asked_port = config.address.rpartition(":")
    node.nodes = NodeDirectory(
        client,
        node_id,
        startup.advertised_address(config.address, int(asked_port), config.advertise_address),
        interval=config.heartbeat_seconds,
    )
    relay = Relay(RelayStore(client, node_id), hub, clock, convert.outgoing_to_wire)
    node.matches.relay = relay
    links = None
    if config.siblings_dir is not None:
        links = relay.link_siblings(config.siblings_dir, config.siblings)
        try:
            await links.listen()
        except OSError as error:
            raise StartupError(f"cannot listen for the sibling workers in {config.siblings_dir}: {error}") from error
        started.callback(links.close)
    relay.adopt = node.matches.adopt
    failures = SharedFailures(client, FAILURES_FORGOTTEN_SECONDS)
    node.admin_lockout.shared = failures.counter(FailureKind.ADMIN_TOKEN)
    node.hello_lockout.shared = failures.counter(FailureKind.HELLO)
    relay.spectate = functools.partial(node.matches.watch, relayed=False)
    relay.events = convert.RELAYED_EVENTS
    node.matches.slots = SlotBroker(client)
    node.matches.listing = listing = RunningIndex(client, node_id)
    relay.where = listing.nodes_of

    async def arrived(name: str) -> None:
        """A bot connected: say where it is, queue again what was parked for it, wake the workers."""
        session = hub.sessions.get(name)
        await relay.directory.here(
            {name: session.capacity if session is not None else 1}, {name: session.games if session else ()}
        )
        await leagues.store.unpark(name)
        await leagues.queue.bump()

    hub.on_connect = lambda name: relay.send_soon(arrived(name))
    hub.on_disconnect = lambda name: relay.send_soon(relay.directory.gone(name))
    hub.follow = relay.follow_local  # a bot that leaves mid-match may play on from another node

    async def announce(connected: list[BotSession]) -> None:
        """Say where this node's bots are; queue again what was parked for those whose entry had
        lapsed meanwhile (this node stalled, or Redis was away, for longer than it lasts), which
        no connection of theirs would do: they never left."""
        back = await relay.directory.here({s.name: s.capacity for s in connected}, {s.name: s.games for s in connected})
        for name in back:
            await leagues.store.unpark(name)
        if back:
            await leagues.queue.bump()

    def load() -> dict[str, int]:
        hub.forget_idle()
        connected = hub.connected()
        relay.send_soon(announce(connected))
        relay.send_soon(node.matches.refresh_slots())
        relay.send_soon(listing.sweep())
        relay.send_soon(listing.prune(node.matches.running, clock.wall()))
        return {
            "connected_bots": len(hub.connected()),
            "active_matches": len(node.matches.running),
            "held_matches": len(worker.held),
            "results_stored": worker.results_stored,
            "reclaimed": worker.reclaimed,
        }

    # The id is claimed before the worker reads the queue under it; listed from the moment it serves.
    # The inbox is read from before the claim: once this instance holds the id, a referee elsewhere
    # may seat its bots here (a bot's entry that the earlier instance left names this node).
    inbox_from = await relay.store.tail()
    await node.nodes.claim(load())
    started.push_async_callback(node.nodes.release)
    await listing.clear()  # what an earlier instance under this id left listed
    await relay.directory.clear()  # and the bots it said were here
    metrics_port = None
    if config.metrics_address:
        host, _, port = config.metrics_address.rpartition(":")
        try:
            startup.check_port_range(int(port), config.metrics_address, "--metrics-address")
            metrics_port = metrics.serve(int(port), host or "127.0.0.1")
        except (OSError, ValueError) as error:
            raise StartupError(
                f"cannot serve metrics on {config.metrics_address}: {error}: check --metrics-address"
            ) from error
    stop_worker, stop_relay = asyncio.Event(), asyncio.Event()
    lost_id = asyncio.Event()
    worker_task = asyncio.create_task(worker.run(stop_worker, stop_relay), name="referee-worker")
    relay_task = asyncio.create_task(relay.run(stop_relay, inbox_from), name="relay")
    heartbeat_task = asyncio.create_task(node.nodes.run(stop_relay, load, lost_id.set), name="heartbeat")
    matchmaker_task = asyncio.create_task(matchmaker.run(stop_worker), name="matchmaker")

    async def stop_tasks() -> None:
        stop_worker.set()
        stop_relay.set()
        await asyncio.wait([worker_task, relay_task, heartbeat_task, matchmaker_task], timeout=5)

    started.push_async_callback(stop_tasks)
    try:
        server = await start_server(node, config.address, config.tls, reuse_port=config.shared_port, front=config.front)
    except (OSError, RuntimeError) as error:  # (a front that refused says why itself: FrontError)
        raise StartupError(f"cannot listen on {config.address}: {error}: check --address") from error
    started.push_async_callback(server.close, 0)
    if asked_port == "0" and not config.advertise_address:  # the other nodes name the port the system chose
        node.nodes.address = startup.advertised_address(config.address, server.port, None)
        await node.nodes.beat(load())
    web = None
    if config.web_address:
        host, _, port = config.web_address.rpartition(":")
        try:
            web = await start_web(node, host.strip("[]") or "127.0.0.1", int(port))
        except (OSError, ValueError) as error:
            raise StartupError(
                f"cannot serve the web site on {config.web_address}: {error}: check --web-port and --web-host"
            ) from error
    log.info(
        "arena node serving",
        extra={
            "address": config.address,
            "port": server.port,
            "redis": redacted(url),
            "metrics_port": metrics_port,
            "web": web.url if web else None,
        },
    )
    return RunningNode(
        node,
        server,
        client,
        embedded,
        admin,
        metrics_port,
        worker,
        stop_worker,
        stop_relay,
        worker_task,
        heartbeat_task,
        relay_task,
        links,
        lost_id,
        web,
        matchmaker_task,
    )


GC_YOUNG_THRESHOLD = 7_000
"""Allocations between two collections of the youngest generation (Python's default is 700)."""


def tune_garbage_collector() -> None:
    """Once the node serves: what startup made (modules, the games' tables, the server) is kept out
    of every later collection (``gc.freeze``), and the youngest generation is collected a tenth as
    often. A decision allocates many short-lived objects (requests, observations, messages, futures)
    that reference counting frees; the collector found little among them and cost 2% of the node's
    time in a profile at 64 matches."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


async def serve(config: ServeConfig, on_ready: Callable[[RunningNode], None] | None = None) -> None:
    """Run a node until SIGTERM or SIGINT, then shut down gracefully."""
    running = await start_node(config)
    tune_garbage_collector()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before it says it serves: a SIGTERM sent on that
        with contextlib.suppress(NotImplementedError):  # line killed it without a shutdown
            loop.add_signal_handler(sig, stop.set)
    if on_ready is not None:
        on_ready(running)
    stopped, lost = asyncio.ensure_future(stop.wait()), asyncio.ensure_future(running.lost_id.wait())
    await asyncio.wait([stopped, lost], return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    lost.cancel()
    log.info("shutting down", extra={"grace_seconds": config.shutdown_grace_seconds})
    await running.stop(config.shutdown_grace_seconds)
    log.info("stopped")
    if running.lost_id.is_set():
        raise NodeIdTakenError(
            f"node id {running.worker.consumer!r} was taken by another node while this one was silent: "
            "this node stopped; give each node its own --node-id"
        )
