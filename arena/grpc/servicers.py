"""The gRPC servicers. They only convert: request → service call → response.

Domain errors become status codes through the one table in ``arena.grpc.errors``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, Protocol, TypeVar, runtime_checkable

import grpc

from arena import __version__
from arena.errors import AuthError, LeaguesUnavailableError, LimitExceededError, TooManyErrorsError, echo
from arena.games.lookup import get_game
from arena.grpc import convert
from arena.grpc.decode import Undecodable
from arena.grpc.errors import details_for, status_for
from arena.grpc.peers import client_peer
from arena.node import ArenaNode
from arena.referee.seat import DecisionRequest
from arena.service.auth import registered_games
from arena.service.leagues import LeagueService, new_league_id
from arena.service.limits import (
    HelloRefusal,
    PeerCounter,
    RateLimiter,
    StreamAbuse,
    TokenBucket,
    peer_address,
)
from arena.service.listing import ListPosition, MatchLister
from arena.service.matches import MATCH_ID
from arena.service.sessions import CloseReason, Connection, KeepAlive, Outgoing
from arena.store.match_index import MatchQuery, Phase
from arena.store.redis_stores import STORE_UNREACHABLE
from arena.v1 import (
    bot_pb2,
    bot_pb2_grpc,
    league_pb2,
    league_pb2_grpc,
    match_pb2,
    match_pb2_grpc,
    node_pb2,
    node_pb2_grpc,
    registry_pb2,
    registry_pb2_grpc,
)
from arena.wire import common as wire_common

log = logging.getLogger(__name__)

MAX_PAGE_SIZE = 500
"""The most summaries one ListMatches answer holds, whatever the page size asked."""
MAX_SEAL_SIZE = 16
"""Matches one StartMatch seal may hold (the rotations of one duplicate deal)."""
SWEEPS = 4
"""Keep-alive checks per keep-alive interval."""
RECHECK_BATCH = 256
"""Tokens checked again at once."""
START_WAIT_SECONDS = 30.0
"""The longest StartMatch waits for a busy bot's free slot (never past the call's deadline)."""
DEADLINE_MARGIN_SECONDS = 0.25
"""How long before the call's deadline StartMatch stops waiting, to answer in time."""


@runtime_checkable
class DirectStream(Protocol):
    """A bot stream whose transport never makes a write wait (the front's link, ``arena.grpc.front``):
    ``Connect`` hands it each message for the bot as it is sent, and it hands ``Connect`` each of the
    bot's as it arrives, with no task between them (the hot path of every decision)."""

    def write_now(self, message: bytes | bot_pb2.ConnectResponse, written: Callable[[], None] | None = None) -> None:
        """Queue a message for the bot; call ``written`` once it is written to the bot's stream."""
        ...

    def take_requests(self, handler: Callable[[bot_pb2.ConnectRequest | Undecodable | None], None]) -> None:
        """From now on call ``handler`` with each of the bot's messages, those already come first,
        and with None when the bot ends its side."""
        ...

    async def flushed(self) -> None:
        """Wait until every message that asked to be told it was written has been."""
        ...


CLOSE_STATUS = {
    CloseReason.REPLACED: grpc.StatusCode.ABORTED,
    CloseReason.TOO_MANY_ERRORS: grpc.StatusCode.RESOURCE_EXHAUSTED,
    CloseReason.PING_FLOOD: grpc.StatusCode.RESOURCE_EXHAUSTED,
    CloseReason.TOKEN_REVOKED: grpc.StatusCode.UNAUTHENTICATED,
    CloseReason.UNDECODABLE: grpc.StatusCode.INVALID_ARGUMENT,
    CloseReason.SHUTTING_DOWN: grpc.StatusCode.UNAVAILABLE,
}
"""The status a bot stream closed for these reasons ends with (any other reason ends it with OK)."""
STATES = {
    match_pb2.MATCH_STATE_RUNNING: Phase.RUNNING,
    match_pb2.MATCH_STATE_PENDING: Phase.PENDING,
    match_pb2.MATCH_STATE_FINISHED: Phase.FINISHED,
}

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def translate_errors(
    method: Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]],
) -> Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]:
    """Turn domain errors raised by a unary method into their status codes, and anything else (a
    bug) into INTERNAL with the exception logged, never sent: its text may quote what it read."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
        try:
            return await method(self, request, context)
        except Exception as error:
            if isinstance(error, grpc.aio.AbortError):
                raise
            code = status_for(error)
            if code is None:
                log.exception("%s failed", method.__name__)
                await context.abort(grpc.StatusCode.INTERNAL, f"{method.__name__} failed: the node logged why")
            await context.abort(code, details_for(error))
            raise  # unreachable: abort raises

    return wrapper


def admin_token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    """The bearer token in the call's ``authorization`` metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value[len("Bearer ") :]
    return None


