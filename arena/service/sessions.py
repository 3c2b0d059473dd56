"""Bot sessions on one arena node: live connections, the seats they hold, reconnects.

A bot holds one live connection at a time; a new ``Hello`` with the same token takes over (the old
stream is closed) and is sent the current state of every running match of that bot: its start and
its pending decision request, with the same sequence number. A bot that stays away longer than a
match's grace period is gone for that match (its seat is forfeited by the referee).
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable

from arena.errors import ECHO_LIMIT, SeatGoneError, TooManyErrorsError, echo
from arena.referee.clock import Clock
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection, SeatClient
from arena.service.outbox import Outbox

log = logging.getLogger(__name__)

MAX_PROTOCOL_ERRORS = 100
"""Protocol errors a connection may make in a row (no valid action between) before it is closed."""


@dataclasses.dataclass(frozen=True, slots=True)
class ProtocolNotice:
    """Tells a bot a message it sent could not be used (unknown match, stale sequence, ...); sent as the
    wire's ``ProtocolError``. A notice, not an exception: the stream goes on."""

    match_id: str
    sequence: int
    reason: str


class CloseReason(enum.Enum):
    """Why a bot's connection was closed. The value is the text the bot is told (the transport's
    final status message), unless ``Connection.close`` was given a more specific one."""

    DISCONNECTED = "disconnected"
    """The stream ended (the network, or the transport): the bot may come back within the grace period."""
    BOT_CLOSED = "the bot closed the stream"
    REPLACED = "replaced by a newer connection of the same bot"
    TOKEN_REVOKED = "the bot's token was revoked or rotated"
    UNDECODABLE = "undecodable message"
    """The bot sent bytes that are not a message of the contract."""
    TOO_MANY_ERRORS = "too many unusable messages in a row"
    PING_FLOOD = "too many pings"
    SHUTTING_DOWN = "the node is shutting down: connect again, to another node"


FOLLOW_SECONDS = 0.5
"""How often a seat whose bot left this node looks for it on the other nodes, during its grace period."""
MAX_MISSED_ENDS = 1000
"""Match ends kept for a bot that is away (older ones are only in the match records)."""
IDLE_SESSION_SECONDS = 600.0
"""A bot's session that has had no connection and no seat for this long is forgotten, with the match
ends it kept for the bot (its records have them): a node does not hold something for every bot that
ever connected to it."""


@dataclasses.dataclass(frozen=True, slots=True)
class Relayed:
    """A message for the bot already encoded for the wire by the node refereeing its match."""

    payload: bytes


@dataclasses.dataclass(frozen=True, slots=True)
class KeepAlive:
    """Nothing was sent for a while: tell the bot the stream is alive."""


Outgoing = MatchStart | DecisionRequest | Rejection | MatchEnd | ProtocolNotice | KeepAlive | Relayed


class Connection:
    """One live stream of one bot: an outbox the transport drains."""

    def __init__(self, session: BotSession) -> None:
        self.session = session
        self.outbox: Outbox[Outgoing | None] = Outbox()
        self.closed = False
        self.close_reason: CloseReason | None = None
        """Why the connection was closed (None while it is open)."""
        self.close_text = ""
        """What the bot is told of it: the reason's text, or a more specific one."""
        self.errors_in_a_row = 0
        self.last_sent = time.monotonic()
        self.unconfirmed: list[Outgoing] = []
        """Match ends queued here that the transport has not yet confirmed it wrote (see ``written``)."""

    def send(self, message: Outgoing) -> None:
        """Queue a message for the bot (never blocks)."""
        if not self.closed:
            self.outbox.put_nowait(message)
            self.last_sent = time.monotonic()

    def send_end(self, end: Outgoing) -> None:
        """Queue a match end, kept until the transport confirms it was written; on a connection
        that is closing, keep it for the bot's next connection instead."""
        if self.closed:
            self.session.keep_end(end)
            return
        self.unconfirmed.append(end)
        self.send(end)

    def unwritten(self, message: Outgoing) -> bool:
        """Whether ``message`` is a match end that the transport has not yet confirmed it wrote."""
        return bool(self.unconfirmed) and any(end is message for end in self.unconfirmed)

    def written(self, message: Outgoing) -> None:
        """The transport wrote ``message`` to the stream (called only while ends are unconfirmed)."""
        for index, end in enumerate(self.unconfirmed):
            if end is message:
                del self.unconfirmed[index]
                return

    def close(self, reason: CloseReason, text: str = "") -> None:
        """End the stream after what is queued; ``text`` (default: the reason's) says why to the bot.
        Only the first close counts."""
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self.close_text = text or reason.value
            self.outbox.put_nowait(None)


