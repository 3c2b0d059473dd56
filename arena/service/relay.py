"""Matches across nodes: a node referees a match whose bots are connected to other nodes.

Each node has an inbox, a Redis stream ``arena:relay:{node}``. The refereeing node (the *origin*)
holds a :class:`RelaySeat` for each seat whose bot is elsewhere; it sends that bot's *home* node
the match start, each request, rejections and the end, already encoded for the wire. The home
node holds a :class:`ProxySeat` in the bot's session, which delivers them to the bot like any
local seat, and sends back the bot's answers, its presence (disconnected / back) and, past the
grace period, that it is gone. Where each bot is connected is kept in Redis by its home node
(``arena:botat:{bot}``, refreshed with the node's heartbeat, expiring when the node dies).
A spectator of a match refereed on another node is relayed too: its node asks the referee's for the
match's events (``Relay.watch``), which sends them, public views only, until the match's end.
The workers of one ``arena serve --workers N`` send each other their messages over direct links
instead (``arena.service.siblings``), falling back to the inboxes if a link fails.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import enum
import json
import logging
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from arena.errors import (
    ArenaError,
    LimitExceededError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchSealedError,
    RefereeGoneError,
    SeatGoneError,
    StoredDataError,
    echo,
)
from arena.referee.clock import Clock
from arena.referee.match import EventKind, MatchEvent
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection
from arena.service.keepalive import with_keep_alives
from arena.service.sessions import BotSession, Outgoing, Relayed, RemoteSeat, SessionHub
from arena.service.siblings import Message, SiblingLinks
from arena.store.redis_stores import STORE_ERRORS
from arena.store.relay import RelayStore

log = logging.getLogger(__name__)

Encoder = Callable[[Outgoing], bytes]
"""Turns a message for a bot into its wire bytes (the gRPC layer's converter, injected)."""

STALE_SECONDS = 120.0
"""A cross-node seat whose referee has said nothing this long is dropped (its node died)."""
ORIGIN_CHECK_SECONDS = 2.0
"""How often a node checks that the referees of its bots' cross-node seats are alive: a seat whose
referee's node has no heartbeat, or no longer lists the match (it restarted under its id), at two
checks in a row is dropped (its match runs elsewhere now), freeing the bot's match slot long before
``STALE_SECONDS``. Relayed spectator streams are checked so too, while nothing comes."""
FOLLOW_SECONDS = 0.5
"""How often a pending cross-node request checks where its bot is."""
MAX_STREAMS = 1024
"""Spectator streams this node sends other nodes at once (each of them caps its own spectators)."""
WATCHED_BEHIND = 1024
"""Events a relayed spectator may be behind before it is dropped (as a local one is)."""
SPECTATOR_BEHIND = "this spectator fell too far behind its match's events: watch it again"
"""What a spectator that was dropped for it is told."""
WATCHER_CHECK_SECONDS = 10.0
"""How often a stream to a spectator's node checks, at its next event, that that node is alive."""
WATCH_KEEP_ALIVE_SECONDS = 5.0
WATCH_SILENCE_SECONDS = 30.0
"""A stream to a spectator's node says it is alive when it has sent nothing this long; a relayed
spectator that hears nothing for ``WATCH_SILENCE_SECONDS`` (its end was lost: the relay gives up on
a message it could not post in about 30 s) is told so and let go."""


class _BehindError(LimitExceededError):
    """A relayed spectator dropped here for falling behind (the referee's node is told to stop)."""


_WATCH_ERRORS: dict[str, type[ArenaError]] = {
    "MatchSealedError": MatchSealedError,
    "MatchNotFoundError": MatchNotFoundError,
    "MatchNotFinishedError": MatchNotFinishedError,
    "MatchElsewhereError": MatchNotFinishedError,  # it moved on: its text names where
    "LimitExceededError": LimitExceededError,
}
"""The errors a referee's node may end a relayed spectator stream with, by class name (any other:
``RefereeGoneError``, with its text)."""


@dataclasses.dataclass(frozen=True, slots=True)
class EventCodec:
    """A spectator event as the fields of a relay message and back (the gRPC layer's, injected)."""

    encode: Callable[[MatchEvent], dict[str, str]]
    decode: Callable[[Mapping[str, str]], MatchEvent]


class RelayKind(enum.StrEnum):
    """What a relay message is (its ``t`` field in the inbox stream)."""

    ADOPT = "adopt"
    """To a node: start this match (its bots are connected to you)."""
    ADOPTED = "adopted"
    """The answer to ``ADOPT``: the match id, or the error."""
    START = "start"
    """Origin to home: seat the bot (the match start, for the wire)."""
    REQUEST = "request"
    """Origin to home: a decision request."""
    PUSH = "push"
    """Origin to home: a rejection."""
    END = "end"
    """Origin to home: the match end."""
    ANSWER = "answer"
    """Home to origin: the bot's answer."""
    PRESENCE = "presence"
    """Home to origin: the bot disconnected, or is back."""
    GONE = "gone"
    """Home to origin: the bot is gone for this match."""
    WATCH = "watch"
    """A spectator's node to the referee's: send me this match's events."""
    WATCHED = "watched"
    """Referee's node to a spectator's: an event of the match, or the error that ends the stream."""
    UNWATCH = "unwatch"
    """A spectator's node to the referee's: the spectator left."""

    @classmethod
    def parse(cls, text: str) -> RelayKind:
        """The kind a message's ``t`` field names; raises ``StoredDataError`` naming any other text."""
        try:
            return cls(text)
        except ValueError:
            raise StoredDataError(f"unknown relay message kind {echo(text)}") from None


FROM_HOME = frozenset({RelayKind.ANSWER, RelayKind.PRESENCE, RelayKind.GONE})
"""The kinds a bot's home node sends the node refereeing its match."""


class Relay:
    """This node's inbox and its side of every cross-node seat."""

    def __init__(self, store: RelayStore, hub: SessionHub, clock: Clock, encode: Encoder) -> None:
        self.store = store
        self.node_id = store.node_id
        self.hub = hub
        self.clock = clock
        self.encode = encode
        self.directory = store.directory
        self.origin_seats: dict[tuple[str, str, int], RelaySeat] = {}
        """Seats this node referees whose bots are elsewhere, by (match, bot, seat)."""
        self.pending_sends: set[asyncio.Task[None]] = set()
        self.outboxes: dict[str, asyncio.Queue[Message | None]] = {}
        """Messages to send, by node (None: only a wake-up, when a sibling link broke)."""
        self.senders: dict[str, asyncio.Task[None]] = {}
        self.adopt: Callable[[dict[str, Any]], Awaitable[str]] | None = None
        """Starts a match that another node asks this one to referee (its bots are connected here)."""
        self.replies: dict[str, asyncio.Future[dict[str, str]]] = {}
        """Requests to start a match elsewhere, awaiting the other node's answer."""
        self.following: set[RelaySeat] = set()
        """Seats with a request pending, which the follower checks on (one task for them all)."""
        self.follower: asyncio.Task[None] | None = None
        self.links: SiblingLinks | None = None
        """Direct links to the sibling workers of this ``arena serve --workers N`` (see ``link_siblings``)."""
        self.spectate: Callable[[str], AsyncGenerator[MatchEvent, None]] | None = None
        """A match's events as this node's own spectators get them (``MatchManager.watch``, not relayed)."""
        self.events: EventCodec | None = None
        self.where: Callable[[Sequence[str]], Awaitable[list[str | None]]] | None = None
        """The node each match is listed on in the running index (``RunningIndex.nodes_of``): a
        referee's node restarted under its id after a crash is alive, but it has not its matches."""
        self.watches: dict[str, asyncio.Queue[MatchEvent | ArenaError | None]] = {}
        """Spectators here of matches refereed elsewhere, by watch id: the events relayed to them
        (None: a keep-alive)."""
        self.streams: dict[str, asyncio.Task[None]] = {}
        """This node's matches' events sent to spectators on other nodes, by watch id."""

    # -- sending ------------------------------------------------------------------------------

    def link_siblings(self, folder: Path, siblings: Collection[str]) -> SiblingLinks:
        """Send to these sibling workers over their sockets in ``folder`` rather than through their
        Redis inboxes, and take theirs (call ``SiblingLinks.listen`` next)."""
        self.links = SiblingLinks(self.node_id, folder, siblings, self._handle_logged, self._wake)
        return self.links

    def send(self, node: str, message: dict[str, str], payload: bytes | None = None) -> None:
        """Send a message (and the wire bytes for a bot it carries) to a node: over the link to a
        sibling worker, or to its inbox. Messages to one node keep their order (a start before its
        requests): one sender per destination drains them, batched; or, while the link to a sibling
        is open and nothing is waiting for it, straight onto the link (which writes them all at the
        end of this turn of the event loop)."""
        queue = self.outboxes.get(node)
        if (queue is None or queue.empty()) and self.links is not None and self.links.post(node, (message, payload)):
            return
        if queue is None:
            queue = self.outboxes[node] = asyncio.Queue()
            self.senders[node] = asyncio.ensure_future(self._drain(node, queue))
        queue.put_nowait((message, payload))

    def _wake(self, node: str) -> None:
        """The link to ``node`` broke: its sender resends what it left unacknowledged, even if idle."""
        queue = self.outboxes.get(node)
        if queue is not None:
            queue.put_nowait(None)

    async def _drain(self, node: str, queue: asyncio.Queue[Message | None]) -> None:
        while True:
            batch = [message for message in [await queue.get()] if message is not None]
            while not queue.empty() and len(batch) < 500:
                if (message := queue.get_nowait()) is not None:
                    batch.append(message)
            links = self.links
            if links is not None and links.usable(node) and await links.send(node, batch):
                continue
            if links is not None:
                batch = links.take_unacked(node) + batch
            if not batch:
                continue
            posted = [fields if payload is None else fields | {"payload": _b64(payload)} for fields, payload in batch]
            for attempt in range(20):
                try:
                    await self.store.post(node, posted)
                    break
                except STORE_ERRORS as error:
                    log.warning("relay to %s failed (%s); retrying", node, error)
                    await asyncio.sleep(min(0.1 * 2**attempt, 2.0))
            else:
                log.error("relay to %s failed 20 times in a row: %d messages dropped", node, len(posted))

    def send_soon(self, work: Awaitable[None]) -> None:
        """Run a Redis write in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(work)
        self.pending_sends.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self.pending_sends.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a relay write failed: %s", task.exception())

    async def locate(self, bot: str) -> Home | None:
        """The live node the bot is connected to, if any (a dead node's entry is ignored)."""
        node = await self.directory.where(bot)
        instance = None if node is None else (await self.store.instances([node]))[node]
        return None if node is None or instance is None else Home(node, instance)

    async def start_at(self, node: str, spec: dict[str, Any], seconds: float) -> dict[str, str]:
        """Ask ``node`` to start a match (``spec`` as ``MatchManager.adopt`` reads it); its answer
        has the match id (``match``) or the error (``error``: class name, ``text``)."""
        request = uuid.uuid4().hex
        future: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
        self.replies[request] = future
        self.send(node, {"t": RelayKind.ADOPT.value, "origin": self.node_id, "req": request, "spec": json.dumps(spec)})
        try:
            return await asyncio.wait_for(future, seconds)
        finally:
            self.replies.pop(request, None)

    async def _adopt(self, message: dict[str, str]) -> None:
        reply = {"t": RelayKind.ADOPTED.value, "req": message.get("req", "")}
        try:
            if self.adopt is None:
                raise ArenaError(f"node {self.node_id} does not start matches for other nodes")
            reply["match"] = await self.adopt(json.loads(message["spec"]))
        except (ArenaError, KeyError, TypeError, ValueError) as error:  # a spec it cannot read: say so now
            reply |= {"error": type(error).__name__, "text": str(error)[:300]}
        self.send(message["origin"], reply)

    async def watch(self, node: str, match_id: str) -> AsyncGenerator[MatchEvent, None]:
        """The events of a match that ``node`` referees, as its own spectators get them (the latest
        first, then each until the end), relayed. Raises what that node's watch raised, and
        ``RefereeGoneError`` if, at two checks in a row while nothing comes, ``node`` has no
        heartbeat or the running index no longer has the match there (``where``)."""
        if len(self.watches) >= MAX_STREAMS:
            raise LimitExceededError("this node relays as many spectator streams as it can: try again later")
        key = uuid.uuid4().hex
        queue: asyncio.Queue[MatchEvent | ArenaError | None] = asyncio.Queue()
        self.watches[key] = queue
        self.send(node, {"t": RelayKind.WATCH.value, "match": match_id, "watch": key, "origin": self.node_id})
        over, missed = False, False  # over: the referee's node ended the stream, or is gone
        loop = asyncio.get_running_loop()
        heard = loop.time()
        try:
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), ORIGIN_CHECK_SECONDS)
                except TimeoutError:
                    if loop.time() - heard >= WATCH_SILENCE_SECONDS:
                        raise RefereeGoneError(
                            f"node {node[:80]!r}, which referees match {match_id[:80]!r}, said nothing of it for "
                            f"{WATCH_SILENCE_SECONDS:g} s: watch it again"
                        ) from None
                    try:
                        there = (await self._referees([(node, match_id)]))[0]
                    except STORE_ERRORS:
                        continue  # not known to be gone
                    if not there and missed:
                        over = True
                        raise RefereeGoneError(
                            f"the events of match {match_id[:80]!r} from node {node[:80]!r} stopped: the node is "
                            "gone or restarted, or the match's end was lost; its record tells how it ended once stored"
                        ) from None
                    missed = not there
                    continue
                heard, missed = loop.time(), False
                if item is None:  # a keep-alive
                    continue
                if isinstance(item, ArenaError):
                    over = not isinstance(item, _BehindError)
                    raise item
                yield item
                if item.kind is EventKind.ENDED:
                    over = True
                    return
        finally:
            self.watches.pop(key, None)
            if not over:
                self.send(node, {"t": RelayKind.UNWATCH.value, "watch": key})

    def _watched(self, message: dict[str, str]) -> None:
        """An event (or the end) of a match relayed to a spectator here."""
        queue = self.watches.get(message.get("watch", ""))
        if queue is None:
            return
        if "error" in message:
            error = _WATCH_ERRORS.get(message["error"], RefereeGoneError)
            queue.put_nowait(error(message.get("text", "the referee's node ended the stream")))
        elif "alive" in message:
            if queue.empty():  # else the spectator has something to read
                queue.put_nowait(None)
        elif queue.qsize() >= WATCHED_BEHIND:  # it does not read: dropped, and told so (UNWATCH follows)
            while not queue.empty():
                queue.get_nowait()
            queue.put_nowait(_BehindError(SPECTATOR_BEHIND))
        else:
            assert self.events is not None
            queue.put_nowait(self.events.decode(message))

    def _stream(self, message: dict[str, str]) -> None:
        """Start sending a match's events to a spectator on another node (``WATCH``)."""
        key, origin = message.get("watch", ""), message.get("origin", "")
        if not key or not origin or key in self.streams:
            raise StoredDataError("a watch request without its watch id or origin, or twice")
        reply = {"t": RelayKind.WATCHED.value, "watch": key}
        if self.spectate is None or self.events is None or len(self.streams) >= MAX_STREAMS:
            text = f"node {self.node_id[:80]!r} relays as many spectator streams as it can: try again later"
            self.send(origin, reply | {"error": LimitExceededError.__name__, "text": text})
            return
        task = asyncio.ensure_future(self._send_events(message.get("match", ""), origin, reply))
        self.streams[key] = task
        task.add_done_callback(lambda _: self.streams.pop(key, None))

    async def _send_events(self, match_id: str, origin: str, reply: dict[str, str]) -> None:
        assert self.spectate is not None
        assert self.events is not None
        checked, missed = self.clock.now(), False
        events = with_keep_alives(self.spectate(match_id), WATCH_KEEP_ALIVE_SECONDS)
        try:
            async for event in events:
                self.send(origin, reply | ({"alive": "1"} if event is None else self.events.encode(event)))
                if self.clock.now() - checked >= WATCHER_CHECK_SECONDS:
                    checked = self.clock.now()
                    alive = (await self.store.alive([origin]))[origin]
                    if not alive and missed:
                        return  # the spectator's node died: nobody reads these
                    missed = not alive
        except ArenaError as error:
            self.send(origin, reply | {"error": type(error).__name__, "text": str(error)[:300]})
        except Exception as error:  # the store failed, or a bug: the spectator is told, not left waiting
            if not isinstance(error, STORE_ERRORS):
                log.exception("streaming match %s to node %s failed", match_id[:80], origin[:80])
            text = f"node {self.node_id[:80]!r} could not stream match {match_id[:80]!r}: {error}"
            self.send(origin, reply | {"error": RefereeGoneError.__name__, "text": text[:300]})
        finally:
            await events.aclose()

    async def follow_local(self, seat: RemoteSeat) -> RelaySeat | None:
        """A seat of a match refereed here whose bot left this node: if the bot is on another node
        now, a relayed seat for it there, the match's start posted to it (``SessionHub.follow``)."""
        home = await self.locate(seat.session.name)
        if home is None or home.node == self.node_id or seat.start is None:
            return None
        log.info("bot %s of match %s moved from %s to %s", seat.session.name, seat.match_id, self.node_id, home.node)
        moved = RelaySeat(self, home, seat.session.name, seat.match_id, seat.seat, seat.start.game)
        await moved.match_started(seat.start)
        return moved

    def follow(self, seat: RelaySeat) -> None:
        """Check on ``seat``'s bot while its request is pending (see ``RelaySeat.check``)."""
        self.following.add(seat)
        if self.follower is None or self.follower.done():
            self.follower = asyncio.ensure_future(self._follow_all())

    async def _follow_all(self) -> None:
        """Every ``FOLLOW_SECONDS``, check on the seats whose request has been pending that long.

        One task for every relayed seat of this node: a task per request would cost each relayed
        decision a task, a timer and a cancellation, though almost every answer comes well before.
        """
        while self.following:
            await asyncio.sleep(FOLLOW_SECONDS)
            now = self.clock.now()
            due = [seat for seat in self.following if now - seat.asked_at >= FOLLOW_SECONDS]
            await asyncio.gather(*(seat.check() for seat in due))

    # -- receiving ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event, after: str) -> None:
        """Read this node's inbox until ``stop``: what is posted after the entry ``after`` (not from
        ``$``, new entries only, which missed one posted between two reads until a first message
        came). A node starting reads ``store.tail()`` before it takes its id: from then on other
        nodes may seat its bots here, before it serves."""
        last, checked = after, self.clock.now()
        while not stop.is_set():
            try:
                if self.clock.now() - checked >= ORIGIN_CHECK_SECONDS:
                    checked = self.clock.now()
                    await self.check_origins()
                entries = await self.store.read(last, count=500, block_ms=200)
            except STORE_ERRORS as error:
                log.warning("relay inbox unavailable: %s", error)
                await asyncio.sleep(0.5)
                continue
            for last, fields in entries:
                if self.links is None or not self.links.seen(fields):
                    self._handle_logged(fields, None, last)

    def _handle_logged(self, message: dict[str, str], payload: bytes | None, where: str = "from a sibling") -> None:
        """``handle``, logging a message it cannot handle."""
        try:
            self.handle(message, payload)
        except StoredDataError as error:
            log.warning("bad relay message %s: %s", where, error)
        except Exception:
            log.exception("bad relay message %s", where)

    async def _referees(self, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        """For each (node, match): whether the node is alive and, with ``where``, the running index
        has the match on it."""
        alive = await self.store.alive(sorted({node for node, _ in pairs}))
        if self.where is None:
            return [alive[node] for node, _ in pairs]
        listed = await self.where([match_id for _, match_id in pairs])
        return [alive[node] and on == node for (node, _), on in zip(pairs, listed, strict=True)]

    async def check_origins(self) -> None:
        """Mark the cross-node seats whose referee's node has had no heartbeat, or no longer lists
        their match (it restarted), at two checks in a row."""
        proxies = [
            seat
            for session in self.hub.sessions.values()
            for seat in session.all_seats()
            if isinstance(seat, ProxySeat) and not seat.origin_gone
        ]
        if not proxies:
            return
        there = await self._referees([(seat.origin, seat.match_id) for seat in proxies])
        for seat, referees in zip(proxies, there, strict=True):
            if referees:
                seat.origin_missed = False
            elif seat.origin_missed:
                seat.origin_gone = True
            else:
                seat.origin_missed = True

    def handle(self, message: dict[str, str], payload: bytes | None = None) -> None:
        """One message from another node, with the wire bytes for a bot it carries (from a sibling's
        link; from the inbox they are in its ``payload`` field, in base64); raises
        ``StoredDataError`` for one of an unknown kind."""
        kind, match_id, bot = RelayKind.parse(message.get("t", "")), message.get("match", ""), message.get("bot", "")
        index = int(message.get("seat", "0"))
        if kind is RelayKind.ADOPT:
            self.send_soon(self._adopt(message))
            return
        if kind is RelayKind.ADOPTED:
            waiting = self.replies.get(message.get("req", ""))
            if waiting is not None and not waiting.done():
                waiting.set_result(message)
            return
        if kind is RelayKind.WATCH:
            self._stream(message)
            return
        if kind is RelayKind.WATCHED:
            self._watched(message)
            return
        if kind is RelayKind.UNWATCH:
            stream = self.streams.get(message.get("watch", ""))
            if stream is not None:
                stream.cancel()
            return
        if kind in FROM_HOME:
            seat = self.origin_seats.get((match_id, bot, index))
            if seat is not None:
                seat.on_home_message(kind, message)
            return
        session = self.hub.session(bot) if kind is RelayKind.START else self.hub.sessions.get(bot)
        if session is None:
            return
        proxy = session.seats.get(match_id, {}).get(index)
        if payload is None:
            payload = base64.b64decode(message.get("payload", ""))
        if kind is RelayKind.START:
            if not isinstance(proxy, ProxySeat):
                grace = float(message["grace"])
                proxy = ProxySeat(session, match_id, index, self.clock, grace, self, message["origin"])
                session.add_seat(proxy)
            proxy.on_start(payload)
        elif isinstance(proxy, ProxySeat):
            proxy.on_origin_message(kind, message, payload)


def _b64(payload: bytes) -> str:
    """Wire bytes for a stream field."""
    return base64.b64encode(payload).decode()


class Home(NamedTuple):
    """Where a bot is connected: a node, and which start of it (a node restarted under its id is
    another instance, which has none of the old one's seats)."""

    node: str
    instance: str


class RelaySeat:
    """The referee's ``SeatClient`` for a bot connected to another node."""

    def __init__(self, relay: Relay, home: Home, bot: str, match_id: str, seat: int, game: str) -> None:
        self.relay = relay
        self.home = home
        self.bot = bot
        self.match_id = match_id
        self.seat = seat
        self.game = game
        self.connected = True
        """As the bot's home node last said."""
        self.located = True
        """The directory had the bot on a live node at the last check."""
        self.gone = False
        self.pending: tuple[int, asyncio.Future[str]] | None = None
        self.request: DecisionRequest | None = None
        self.asked_at = 0.0
        self.away_since: float | None = None
        self.grace = 10.0
        self.start: MatchStart | None = None
        relay.origin_seats[(match_id, bot, seat)] = self

    @property
    def is_connected(self) -> bool:
        """As the bot's home node last said, and on a live node."""
        return self.connected and self.located

    def _post(self, kind: RelayKind, message: Outgoing, **extra: str) -> None:
        fields = {
            "t": kind.value,
            "match": self.match_id,
            "bot": self.bot,
            "seat": str(self.seat),
            "origin": self.relay.node_id,
        }
        self.relay.send(self.home.node, fields | extra, self.relay.encode(message))

    async def match_started(self, start: MatchStart) -> None:
        """Tell the home node to seat the bot."""
        self.grace = start.time_control.disconnect_grace
        self.start = start
        self._post(RelayKind.START, start, grace=str(self.grace))

    def decide(self, request: DecisionRequest) -> asyncio.Future[str]:
        """Send the request through the home node; the future resolves with the bot's answer."""
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        if self.gone:
            future.set_exception(SeatGoneError(f"bot {self.bot} left match {self.match_id}"))
            return future
        self.pending = (request.sequence, future)
        self.request, self.asked_at, self.away_since = request, self.relay.clock.now(), None
        self._post(RelayKind.REQUEST, request, seq=str(request.sequence))
        self.relay.follow(self)
        future.add_done_callback(self._settled)
        return future

    def _settled(self, future: asyncio.Future[str]) -> None:
        if self.pending is None or self.pending[1] is future:
            self.relay.following.discard(self)

    async def check(self) -> None:
        """The request has been pending a while: follow the bot. If it reconnected to another
        node, seat it there and ask again; if it is on no live node past the grace period, it is gone."""
        pending, request = self.pending, self.request
        if pending is None or pending[1].done() or request is None:
            self.relay.following.discard(self)
            return
        future = pending[1]
        try:
            home = await self.relay.locate(self.bot)
        except STORE_ERRORS:
            return
        if future.done():
            return
        now = self.relay.clock.now()
        if home is None:
            self.located = False
            self.away_since = now if self.away_since is None else self.away_since
            if now - self.away_since >= self.grace:
                self.gone = True
                future.set_exception(SeatGoneError(f"bot {self.bot} is on no node of the arena"))
            return
        self.located, self.away_since = True, None
        if home != self.home:
            self._move(home)

    def _move(self, home: Home) -> None:
        """The bot is connected to another node (or another start of its node): seat it there, and
        ask it there what is pending."""
        if home.node == self.home.node:
            log.info("bot %s of match %s: its node %s restarted; seated again", self.bot, self.match_id, home.node)
        else:
            log.info("bot %s of match %s moved from %s to %s", self.bot, self.match_id, self.home.node, home.node)
        self.home, self.connected = home, True
        if self.start is not None:
            self._post(RelayKind.START, self.start, grace=str(self.grace))
        if self.pending is not None and self.request is not None and not self.pending[1].done():
            self._post(RelayKind.REQUEST, self.request, seq=str(self.request.sequence))

    async def rejected(self, rejection: Rejection) -> None:
        """Post the rejection to the inbox of the node the bot is connected to, which sends it on."""
        self._post(RelayKind.PUSH, rejection)

    async def match_ended(self, end: MatchEnd) -> None:
        """Pass the end on and forget the seat."""
        self._post(RelayKind.END, end)
        self.release()

    def release(self) -> None:
        """The match is over here."""
        self.relay.origin_seats.pop((self.match_id, self.bot, self.seat), None)
        self.relay.following.discard(self)

    def on_home_message(self, kind: RelayKind, message: dict[str, str]) -> None:
        """An answer, a presence change or the bot's departure, from a node the bot is or was
        connected to. A node it left says so when its grace period there ends, though it may play
        on from another: only its present home's word counts, and even that is checked against the
        directory first (the bot may have moved before the referee noticed)."""
        if kind is RelayKind.ANSWER:
            if self.pending is not None and str(self.pending[0]) == message.get("seq"):
                future = self.pending[1]
                self.pending = None
                if not future.done():
                    future.set_result(message.get("text", ""))
        elif message.get("node", self.home.node) != self.home.node:
            return  # a node the bot has left
        elif kind is RelayKind.PRESENCE:
            self.connected = message.get("connected") == "1"
        elif kind is RelayKind.GONE:
            self.relay.send_soon(self._gone_unless_moved())

    async def _gone_unless_moved(self) -> None:
        """The bot's home says it is gone: unless the directory has it on another node now, it is."""
        try:
            home = await self.relay.locate(self.bot)
        except STORE_ERRORS:
            home = None  # its home's word, then
        if home is not None and home != self.home:
            self._move(home)
            return
        self.gone = True
        if self.pending is not None and not self.pending[1].done():
            self.pending[1].set_exception(SeatGoneError(f"bot {self.bot} is gone from match {self.match_id}"))


class ProxySeat(RemoteSeat):
    """A seat in a bot's session for a match refereed on another node."""

    def __init__(
        self,
        session: BotSession,
        match_id: str,
        seat: int,
        clock: Clock,
        grace_seconds: float,
        relay: Relay,
        origin: str,
    ) -> None:
        super().__init__(session, match_id, seat, clock, grace_seconds)
        self.relay = relay
        self.origin = origin
        self.start_payload = b""
        self.request_payload = b""
        self.request_sequence = 0
        self.heard = clock.now()
        self.origin_missed = False
        """The origin's node had no heartbeat at the last check."""
        self.origin_gone = False
        """The origin's node had none at two checks in a row: it died, and the match runs elsewhere."""

    def _fields(self, kind: RelayKind) -> dict[str, str]:
        """The fields that say which seat a message to the origin is about."""
        return {
            "t": kind.value,
            "match": self.match_id,
            "bot": self.session.name,
            "seat": str(self.seat),
            "node": self.relay.node_id,
        }

    def is_stale(self) -> bool:
        """The origin died (its node's heartbeat is gone, or it said nothing for a long while), and
        its match runs elsewhere."""
        return self.origin_gone or self.clock.now() - self.heard > STALE_SECONDS

    def _deliver(self, payload: bytes) -> None:
        self.session.send(Relayed(payload))

    def on_start(self, payload: bytes) -> None:
        """The origin seated the bot (again, if it came back here after its grace period here ended).
        A bot that left as its match started is given its grace period, as one that leaves mid-match."""
        self.heard = self.clock.now()
        self.start_payload = payload
        self.gone = False
        if self.session.connection is None:
            self.connection_lost()
        self._deliver(payload)

    def on_origin_message(self, kind: RelayKind, message: dict[str, str], payload: bytes) -> None:
        """A request, a rejection or the end (with its wire bytes), from the origin."""
        self.heard = self.clock.now()
        if kind is RelayKind.REQUEST:
            self.request_sequence = int(message.get("seq", "0"))
            self.request_payload = payload
            self._deliver(payload)
        elif kind is RelayKind.PUSH:
            self._deliver(payload)
        elif kind is RelayKind.END:
            self.session.send_end(Relayed(payload))
            self.release()

    def answer(self, sequence: int, action: str) -> str | None:
        """The bot answered: forward it to the origin."""
        if sequence != self.request_sequence or not self.request_payload:
            return f"stale sequence {sequence} in match {self.match_id}: the current request is {self.request_sequence}"
        self.request_payload = b""
        self.relay.send(
            self.origin,
            self._fields(RelayKind.ANSWER) | {"seq": str(sequence), "text": action},
        )
        return None

    def connection_lost(self) -> None:
        """Tell the origin, and start the grace period."""
        self.relay.send(self.origin, self._fields(RelayKind.PRESENCE) | {"connected": "0"})
        super().connection_lost()

    def _resend(self) -> None:
        """A new connection: tell the origin, and resend the start and the pending request."""
        self.relay.send(self.origin, self._fields(RelayKind.PRESENCE) | {"connected": "1"})
        if self.start_payload:
            self._deliver(self.start_payload)
        if self.request_payload:
            self._deliver(self.request_payload)

    async def _expire(self) -> None:
        await self.clock.sleep(self.grace_seconds)
        if self.session.connection is not None:
            return
        self.gone = True
        self.relay.send(self.origin, self._fields(RelayKind.GONE))
