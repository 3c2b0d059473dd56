"""``Bot``: subclass it, implement ``act``, call ``run``. The SDK does the protocol for you.

What ``run`` handles (see proto/arena/v1/bot.proto for the protocol itself):

- dials the arena, sends ``Hello`` with the token, the games and the concurrency you chose;
- answers every ``ActionRequest`` in its own task (a plain ``act`` runs in a thread pool, an
  ``async def act`` on the event loop), echoing the match id, the seat and the sequence number
  (a match may seat the same bot more than once: each seat is played on its own);
- drops work on requests that a newer request for the same seat has superseded;
- sends ``Ping`` at the server's keep-alive interval, and treats a stream silent for three
  intervals as dead;
- logs rejections and protocol errors, calls ``on_match_start`` / ``on_match_end``;
- when the stream drops, reconnects with exponential backoff (trying each address in turn) and
  says ``Hello`` again with the same token; the server then resends each running match's start and
  pending request, which is answered (from the cached answer when it was already computed).

It stops when ``stop()`` is called, after ``max_matches`` matches, on an authentication error, or
when a newer connection of the same bot takes over.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Final

import grpc
import grpc.aio

from arena import wire
from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2
from arena_bot.types import MatchInfo, MatchResult, Turn

log = logging.getLogger("arena_bot")

SeatKey = tuple[str, int]
"""One seat the bot plays: (match id, seat index)."""

CLIENT_NAME: Final = "arena-bot"
CLIENT_VERSION: Final = "0.1.0"
FATAL_CODES: Final = frozenset(
    {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.INVALID_ARGUMENT}
)
"""Statuses that retrying cannot fix: a wrong token, or a Hello the server refuses."""
SILENT_INTERVALS: Final = 3
"""A stream that says nothing for this many keep-alive intervals is taken for dead."""


class ArenaBotError(Exception):
    """Base class of the SDK's errors."""