Follow = Callable[["RemoteSeat"], Awaitable[SeatClient | None]]
"""Where a seat's bot that left this node is now (the relay's ``follow_local``): a seat seated for it
at its new node, or None while it is on no other node."""


class RemoteSeat:
    """The ``SeatClient`` of one seat whose bot is connected to this node."""

    def __init__(
        self,
        session: BotSession,
        match_id: str,
        seat: int,
        clock: Clock,
        grace_seconds: float,
        follow: Follow | None = None,
    ) -> None:
        self.session = session
        self.match_id = match_id
        self.seat = seat
        """The seat's index in the match (a bot may hold several seats of one match)."""
        self.clock = clock
        self.grace_seconds = grace_seconds
        self.start: MatchStart | None = None
        self.pending: tuple[DecisionRequest, asyncio.Future[str]] | None = None
        """The last request sent and the future of its answer: pending while that is not done (the
        referee settles it: answered, timed out, or the seat gone)."""
        self.gone = False
        self.follow = follow
        self.moved: SeatClient | None = None
        """Where the seat went with its bot, which reconnected to another node during its grace period."""
        self._grace_timer: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        """The match's loop, kept: on Python 3.11 each ``get_running_loop`` is a ``getpid`` system call."""

    @property
    def is_connected(self) -> bool:
        """Whether the bot has a live connection to this node (or, once it moved, to its new one)."""
        return self.moved.is_connected if self.moved is not None else self.session.connection is not None

    async def match_started(self, start: MatchStart) -> None:
        """Tell the bot; remember it for a reconnect."""
        self.start = start
        self.session.send(start)

    def decide(self, request: DecisionRequest) -> Awaitable[str]:
        """Send the request; the future resolves with the matching answer (the referee bounds it)."""
        if self.moved is not None:
            return self.moved.decide(request)
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        if self.gone:
            future.set_exception(SeatGoneError(f"bot {self.session.name} left match {self.match_id}"))
            return future
        self.pending = (request, future)
        self.session.send(request)
        return future

    async def rejected(self, rejection: Rejection) -> None:
        """Send the bot an ``ActionRejected`` on its live connection, if it has one (a reconnect does not resend it)."""
        if self.moved is not None:
            await self.moved.rejected(rejection)
            return
        self.session.send(rejection)

    async def match_ended(self, end: MatchEnd) -> None:
        """Tell the bot (now, or when it reconnects) and let the session forget this match."""
        if self.moved is not None:
            await self.moved.match_ended(end)
            return
        self.session.send_end(end)
        self.release()

    def is_stale(self) -> bool:
        """Whether the match this seat is in can no longer be running (never, for a local seat)."""
        return False

    def release(self) -> None:
        """Drop this seat from its session (the match is over or was never started)."""
        if self._grace_timer is not None:
            self._grace_timer.cancel()
        self.session.drop_seat(self)

    def answer(self, sequence: int, action: str) -> str | None:
        """Deliver the bot's answer; returns why it cannot be used, or None."""
        pending = self.pending
        if pending is None or (pending[1].done() and sequence != pending[0].sequence):
            return f"no action is pending in match {self.match_id} (sequence {sequence} is stale)"
        request, future = pending
        if sequence != request.sequence:
            return f"stale sequence {sequence} in match {self.match_id}: the current request is {request.sequence}"
        if future.done():
            return f"sequence {sequence} in match {self.match_id} was already answered"
        future.set_result(action)
        return None

    def connection_lost(self) -> None:
        """Start the grace period; past it the bot is gone for this match."""
        if self._grace_timer is None or self._grace_timer.done():
            self._grace_timer = asyncio.ensure_future(self._expire())

    def resync(self) -> None:
        """A new connection: cancel the grace period and resend the match start and pending request."""
        if self._grace_timer is not None:
            self._grace_timer.cancel()
            self._grace_timer = None
        if not self.gone:
            self._resend()

    def _resend(self) -> None:
        if self.start is not None:
            self.session.send(self.start)
        if self.pending is not None and not self.pending[1].done():
            self.session.send(self.pending[0])

    async def _expire(self) -> None:
        """The grace period: the bot may come back here, or to another node of the arena (``follow``,
        looked up every ``FOLLOW_SECONDS``), where the seat goes with it; else it is gone."""
        waited = 0.0
        while waited < self.grace_seconds:
            step = min(FOLLOW_SECONDS, self.grace_seconds - waited) if self.follow is not None else self.grace_seconds
            await self.clock.sleep(step)
            waited += step
            if self.session.connection is not None:
                return
            if self.follow is not None and self.start is not None:
                try:
                    elsewhere = await self.follow(self)
                except Exception:  # the store is away: not known to be elsewhere
                    log.debug("could not look up where bot %s is", self.session.name, exc_info=True)
                    continue
                if elsewhere is not None:
                    self._move(elsewhere)
                    return
        if self.session.connection is not None:
            return
        self.gone = True
        if self.pending is not None and not self.pending[1].done():
            self.pending[1].set_exception(
                SeatGoneError(f"bot {self.session.name} did not reconnect within {self.grace_seconds:g} s")
            )

    def _move(self, elsewhere: SeatClient) -> None:
        """The bot is on another node, where ``elsewhere`` seats it: the seat goes there, with the
        request it has pending, and this node's session forgets it (``follow`` logged the move)."""
        self.moved = elsewhere
        self._grace_timer = None  # this task, ending
        pending, self.pending = self.pending, None
        self.session.drop_seat(self)
        if pending is not None and not pending[1].done():
            _chain(asyncio.ensure_future(elsewhere.decide(pending[0])), pending[1])