def is_admin(node: ArenaNode, context: grpc.aio.ServicerContext[Any, Any]) -> bool:
    """Whether the caller says the admin token, under its address's lockout (``ArenaNode.is_admin``)."""
    return node.is_admin(admin_token(context), peer_address(client_peer(context)))


def check_admin(node: ArenaNode, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    """Refuse a caller without the admin token, under its address's lockout (``ArenaNode.check_admin``)."""
    node.check_admin(admin_token(context), peer_address(client_peer(context)))


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """The bot stream: Hello, then actions in and match messages out."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node
        limits = node.limits
        self._pending = PeerCounter(limits.max_pending_hellos, limits.max_pending_hellos_per_peer)
        self._lockout = node.hello_lockout
        self._live: dict[Connection, str] = {}
        """Every live bot stream on this node, with the token it said Hello with."""
        self._sweeper: asyncio.Task[None] | None = None

    async def Connect(  # type: ignore[override]  # noqa: N802 - gRPC name; writes via context.write
        self,
        request_iterator: AsyncIterator[bot_pb2.ConnectRequest],
        context: grpc.aio.ServicerContext[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse | bytes],
    ) -> None:
        """Authenticate, then relay until either side ends the stream.

        Written with ``context.write`` rather than as a generator: one coroutine per stream, no
        generator layers between the outbox and the wire (the hot path of every decision).
        """
        if self.node.hub.sent_away:
            await self._abort(context, grpc.StatusCode.UNAVAILABLE, CloseReason.SHUTTING_DOWN.value)
        requests, name, hello = await self._hello(request_iterator, context)
        try:
            registered = await self.node.registry.games_of(name)
        except Exception as error:
            await self._abort(context, status_for(error) or grpc.StatusCode.INTERNAL, details_for(error))
        outside = sorted(set(hello.games) - registered)
        if outside:
            await self._abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"bot {echo(name)} is not registered for game {', '.join(echo(g) for g in outside[:3])}; "
                f"it plays {', '.join(sorted(registered))}",
            )
        games = sorted(set(hello.games)) or sorted(registered)
        capacity = max(1, min(hello.max_concurrent_matches or 1, self.node.max_matches_per_connection))
        connection = self.node.hub.connect(name, games, capacity)
        log.info("bot connected", extra={"bot": name, "client": hello.client_name[:64], "capacity": capacity})
        try:
            await self.node.clients.seen(name, hello.client_name, hello.client_version, self.node.clock.wall())
        except Exception as error:  # the store is down: the bot plays on; its page misses this client
            log.warning("could not note the client of bot %s: %s", name, error)
        await context.write(
            bot_pb2.ConnectResponse(
                welcome=bot_pb2.Welcome(
                    bot_name=name,
                    keep_alive_interval=convert.duration(self.node.keep_alive_seconds),
                    games=games,
                    max_concurrent_matches=capacity,
                    server_version=__version__,
                )
            )
        )
        pings = TokenBucket(self.node.limits.pings_per_second, self.node.limits.ping_burst)
        self._live[connection] = hello.token
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep())
        outbox, wall = connection.outbox, self.node.clock.wall
        answered = self.node.hub.answered
        overhead = self.node.metrics.referee_overhead if self.node.metrics is not None else None

        def on_wire(message: Outgoing) -> bytes | bot_pb2.ConnectResponse:
            if isinstance(message, KeepAlive):
                return bot_pb2.ConnectResponse(keep_alive=bot_pb2.KeepAlive(server_time=convert.timestamp(wall())))
            return convert.outgoing_to_wire(message)

        def written(message: Outgoing) -> None:
            if connection.unconfirmed:
                connection.written(message)
            if overhead is not None and type(message) is DecisionRequest:
                arrived = answered.get(message.match_id)
                if arrived is not None:
                    overhead.observe(time.perf_counter() - arrived)

        try:
            if isinstance(context, DirectStream):
                await self._relay_directly(context, connection, pings, on_wire, written)
            else:
                reader = asyncio.create_task(self._read(requests, connection, pings))
                try:
                    write = context.write
                    while (message := await outbox.get()) is not None:
                        await write(on_wire(message))
                        written(message)
                finally:
                    reader.cancel()
        finally:
            self._live.pop(connection, None)
            self.node.hub.disconnect(connection)
            log.info("bot disconnected", extra={"bot": name, "reason": connection.close_text})
        code = CLOSE_STATUS.get(connection.close_reason) if connection.close_reason is not None else None
        if code is not None:
            await self._abort(context, code, connection.close_text)

    async def _relay_directly(
        self,
        stream: DirectStream,
        connection: Connection,
        pings: TokenBucket,
        on_wire: Callable[[Outgoing], bytes | bot_pb2.ConnectResponse],
        written: Callable[[Outgoing], None],
    ) -> None:
        """Relay over a transport whose writes never wait: each message is handled as it comes, both
        ways, in the call that brings it (no task wakes for it); returns once the connection closes."""
        closed = asyncio.get_running_loop().create_future()
        reading = True

        def send(message: Outgoing | None) -> None:
            if message is None:
                if not closed.done():
                    closed.set_result(None)
                return
            # A match's end is kept for the bot's next connection until it is written (not queued).
            end = connection.unwritten(message)
            try:
                stream.write_now(on_wire(message), functools.partial(written, message) if end else None)
            except Exception:  # a bug: this bot's stream ends, the others carry on
                log.exception("could not write to bot %s", connection.session.name)
                connection.close(CloseReason.DISCONNECTED)
                return
            if not end:
                written(message)

        def receive(request: bot_pb2.ConnectRequest | Undecodable | None) -> None:
            nonlocal reading
            if not reading:
                return
            try:
                reading = self._on_request(request, connection, pings)
            except Exception:  # a bug: this bot's stream ends, the others carry on
                log.exception("could not handle a message of bot %s", connection.session.name)
                reading = False
                connection.close(CloseReason.DISCONNECTED)

        connection.outbox.drain_into(send)
        try:
            stream.take_requests(receive)
            await closed
            # Its match ends go to the bot's next connection only once this stream cannot take them
            # any more (as over gRPC, where the last writes are awaited): never told on both.
            await stream.flushed()
        finally:
            reading = False
            connection.outbox.drain_into(None)

    async def _sweep(self) -> None:
        """Keep-alives and token rechecks for every live bot stream of this node, in one task (two
        tasks per stream cost an idle bot memory and the loop timers).

        ``SWEEPS`` times per keep-alive interval, a KeepAlive goes to each stream that has been sent
        nothing for three quarters of it (so none is silent longer than the interval); once per
        interval every token is checked again (see ``_recheck``).
        """
        tick = 0
        recheck: asyncio.Task[None] | None = None
        try:
            while self._live:
                interval = self.node.keep_alive_seconds
                await asyncio.sleep(interval / SWEEPS)
                now = time.monotonic()
                for connection in list(self._live):
                    if now - connection.last_sent >= interval * 0.75:
                        connection.send(KeepAlive())
                tick += 1
                if tick % SWEEPS == 0 and (recheck is None or recheck.done()):
                    recheck = asyncio.create_task(self._recheck(list(self._live.items())))
        finally:
            if recheck is not None:
                recheck.cancel()

    async def _recheck(self, live: list[tuple[Connection, str]]) -> None:
        """Close the connections whose token stopped working: revoked or rotated on any node (the
        node that does it closes its own connections at once; this catches the others')."""
        for start in range(0, len(live), RECHECK_BATCH):
            batch = live[start : start + RECHECK_BATCH]
            try:  # one round trip a batch (a lookup each cost a node of 10,000 idle bots a tenth of a core)
                holders = await self.node.registry.holders([token for _, token in batch])
            except Exception as error:  # the store is down: keep the bots; the next check decides
                log.warning("token recheck failed: %s", error)
                continue
            for (connection, _), holder in zip(batch, holders, strict=True):
                if holder is None:
                    connection.close(CloseReason.TOKEN_REVOKED)

    async def _hello(
        self, request_iterator: AsyncIterator[bot_pb2.ConnectRequest], context: grpc.aio.ServicerContext[Any, Any]
    ) -> tuple[AsyncIterator[bot_pb2.ConnectRequest | Undecodable], str, bot_pb2.Hello]:
        """Read and check the Hello under the limits; returns the requests after it, the bot's name, its Hello.

        Refusals are counted in ``arena_hello_refused_total`` rather than logged, so a flood of
        them costs no log volume. A bad token or a message that is not a Hello counts against the
        peer's lockout (guessing); silence does not (the cap on streams awaiting a Hello bounds it).
        A locked-out peer holds a slot of that cap until its first message or the Hello timeout.
        """
        peer = peer_address(client_peer(context))
        limits = self.node.limits
        try:
            self._pending.acquire(peer)
        except LimitExceededError as error:
            await self._refuse(context, HelloRefusal.TOO_MANY_PENDING, grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        not_hello = (HelloRefusal.NOT_HELLO, grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a Hello")
        refusal: tuple[HelloRefusal, grpc.StatusCode, str] | None = None
        # The decoder hands over an Undecodable for bytes that are not a ConnectRequest (arena.grpc.decode).
        requests: AsyncIterator[bot_pb2.ConnectRequest | Undecodable] = aiter(request_iterator)
        try:
            try:
                first = await asyncio.wait_for(anext(requests), limits.hello_timeout_seconds)
            except TimeoutError:
                refusal = (
                    HelloRefusal.TIMEOUT,
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"no Hello within {limits.hello_timeout_seconds:g} s: the first message must be a Hello",
                )
            except StopAsyncIteration:
                refusal = not_hello
            async with self._lockout.turn(peer):
                # A locked-out peer is refused once its first message has come, not before: a grpc.aio
                # client whose write meets a stream already closed reports INTERNAL instead of this
                # reason (grpc/grpc#36066). Its token is not looked at.
                wait = self._lockout.locked_for(peer, self.node.clock.now())
                if wait > 0:
                    refusal = (
                        HelloRefusal.LOCKED_OUT,
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"too many refused Hellos from your address: try again in {math.ceil(wait)} s",
                    )
                elif refusal is None:
                    if isinstance(first, Undecodable):
                        refusal = (HelloRefusal.UNDECODABLE, grpc.StatusCode.INVALID_ARGUMENT, str(first))
                    elif first.WhichOneof("kind") != "hello":
                        refusal = not_hello
                    else:
                        try:
                            name = await self.node.registry.authenticate(first.hello.token)
                        except AuthError as error:
                            code = status_for(error) or grpc.StatusCode.UNAUTHENTICATED
                            refusal = (HelloRefusal.BAD_TOKEN, code, str(error))
                        except STORE_UNREACHABLE as error:  # no guess: not counted against the peer
                            await self._abort(context, grpc.StatusCode.UNAVAILABLE, details_for(error))
                # Silence is bounded by the cap, not punished; a locked-out peer's lockout is not lengthened.
                if refusal is not None and refusal[0] not in (HelloRefusal.TIMEOUT, HelloRefusal.LOCKED_OUT):
                    now = self.node.clock.now()
                    self._lockout.failed(peer, now)
                    await self._lockout.share(peer, now)
        finally:
            self._pending.release(peer)
        if refusal is not None:
            await self._refuse(context, *refusal)
        assert not isinstance(first, Undecodable)
        return requests, name, first.hello

    async def _refuse(
        self, context: grpc.aio.ServicerContext[Any, Any], why: HelloRefusal, code: grpc.StatusCode, details: str
    ) -> NoReturn:
        if self.node.metrics is not None:
            self.node.metrics.hello_refused.labels(why.value).inc()
        await self._abort(context, code, details)

    async def _abort(
        self, context: grpc.aio.ServicerContext[Any, Any], code: grpc.StatusCode, details: str
    ) -> NoReturn:
        """End the bot stream with an error status, counted in the metrics."""
        if self.node.metrics is not None:
            self.node.metrics.grpc_error("Connect", code.name)
        await context.abort(code, details)

    async def _read(
        self,
        requests: AsyncIterator[bot_pb2.ConnectRequest | Undecodable],
        connection: Connection,
        pings: TokenBucket,
    ) -> None:
        try:
            async for request in requests:
                if not self._on_request(request, connection, pings):
                    return
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            return
        self._on_request(None, connection, pings)

    def _on_request(
        self, request: bot_pb2.ConnectRequest | Undecodable | None, connection: Connection, pings: TokenBucket
    ) -> bool:
        """Handle one message of the bot (None: it ended its side); whether to read on."""
        if request is None:
            connection.close(CloseReason.BOT_CLOSED)
            return False
        if isinstance(request, Undecodable):
            connection.close(CloseReason.UNDECODABLE, f"{CloseReason.UNDECODABLE.value}: {request}")
            return False
        kind = request.WhichOneof("kind")
        try:
            if kind == "action":
                action = request.action
                seat = action.seat if action.HasField("seat") else None
                connection.session.on_action(connection, action.match_id, seat, action.sequence, action.text)
            elif kind == "ping":
                if not pings.take(self.node.clock.now()):
                    if self.node.metrics is not None:
                        self.node.metrics.client_errors.labels(StreamAbuse.PING_FLOOD.value).inc()
                    limits = self.node.limits
                    connection.close(
                        CloseReason.PING_FLOOD,
                        f"more than {limits.ping_burst} pings at once or {limits.pings_per_second:g} a second",
                    )
                    return False
            else:
                why = "Hello was already sent" if kind == "hello" else "empty message"
                connection.session.on_protocol_error(connection, why)
        except TooManyErrorsError as error:
            connection.close(CloseReason.TOO_MANY_ERRORS, str(error))
            return False
        return True


class MatchServicer(match_pb2_grpc.MatchServiceServicer):
    """Ad-hoc matches, records, lists and spectating."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node
        self._watchers = 0
        """WatchMatch streams open now (each is sent every event of its match: capped)."""
        self._events = convert.EventMessages()
        """Each event converted once for all the streams watching its match."""

    @translate_errors
    async def StartMatch(  # noqa: N802
        self, request: match_pb2.StartMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.StartMatchResponse:
        """Start a match between connected bots."""
        check_admin(self.node, context)
        try:
            tc = convert.time_control_from_proto(request.time_control, self.node.default_time_control)
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        get_game(request.game)
        seal = None
        if request.seal or request.seal_size:
            if not MATCH_ID.fullmatch(request.seal):
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"invalid seal {echo(request.seal)}: use 1-128 letters, digits, '.', '_' or '-'",
                )
            if not 2 <= request.seal_size <= MAX_SEAL_SIZE:
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"seal_size must be 2 to {MAX_SEAL_SIZE} with a seal, not {request.seal_size}",
                )
            seal = f"start:{request.seal}"  # never a league's deal id
        hub = self.node.hub  # those connected here for the game are registered for it: not looked up
        await self.node.registry.check_plays(
            [name for name in request.bot_names if not hub.connected_for(name, request.game)], request.game
        )
        remaining = context.time_remaining()
        wait = START_WAIT_SECONDS if remaining is None else min(START_WAIT_SECONDS, remaining - DEADLINE_MARGIN_SECONDS)
        match_id = await self.node.matches.start_when_free(
            request.game,
            list(request.bot_names),
            max(0.0, wait),
            seed=request.seed if request.HasField("seed") else None,
            options=wire_common.options_from_proto(request.options),
            time_control=tc,
            deck=list(request.deck) or None,
            seal=seal,
            seal_size=request.seal_size if seal else 0,
            anywhere=True,
        )
        return match_pb2.StartMatchResponse(match_id=match_id)

    @translate_errors
    async def GetMatchRecord(  # noqa: N802
        self, request: match_pb2.GetMatchRecordRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.GetMatchRecordResponse:
        """The full record of a finished match."""
        record = await self.node.matches.record(request.match_id)
        return match_pb2.GetMatchRecordResponse(record=convert.record_to_proto(record, __version__))

    @translate_errors
    async def ListMatches(  # noqa: N802
        self, request: match_pb2.ListMatchesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> match_pb2.ListMatchesResponse:
        """Running and recent matches, newest first, filtered."""
        page_size = min(request.page_size or 50, MAX_PAGE_SIZE)
        after = ListPosition.parse(request.page_token) if request.page_token else None
        if request.ladder_id and (request.game or request.bot_name or request.league_id):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"ladder_id {echo(request.ladder_id)} is a filter of its own: leave game, bot_name and league_id empty",
            )
        query = MatchQuery(
            request.game,
            request.bot_name,
            STATES.get(request.state),
            league=request.league_id,
            ladder=request.ladder_id,
        )
        page, following = await self._lister().page(query, after, page_size)
        return match_pb2.ListMatchesResponse(
            matches=[convert.summary_to_proto(info) for info in page],
            next_page_token=following.token() if following is not None else "",
        )

    def _lister(self) -> MatchLister:
        return MatchLister(self.node.matches, self.node.leagues)

    async def WatchMatch(  # noqa: N802
        self, request: match_pb2.WatchMatchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[match_pb2.WatchMatchResponse]:
        """Its summary, then public events of a match: no hand ever, choices only after the reveal."""
        cap = self.node.limits.max_watchers
        if self._watchers >= cap:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"more than {cap} WatchMatch streams are open on this node: try again later",
            )
        self._watchers += 1
        try:
            summary = await self.node.matches.summary(request.match_id)
            yield match_pb2.WatchMatchResponse(summary=convert.summary_to_proto(await self._lister().dated(summary)))
            async for event in self.node.matches.watch(request.match_id):
                for message in self._events.of(event):
                    yield message
        except Exception as error:
            code = status_for(error)
            if code is None:
                raise
            await context.abort(code, details_for(error))
        finally:
            self._watchers -= 1


class RegistryServicer(registry_pb2_grpc.RegistryServiceServicer):
    """Bot registration, and the admin's revoking and rotating of tokens."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node
        self._registrations = RateLimiter(node.limits.registrations_per_minute)

    @translate_errors
    async def RegisterBot(  # noqa: N802
        self, request: registry_pb2.RegisterBotRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> registry_pb2.RegisterBotResponse:
        """Register a bot; its token is returned once. Without the admin token, rate-limited per address."""
        admin = admin_token(context)
        if not is_admin(self.node, context):
            self._registrations.check(peer_address(client_peer(context)), self.node.clock.now(), "bot registrations")
        games = registered_games(request.games)
        token = await self.node.registry.register(request.name, admin, games)
        return registry_pb2.RegisterBotResponse(
            bot=registry_pb2.Bot(name=request.name, games=sorted(games)), token=token
        )

    @translate_errors
    async def RevokeToken(  # noqa: N802
        self, request: registry_pb2.RevokeTokenRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> registry_pb2.RevokeTokenResponse:
        """Revoke a bot's token and close its live connection here (other nodes notice on their own)."""
        check_admin(self.node, context)
        await self.node.registry.revoke(request.name, admin_token(context))
        self.node.hub.close_bot(request.name, CloseReason.TOKEN_REVOKED)
        log.info("bot token revoked", extra={"bot": request.name})
        return registry_pb2.RevokeTokenResponse()

    @translate_errors
    async def RotateToken(  # noqa: N802
        self, request: registry_pb2.RotateTokenRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> registry_pb2.RotateTokenResponse:
        """Give a bot a new token, returned once; the old one's live connection here is closed."""
        check_admin(self.node, context)
        token = await self.node.registry.rotate(request.name, admin_token(context))
        self.node.hub.close_bot(request.name, CloseReason.TOKEN_REVOKED)
        log.info("bot token rotated", extra={"bot": request.name})
        return registry_pb2.RotateTokenResponse(token=token)


class LeagueServicer(league_pb2_grpc.LeagueServiceServicer):
    """Leagues: create, follow, rank."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node

    def _admin(self, context: grpc.aio.ServicerContext[Any, Any]) -> bool:
        """Whether the caller holds the admin token (open registration grants no admin sight)."""
        return is_admin(self.node, context)

    def _leagues(self) -> LeagueService:
        if self.node.leagues is None:
            raise LeaguesUnavailableError("this arena node runs without Redis: it has no leagues")
        return self.node.leagues

    @translate_errors
    async def CreateLeague(  # noqa: N802
        self, request: league_pb2.CreateLeagueRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> league_pb2.CreateLeagueResponse:
        """Schedule a league and queue its matches."""
        check_admin(self.node, context)
        leagues = self._leagues()
        try:
            tc = convert.time_control_from_proto(
                request.spec.time_control, self.node.default_time_control, "spec.time_control"
            )
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        spec = convert.league_spec_from_proto(request.spec, new_league_id(), secrets.randbits(52))
        info = await leagues.create(spec, tc, request.spec.name, request.request_id)
        return league_pb2.CreateLeagueResponse(league=convert.league_to_proto(info, for_admin=True))

    @translate_errors
    async def GetLeague(  # noqa: N802
        self, request: league_pb2.GetLeagueRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> league_pb2.GetLeagueResponse:
        """A league and its progress."""
        info = await self._leagues().get(request.league_id)
        return league_pb2.GetLeagueResponse(league=convert.league_to_proto(info, for_admin=self._admin(context)))

    @translate_errors
    async def ListLeagues(  # noqa: N802
        self, request: league_pb2.ListLeaguesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> league_pb2.ListLeaguesResponse:
        """The most recent leagues."""
        infos = await self._leagues().recent(min(request.page_size or 50, 500))
        admin = self._admin(context)
        return league_pb2.ListLeaguesResponse(leagues=[convert.league_to_proto(i, for_admin=admin) for i in infos])

    @translate_errors
    async def GetLeaderboard(  # noqa: N802
        self, request: league_pb2.GetLeaderboardRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> league_pb2.GetLeaderboardResponse:
        """The league table, fitted from the results summed by pairing."""
        info, table = await self._leagues().leaderboard(request.league_id)
        return convert.leaderboard_to_proto(info, table, for_admin=self._admin(context))

    @translate_errors
    async def CancelLeague(  # noqa: N802
        self, request: league_pb2.CancelLeagueRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> league_pb2.CancelLeagueResponse:
        """Cancel a league: its queued matches are dropped unplayed."""
        check_admin(self.node, context)
        info = await self._leagues().cancel(request.league_id)
        return league_pb2.CancelLeagueResponse(league=convert.league_to_proto(info, for_admin=True))


class NodeServicer(node_pb2_grpc.NodeServiceServicer):
    """The arena's live nodes."""

    def __init__(self, node: ArenaNode) -> None:
        self.node = node

    @translate_errors
    async def ListNodes(  # noqa: N802
        self, request: node_pb2.ListNodesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> node_pb2.ListNodesResponse:
        """Every node with a live heartbeat, with its load.

        Raises ``LeaguesUnavailableError`` (UNIMPLEMENTED) on a node without Redis.
        """
        if self.node.nodes is None:
            raise LeaguesUnavailableError("this arena node runs without Redis: it is the only node")
        return node_pb2.ListNodesResponse(nodes=[convert.node_to_proto(n) for n in await self.node.nodes.nodes()])