class ConnectionRefusedByServerError(ArenaBotError):
    """The server refused the connection for good (bad token, unknown game): retrying will not help."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"the arena refused the connection: {code.name}: {details}")
        self.code = code
        self.details = details


class ConnectionReplacedError(ArenaBotError):
    """Another connection with the same token took over (status ABORTED): this one must not come back.

    Reconnecting would take the seat back and start a tug of war between the two processes.
    """

    def __init__(self, details: str) -> None:
        super().__init__(f"another connection of this bot took over: {details}")
        self.details = details


class Bot:
    """A bot. Subclass it and implement :meth:`act`; then ``MyBot().run("host:port", token)``.

    Class attributes you may override: ``games`` (what this bot plays), ``max_concurrent_matches``,
    ``answer_on_error`` (if ``act`` raises, answer with the first legal action rather than let the
    deadline pass) and ``client_name``.
    """

    games: Sequence[str] = ()
    """The games this bot plays, by name; empty = every game it is registered for."""
    max_concurrent_matches: int = 1
    answer_on_error: bool = True
    client_name: str = CLIENT_NAME

    _runner: _Runner | None = None

    def act(self, turn: Turn) -> Any:
        """Choose an action: return one of ``turn.legal_actions`` (or a value that prints as one).

        May be a plain method (it then runs in a worker thread, so it may block) or ``async def``
        (it then runs on the event loop and must not block).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement act(self, turn)")

    def on_match_start(self, match: MatchInfo) -> Any:
        """Called once when a match starts (not again when it is resent after a reconnect)."""

    def on_match_end(self, result: MatchResult) -> Any:
        """Called once when a match ends."""

    def on_action_rejected(self, rejection: bot_pb2.ActionRejected) -> Any:
        """Called when the server did not use an action (late, invalid, illegal). Logs it by default."""
        log.warning(
            "match %s, request %d: action rejected (%s): %s; played %r instead, strike %d of %d",
            rejection.match_id,
            rejection.sequence,
            common_pb2.Fault.Name(rejection.fault),
            rejection.reason,
            rejection.fallback_action,
            rejection.strikes,
            rejection.strike_limit,
        )

    def run(
        self,
        address: str | Sequence[str],
        token: str,
        *,
        tls: bool = False,
        root_certificates: str | Path | bytes | None = None,
        client_certificate: str | Path | bytes | None = None,
        client_key: str | Path | bytes | None = None,
        max_matches: int | None = None,
        initial_backoff: float = 0.5,
        max_backoff: float = 30.0,
    ) -> None:
        """Connect and play until :meth:`stop` is called (blocking; see :meth:`run_async`)."""
        asyncio.run(
            self.run_async(
                address,
                token,
                tls=tls,
                root_certificates=root_certificates,
                client_certificate=client_certificate,
                client_key=client_key,
                max_matches=max_matches,
                initial_backoff=initial_backoff,
                max_backoff=max_backoff,
            )
        )

    async def run_async(
        self,
        address: str | Sequence[str],
        token: str,
        *,
        tls: bool = False,
        root_certificates: str | Path | bytes | None = None,
        client_certificate: str | Path | bytes | None = None,
        client_key: str | Path | bytes | None = None,
        max_matches: int | None = None,
        initial_backoff: float = 0.5,
        max_backoff: float = 30.0,
    ) -> None:
        """Connect to the arena and play, reconnecting as needed, until stopped.

        ``address`` is ``host:port`` or a list of them (the next is tried when one fails). TLS is
        used when ``tls`` is true or ``root_certificates`` (PEM bytes or a file path) is given.
        An arena that wants client certificates (mutual TLS) also needs ``client_certificate``
        and ``client_key`` (PEM bytes or file paths; they imply TLS).
        Returns after :meth:`stop` or ``max_matches`` ended matches; raises
        :class:`ConnectionRefusedByServerError` if the server refuses the token or the Hello, and
        :class:`ConnectionReplacedError` if another connection with the same token takes over.
        """
        addresses = [address] if isinstance(address, str) else list(address)
        if not addresses:
            raise ValueError("give at least one arena address (host:port)")
        if (client_certificate is None) != (client_key is None):
            raise ValueError("a client certificate and its key go together")
        root_certificates, client_certificate, client_key = [
            await asyncio.to_thread(Path(pem).read_bytes) if isinstance(pem, (str, Path)) else pem
            for pem in (root_certificates, client_certificate, client_key)
        ]
        credentials = (
            grpc.ssl_channel_credentials(
                root_certificates=root_certificates, private_key=client_key, certificate_chain=client_certificate
            )
            if tls or root_certificates is not None or client_certificate is not None
            else None
        )
        runner = _Runner(self, addresses, token, credentials, max_matches, initial_backoff, max_backoff)
        self._runner = runner
        try:
            await runner.run()
        finally:
            self._runner = None

    def stop(self) -> None:
        """Ask a running bot to disconnect and return from ``run``; safe from any thread."""
        runner = self._runner
        if runner is not None:
            runner.request_stop()


async def _call_hook(hook: Callable[..., Any], *args: Any) -> None:
    """Call a user hook, sync or async; its failure is logged, never fatal."""
    try:
        result = hook(*args)
        if inspect.isawaitable(result):
            await result
    except Exception:
        log.exception("%s failed", getattr(hook, "__qualname__", hook))