def _chain(source: asyncio.Future[str], target: asyncio.Future[str]) -> None:
    """Settle ``target`` as ``source`` settles (and cancel ``source`` if ``target`` is cancelled)."""

    def settle(done: asyncio.Future[str]) -> None:
        if target.done():
            return
        if done.cancelled():
            target.cancel()
        elif (error := done.exception()) is not None:
            target.set_exception(error)
        else:
            target.set_result(done.result())

    source.add_done_callback(settle)
    target.add_done_callback(lambda t: source.cancel() if t.cancelled() else None)


class BotSession:
    """A bot's presence on this node, across its connections."""

    def __init__(self, name: str, answered: dict[str, float] | None = None) -> None:
        self.name = name
        self.answered: dict[str, float] = {} if answered is None else answered
        """When (``time.perf_counter``) the last usable answer of each match arrived (the hub's, shared)."""
        self.connection: Connection | None = None
        self.games: frozenset[str] = frozenset()
        self.capacity = 1
        self.seats: dict[str, dict[int, RemoteSeat]] = {}
        """The seats the bot holds, by match id, then seat index."""
        self.last_close_reason: CloseReason | None = None
        self.last_close_text = ""
        """Why its last connection closed, and what the bot was told."""
        self.missed_ends: list[Outgoing] = []
        """Matches that ended while the bot was away, told at its next connection."""

    def send(self, message: Outgoing) -> None:
        """Send to the live connection, if any (a reconnect resends what matters)."""
        if self.connection is not None:
            self.connection.send(message)

    def send_end(self, end: Outgoing) -> None:
        """Send a match end to the live connection, or keep it for the next: it is told exactly once
        the transport has written it (a connection that drops before hands it back)."""
        if self.connection is not None:
            self.connection.send_end(end)
        else:
            self.keep_end(end)

    def keep_end(self, end: Outgoing) -> None:
        """Keep a match end for the bot's next connection (up to ``MAX_MISSED_ENDS``)."""
        if len(self.missed_ends) < MAX_MISSED_ENDS:
            self.missed_ends.append(end)

    def add_seat(self, seat: RemoteSeat) -> None:
        """The bot holds this seat (until it is released)."""
        self.seats.setdefault(seat.match_id, {})[seat.seat] = seat

    def drop_seat(self, seat: RemoteSeat) -> None:
        """Forget a seat (its match is over, or ran elsewhere)."""
        held = self.seats.get(seat.match_id)
        if held is not None and held.get(seat.seat) is seat:
            del held[seat.seat]
            if not held:
                del self.seats[seat.match_id]
                self.answered.pop(seat.match_id, None)

    def all_seats(self) -> list[RemoteSeat]:
        """Every seat the bot holds, in every match."""
        return [seat for held in self.seats.values() for seat in held.values()]

    @property
    def free_slots(self) -> int:
        """How many more seats the bot said it will play at once (stale seats are dropped first)."""
        seats = self.all_seats()
        for seat in seats:
            if seat.is_stale():
                self.drop_seat(seat)
        return self.capacity - sum(map(len, self.seats.values())) if self.connection is not None else 0

    def on_action(self, connection: Connection, match_id: str, seat: int | None, sequence: int, action: str) -> None:
        """Route an answer to its (match, seat); tell the bot when it cannot be used.

        ``seat`` may be None (an older client) when the bot holds one seat of the match.
        """
        held = self.seats.get(match_id)
        target: RemoteSeat | None = None
        error = ""
        if held is None:
            error = f"unknown match {echo(match_id)}: this bot holds no seat in it"
        elif seat is None and len(held) > 1:
            error = f"this bot holds {len(held)} seats in match {echo(match_id)}: say which one in Action.seat"
        elif seat is None:
            [target] = held.values()
        elif (target := held.get(seat)) is None:
            error = f"this bot holds no seat {seat} in match {echo(match_id)} (it holds {sorted(held)})"
        final = target.answer(sequence, action) if target is not None else error
        if final is None:
            self.answered[match_id] = time.perf_counter()
            connection.errors_in_a_row = 0
            return
        self._error(connection, ProtocolNotice(match_id[:ECHO_LIMIT], sequence, final))

    def on_protocol_error(self, connection: Connection, reason: str) -> None:
        """A message that is not an action where one was expected."""
        self._error(connection, ProtocolNotice("", 0, reason))

    @staticmethod
    def _error(connection: Connection, notice: ProtocolNotice) -> None:
        connection.errors_in_a_row += 1
        if connection.errors_in_a_row > MAX_PROTOCOL_ERRORS:
            raise TooManyErrorsError(f"more than {MAX_PROTOCOL_ERRORS} unusable messages in a row")
        connection.send(notice)