class _Runner:
    """The state of one ``run``: the live stream, the matches, the pending decisions."""

    def __init__(
        self,
        bot: Bot,
        addresses: list[str],
        token: str,
        credentials: grpc.ChannelCredentials | None,
        max_matches: int | None,
        initial_backoff: float,
        max_backoff: float,
    ) -> None:
        self.bot = bot
        self.addresses = addresses
        self.token = token
        self.credentials = credentials
        self.max_matches = max_matches
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.loop = asyncio.get_running_loop()
        self.stopping = asyncio.Event()
        self.executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(4, 2 * bot.max_concurrent_matches), thread_name_prefix="arena-bot-act"
        )
        self.call: grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse] | None = None
        self.outgoing: asyncio.Queue[bot_pb2.ConnectRequest | None] | None = None
        """The live stream's queue of messages to write."""
        # Everything per match is kept per (match id, seat): a match may seat the bot more than once.
        self.matches: dict[SeatKey, MatchInfo] = {}
        self.latest: dict[SeatKey, int] = {}
        """The newest request sequence seen per seat."""
        self.tasks: dict[SeatKey, tuple[int, asyncio.Task[None]]] = {}
        """The decision being worked on per seat, with its sequence."""
        self.answers: dict[SeatKey, tuple[int, str, object]] = {}
        """The last answer per seat and the stream it went out on, for when the server resends."""
        self.ended = 0
        self.is_async_act = inspect.iscoroutinefunction(bot.act)
        self.silence: float | None = 30.0
        """Seconds of server silence after which the stream counts as dead (None: never)."""
        self.heard = self.loop.time()
        """When the server was last heard from, on the loop's clock."""
        self.cut = ""
        """Why the watchdog cancelled the current stream ("stop", "silence"), if it did."""

    # -- control ----------------------------------------------------------------------------------

    def request_stop(self) -> None:
        if _loop_is_current(self.loop):
            self.stopping.set()
        else:
            with contextlib.suppress(RuntimeError):  # the loop has already closed: nothing to stop
                self.loop.call_soon_threadsafe(self.stopping.set)

    async def _sleep_unless_stopped(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    async def run(self) -> None:
        index = 0
        backoff = self.initial_backoff
        try:
            while not self.stopping.is_set():
                address = self.addresses[index]
                welcomed = await self._session(address)
                if self.stopping.is_set():
                    break
                if welcomed:
                    # The connection worked: come back to the same address, quickly.
                    backoff = self.initial_backoff
                    delay = self.initial_backoff * random.uniform(0.5, 1.0)
                else:
                    index = (index + 1) % len(self.addresses)
                    delay = 0.0
                    if index == 0:
                        # Every address failed once more: wait longer each round.
                        delay = backoff * random.uniform(0.5, 1.0)
                        backoff = min(self.max_backoff, backoff * 2)
                if delay:
                    log.info("reconnecting in %.2f s", delay)
                await self._sleep_unless_stopped(delay)
        finally:
            for _, task in self.tasks.values():
                task.cancel()
            self.executor.shutdown(wait=False, cancel_futures=True)

    # -- one stream -------------------------------------------------------------------------------

    def _channel(self, address: str) -> grpc.aio.Channel:
        if self.credentials is None:
            return grpc.aio.insecure_channel(address)
        return grpc.aio.secure_channel(address, self.credentials)

    async def _session(self, address: str) -> bool:
        """One stream, from Hello until it ends; returns whether the server welcomed us."""
        welcomed = False
        pinger: asyncio.Task[None] | None = None
        async with self._channel(address) as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            # Writes go through a queue that gRPC's own writer drains (one wake-up a message, as a
            # request iterator costs): a write never blocks, so no decision's cancellation can
            # cancel a write half-done (in grpc.aio that cancels the whole stream).
            outgoing: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
            outgoing.put_nowait(bot_pb2.ConnectRequest(hello=self._hello()))
            call = stub.Connect(_drain(outgoing))
            self.call, self.outgoing = call, outgoing
            self.silence = 30.0  # for the Welcome; then a few keep-alive intervals
            self.heard = self.loop.time()
            self.cut = ""
            # One watchdog per stream ends it on silence or stop, so each message is a plain read.
            watchdog = asyncio.ensure_future(self._watchdog(call, address))
            try:
                log.info("connecting to %s", address)
                while True:
                    response = await call.read()
                    self.heard = self.loop.time()
                    if response is grpc.aio.EOF:
                        log.warning("%s: the server ended the stream", address)
                        break
                    assert isinstance(response, bot_pb2.ConnectResponse)
                    kind = response.WhichOneof("kind")
                    if kind == "welcome":
                        welcomed = True
                        interval = wire.duration_from_proto(response.welcome.keep_alive_interval)
                        self.silence = SILENT_INTERVALS * interval if interval > 0 else None
                        log.info(
                            "connected to %s as %s (games %s)",
                            address,
                            response.welcome.bot_name,
                            ", ".join(response.welcome.games) or "-",
                        )
                        if pinger is None and interval > 0:
                            pinger = asyncio.ensure_future(self._ping(call, interval))
                    await self._dispatch(response, kind)
                    if self.stopping.is_set():
                        break
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():  # our own task is being cancelled
                    raise
                if not self.cut:  # the stream was cancelled under us: a dropped stream, reconnect
                    log.warning("%s: the stream was cancelled; reconnecting", address)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.ABORTED:
                    raise ConnectionReplacedError(error.details() or "") from None
                if error.code() in FATAL_CODES:
                    raise ConnectionRefusedByServerError(error.code(), error.details() or "") from None
                if not self.cut:
                    log.warning("%s: stream failed: %s %s", address, error.code().name, error.details())
            except (grpc.aio.UsageError, asyncio.InvalidStateError, ConnectionError) as error:
                # Whatever else goes wrong with one stream, a long-running bot reconnects.
                log.warning("%s: stream broke: %r", address, error)
            finally:
                self.call = self.outgoing = None
                outgoing.put_nowait(None)
                watchdog.cancel()
                if pinger is not None:
                    pinger.cancel()
                call.cancel()
        return welcomed

    async def _watchdog(
        self, call: grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse], address: str
    ) -> None:
        """Cancel the stream when the bot is asked to stop, or when the server has been silent too long."""
        while True:
            silence = self.silence
            # Look again at least every second: the Welcome changes the silence allowed.
            wait = 1.0 if silence is None else min(1.0, max(0.02, self.heard + silence - self.loop.time()))
            try:
                await asyncio.wait_for(self.stopping.wait(), wait)
                self.cut = "stop"
                call.cancel()
                return
            except TimeoutError:
                if silence is not None and self.loop.time() - self.heard >= silence:
                    log.warning("%s: nothing heard for %.1f s; reconnecting", address, silence)
                    self.cut = "silence"
                    call.cancel()
                    return

    def _hello(self) -> bot_pb2.Hello:
        return bot_pb2.Hello(
            token=self.token,
            games=list(self.bot.games),
            max_concurrent_matches=self.bot.max_concurrent_matches,
            client_name=self.bot.client_name,
            client_version=CLIENT_VERSION,
        )

    async def _ping(
        self, call: grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse], interval: float
    ) -> None:
        while True:
            await asyncio.sleep(interval)
            ping = bot_pb2.Ping()
            ping.client_time.GetCurrentTime()
            if self._send(bot_pb2.ConnectRequest(ping=ping)) is not call:
                return

    def _send(self, request: bot_pb2.ConnectRequest) -> object:
        """Queue ``request`` on the live stream, if there is one; returns that stream, or None."""
        call, outgoing = self.call, self.outgoing
        if call is None or outgoing is None or call.done():
            return None
        outgoing.put_nowait(request)
        return call

    # -- messages from the server -----------------------------------------------------------------

    async def _dispatch(self, response: bot_pb2.ConnectResponse, kind: str | None) -> None:
        if kind == "match_started":
            info = MatchInfo.from_proto(response.match_started)
            first = (info.match_id, info.seat) not in self.matches
            self.matches[info.match_id, info.seat] = info
            if first:
                log.info("match %s started: %s, seat %d of %s", info.match_id, info.game, info.seat, info.bot_names)
                await _call_hook(self.bot.on_match_start, info)
        elif kind == "action_request":
            self._on_request(response.action_request)
        elif kind == "action_rejected":
            await _call_hook(self.bot.on_action_rejected, response.action_rejected)
        elif kind == "match_ended":
            await self._on_end(response.match_ended)
        elif kind == "error":
            error = response.error
            log.warning("match %s, request %d: protocol error: %s", error.match_id, error.sequence, error.reason)
        elif kind not in ("welcome", "keep_alive"):
            log.debug("ignoring a server message of unknown kind %r (newer server?)", kind)

    def _on_request(self, request: bot_pb2.ActionRequest) -> None:
        match_id, sequence = request.match_id, request.sequence
        key = (match_id, request.seat)
        latest = self.latest.get(key)
        if latest is not None and sequence < latest:
            log.debug("match %s: ignoring stale request %d (have %d)", match_id, sequence, latest)
            return
        if sequence == latest:
            # The server resent the request (after a reconnect): answer again, or let the running
            # decision answer when it is done.
            answer = self.answers.get(key)
            if answer is not None and answer[0] == sequence:
                if answer[2] is not self.call:  # not sent on this stream
                    self._answer(key, sequence, answer[1])
                return
            running = self.tasks.get(key)
            if running is not None and running[0] == sequence and not running[1].done():
                return
        self.latest[key] = sequence
        previous = self.tasks.pop(key, None)
        if previous is not None and not previous[1].done():
            log.debug("match %s: request %d supersedes %d", match_id, sequence, previous[0])
            previous[1].cancel()
        turn = Turn.from_proto(request, self.matches.get(key), received_at=time.monotonic())
        self.tasks[key] = (sequence, self._spawn(self._decide(turn)))

    def _spawn(self, coroutine: Awaitable[None]) -> asyncio.Task[None]:
        return asyncio.ensure_future(coroutine)

    def _answer(self, key: SeatKey, sequence: int, text: str) -> None:
        """Send an answer (echoing the match, the seat and the sequence) and remember it (and where it
        went) for a resent request."""
        match_id, seat = key
        action = bot_pb2.Action(match_id=match_id, seat=seat, sequence=sequence, text=text)
        sent_on = self._send(bot_pb2.ConnectRequest(action=action))
        self.answers[key] = (sequence, text, sent_on)
        if sent_on is None:
            log.info("match %s: answer to %d kept for the reconnect", match_id, sequence)

    async def _decide(self, turn: Turn) -> None:
        try:
            try:
                if self.is_async_act:
                    result = await self.bot.act(turn)
                else:
                    result = await self.loop.run_in_executor(self.executor, self.bot.act, turn)
                    if inspect.isawaitable(result):
                        result = await result
                if result is None:
                    raise ValueError("act returned None")
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("match %s, request %d: act failed", turn.match_id, turn.sequence)
                if not (self.bot.answer_on_error and turn.legal_actions):
                    return
                result = turn.legal_actions[0]
                log.warning("match %s, request %d: answering %r instead", turn.match_id, turn.sequence, result)
            text = str(result)
            key = (turn.match_id, turn.seat)
            if self.latest.get(key) != turn.sequence:
                log.debug("match %s: dropping the answer to superseded request %d", turn.match_id, turn.sequence)
                return
            self._answer(key, turn.sequence, text)
        finally:
            current = self.tasks.get((turn.match_id, turn.seat))
            if current is not None and current[0] == turn.sequence and current[1] is asyncio.current_task():
                del self.tasks[turn.match_id, turn.seat]

    async def _on_end(self, message: bot_pb2.MatchEnded) -> None:
        match_id = message.match_id
        key = (match_id, message.seat)
        running = self.tasks.pop(key, None)
        if running is not None:
            running[1].cancel()
        self.latest.pop(key, None)
        self.answers.pop(key, None)
        result = MatchResult.from_proto(message, self.matches.pop(key, None))
        log.info("match %s ended: placing %s, score %s", match_id, result.placing, result.score)
        await _call_hook(self.bot.on_match_end, result)
        self.ended += 1
        if self.max_matches is not None and self.ended >= self.max_matches:
            log.info("played %d matches; stopping", self.ended)
            self.stopping.set()


async def _drain(
    outgoing: asyncio.Queue[bot_pb2.ConnectRequest | None],
) -> AsyncIterator[bot_pb2.ConnectRequest]:
    """A stream's messages to write, until None."""
    while (request := await outgoing.get()) is not None:
        yield request


def _loop_is_current(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