class SessionHub:
    """Every bot session on this node."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.sessions: dict[str, BotSession] = {}
        self.answered: dict[str, float] = {}
        """When (``time.perf_counter``) the last usable answer of each running match arrived: the start
        of the referee's own overhead, which the transport ends when it writes the next request."""
        self.on_connect: Callable[[str], object] | None = None
        self.on_disconnect: Callable[[str], object] | None = None
        """Told (by name) when a bot connects or its live connection ends (e.g. to keep a directory)."""
        self.left: dict[str, float] = {}
        """The sessions without a connection, by name, oldest first: since when (``clock``)."""
        self.sent_away = False
        """The node is stopping and has told its bots to go elsewhere: a bot stream is refused."""
        self.follow: Follow | None = None
        """Where a bot that left this node mid-match is now (the relay's, on a node with Redis)."""

    def connect(self, name: str, games: Iterable[str], capacity: int) -> Connection:
        """A bot said hello: attach a new connection, replacing any older one, and resync its matches."""
        session = self.sessions.get(name)
        if session is None:
            session = self.sessions[name] = BotSession(name, self.answered)
        self.left.pop(name, None)
        if session.connection is not None:
            session.connection.close(CloseReason.REPLACED)
        connection = Connection(session)
        session.connection = connection
        session.games = frozenset(games)
        session.capacity = max(1, capacity)
        missed, session.missed_ends = session.missed_ends, []
        for end in missed:
            connection.send_end(end)
        for seat in session.all_seats():
            seat.resync()
        if self.on_connect is not None:
            self.on_connect(name)
        return connection

    def session(self, name: str) -> BotSession:
        """The bot's session here, a new one (without a connection) if it has none."""
        session = self.sessions.get(name)
        if session is None:
            session = self.sessions[name] = BotSession(name, self.answered)
            self.left[name] = self.clock.now()
        return session

    def connected_for(self, name: str, game: str) -> bool:
        """Whether bot ``name`` has connected to this node for ``game``: Connect checked that it is
        registered for it (a registration's games never change), so no store need be asked."""
        session = self.sessions.get(name)
        return session is not None and game in session.games

    def forget_idle(self) -> int:
        """Forget the sessions that have had no connection and no seat (a stale one is dropped first)
        for ``IDLE_SESSION_SECONDS``; returns how many. Looks at those that left that long ago only."""
        now = self.clock.now()
        due = list(itertools.takewhile(lambda item: now - item[1] >= IDLE_SESSION_SECONDS, self.left.items()))
        forgotten = 0
        for name, _ in due:
            del self.left[name]
            session = self.sessions.get(name)
            if session is None or session.connection is not None:
                continue
            for seat in session.all_seats():
                if seat.is_stale():
                    seat.release()
            if session.seats:
                self.left[name] = now  # it still plays a match here: looked at again later
            else:
                del self.sessions[name]
                forgotten += 1
        return forgotten

    def disconnect(self, connection: Connection) -> None:
        """A stream ended: if it was the bot's live connection, start the grace periods."""
        connection.close(CloseReason.DISCONNECTED)
        session = connection.session
        session.last_close_reason, session.last_close_text = connection.close_reason, connection.close_text
        if session.connection is connection:
            session.connection = None
            self.left.pop(session.name, None)
            self.left[session.name] = self.clock.now()
            for seat in session.all_seats():
                seat.connection_lost()
            if self.on_disconnect is not None:
                self.on_disconnect(session.name)
        # Ends that never reached this stream go to the live connection (a newer one), or wait.
        unwritten, connection.unconfirmed = connection.unconfirmed, []
        for end in unwritten:
            session.send_end(end)

    def close_bot(self, name: str, reason: CloseReason) -> None:
        """End the bot's live connection on this node, if it has one."""
        session = self.sessions.get(name)
        if session is not None and session.connection is not None:
            session.connection.close(reason)

    def connected(self) -> list[BotSession]:
        """Sessions with a live connection."""
        return [s for s in self.sessions.values() if s.connection is not None]

    def seat_for(self, name: str, match_id: str, seat: int, grace_seconds: float) -> RemoteSeat:
        """A new seat (index ``seat``) of bot ``name`` in a match."""
        session = self.sessions[name]
        client = RemoteSeat(session, match_id, seat, self.clock, grace_seconds, self.follow)
        session.add_seat(client)
        return client
