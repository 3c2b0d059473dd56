"""Ad-hoc matches on one node: start them between connected bots, keep their records, let people watch."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import itertools
import logging
import re
import secrets
import uuid
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any, Protocol

from arena.errors import (
    ArenaError,
    BotAbsentError,
    BotBusyError,
    BotUnavailableError,
    GameSetupError,
    LimitExceededError,
    MatchElsewhereError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchSealedError,
    NodeStoppingError,
    echo,
)
from arena.games.lookup import get_game
from arena.referee.clock import Clock
from arena.referee.match import EventKind, EventMaker, Match, MatchEvent, MatchMetrics, MatchSetup
from arena.referee.record import MatchRecord, final_state
from arena.referee.timecontrol import TimeControl
from arena.service.relay import SPECTATOR_BEHIND, Home, Relay, RelaySeat
from arena.service.sessions import RemoteSeat, SessionHub
from arena.store.chain import ScriptCall
from arena.store.match_index import MatchQuery, MatchSummary, Phase, Position
from arena.store.redis_stores import STORE_ERRORS
from arena.store.running import RunningIndex
from arena.store.slots import SlotBroker, Slots, verdict

log = logging.getLogger(__name__)

START_ELSEWHERE_SECONDS = 10.0
"""How long a start passed on to the bots' node may take to be answered."""
CHORE_SECONDS = 2.0
"""How long a node stopping waits for its matches' last store writes."""
STORING_WAIT_SECONDS = 5.0
"""How long a request for a just-ended match's record waits for it to be stored."""
FREE_WAIT_SECONDS = 1.0
"""How long a match's end waits for its store writes (its slots freed first) before its seats are told."""
WATCH_QUEUE_LIMIT = 1024
"""Events buffered per spectator; a spectator this far behind is dropped (``SPECTATOR_BEHIND``)."""


_REMOTE_ERRORS: dict[str, type[ArenaError]] = {
    "BotUnavailableError": BotUnavailableError,
    "BotAbsentError": BotUnavailableError,  # it names the bot in its text already
    "BotBusyError": BotUnavailableError,
    "GameSetupError": GameSetupError,
}
"""The errors another node may answer a passed-on start with, by class name."""


DEAL_HOLDER = "~deal:"
"""The slot holder a deal's matches share under ``start(one_at_a_time=...)`` (no bot name starts so)."""

MATCH_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""What a match id looks like (a uuid hex, or a league's ``L1234abcd.00042``)."""


class RecordStore(Protocol):
    """Where finished match records are kept."""

    async def save(self, record: MatchRecord) -> None:
        """Store a finished record."""
        ...

    async def get(self, match_id: str) -> MatchRecord | None:
        """A stored record."""
        ...

    async def page(self, query: MatchQuery, after: Position | None, limit: int) -> list[MatchSummary]:
        """Up to ``limit`` summaries of finished matches fitting ``query``, newest ended first,
        strictly after ``after`` in that order; read from an index, never a scan of the store."""
        ...

    async def hold(self, seal: str, record: MatchRecord) -> None:
        """Keep a finished record unlisted and unreadable until ``release(seal)``."""
        ...

    async def held(self, match_id: str) -> MatchRecord | None:
        """The record if it is held under a seal (None if it is not held)."""
        ...

    async def release(self, seal: str) -> None:
        """Store every record held under ``seal`` as any other (idempotent)."""
        ...

    def saving(self, record: MatchRecord) -> ScriptCall:
        """``save``'s write, to run with others (``together``)."""
        ...

    def holding(self, seal: str, record: MatchRecord) -> ScriptCall:
        """``hold``'s write, to run with others (``together``)."""
        ...

    async def together(self, calls: Sequence[ScriptCall]) -> tuple[int, Any]:
        """Run writes of any of the node's stores in order, in one call: the index of the first
        that refused and its refusal, else ``(len(calls), None)``."""
        ...


@dataclasses.dataclass(slots=True)
class RunningMatch:
    """A match in progress on this node."""

    setup: MatchSetup
    task: asyncio.Task[MatchRecord]
    seats: list[RemoteSeat | RelaySeat]
    match: Match
    seal: str | None = None
    """Set for a rotation of a duplicate deal: it is listed nowhere, and its events and record are
    withheld, until ``unseal``."""
    deal: str | None = None
    """Set for a match started ``one_at_a_time``: the deal whose one slot it holds beside its players'."""
    last_event: EventMaker | None = None
    """What makes the latest event, a new spectator's first (made only once someone watches)."""
    watchers: list[asyncio.Queue[MatchEvent | LimitExceededError | None]] = dataclasses.field(default_factory=list)
    end_call: asyncio.Task[None] | None = None
    """Its end's store writes in one call (its slots freed, its record kept, its listing gone),
    started as it ended, before its seats were told."""

    @property
    def holders(self) -> list[str]:
        """Who holds a match slot for it."""
        return _holders(self.setup.players, self.deal)


def _holders(players: Sequence[str], deal: str | None) -> list[str]:
    """A match's slot holders: its players, and its deal when it plays ``one_at_a_time``."""
    return [*players, DEAL_HOLDER + deal] if deal is not None else list(players)


def _deal_busy(bots: Sequence[str]) -> BotBusyError:
    return BotBusyError(bots[0], "another match of its deal is being played")


class MatchManager:
    """Starts and tracks matches between bots connected to this node."""

    def __init__(self, hub: SessionHub, clock: Clock, store: RecordStore, metrics: MatchMetrics | None = None) -> None:
        self.hub = hub
        self.clock = clock
        self.metrics = metrics
        self.relay: Relay | None = None
        """Set on a node that shares Redis with others: lets matches seat bots connected elsewhere."""
        self.store = store
        self.slots: SlotBroker | None = None
        """Set on a node with Redis: a bot's matches at once are counted over every node."""
        self.listing: RunningIndex | None = None
        """Set on a node with Redis: every node's running matches, listed for every node."""
        self.runs: Callable[[str], Awaitable[str | None]] | None = None
        """Set on a node with Redis: the run that counted for a league's or ladder's match, by the
        match's scheduled id (``LeagueStore.run_of``), so that its record is found by either."""
        self.running: dict[str, RunningMatch] = {}
        self._chores: set[asyncio.Task[None]] = set()
        self._seals: dict[str, list[int]] = {}
        """Seals that release themselves: seal -> [matches it holds, matches ended so far]."""
        self._one_at_a_time: set[str] = set()
        """The deals a match of which is being played here with ``start(one_at_a_time=...)``."""
        self._ended = asyncio.Event()
        """Set (then replaced) each time a match of this node ends: a slot may have freed."""
        self.closing = False
        """Set when the node shuts down: it starts no more matches."""
        self._starting = 0
        """Starts under way (past the ``closing`` check, not yet running): the shutdown waits for them."""
        self._no_starts = asyncio.Event()
        self._no_starts.set()
        self._storing: dict[str, asyncio.Event] = {}
        """Matches that have ended whose record is being stored, each with the event set once it is: a
        client asking for the record meanwhile waits for it, rather than being told there is no such
        match or that it still runs (its bots may already have been told it ended)."""
        self._finishing: dict[str, RunningMatch] = {}
        """Matches that ended here and whose record is being stored: still listed as running."""

    async def start_when_free(self, game_name: str, bots: Sequence[str], wait_seconds: float, **kwargs: Any) -> str:
        """``start``, waiting up to ``wait_seconds`` for a busy bot's free slot (a match of this
        node ending, or every half second for slots held through other nodes); then the
        ``BotBusyError`` of the last try."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_seconds
        while True:
            ended = self._ended
            try:
                return await self.start(game_name, bots, **kwargs)
            except BotBusyError:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ended.wait(), min(remaining, 0.5))

    async def start(
        self,
        game_name: str,
        bots: Sequence[str],
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
        time_control: TimeControl | None = None,
        match_id: str | None = None,
        deck: Sequence[str] | None = None,
        seal: str | None = None,
        seal_size: int = 0,
        anywhere: bool = False,
        one_at_a_time: str | None = None,
        leased: Callable[[], bool] | None = None,
    ) -> str:
        """Start a match between connected bots (seat order as given); returns its id.

        With ``anywhere``, a match whose bots are all connected to one other node of the arena is
        started there (as a worker of ``arena serve --workers`` does for bots that landed on a
        sibling), so that no seat of it is relayed; its id is still returned here.

        A ``seal`` (a duplicate deal's rotations share one) withholds the match from every list, its
        events and its record from everyone until ``unseal(seal)``: the other rotations play the
        same cards.
        With a ``seal_size``, the seal releases itself once that many matches under it have ended.
        ``one_at_a_time`` names a deal whose matches must not overlap (a league's or ladder's duplicate
        rotations: a bot in two at once would hold, in one, the cards its opponent holds in the
        other): while one plays, anywhere in the arena, another is refused as ``BotBusyError``.
        ``leased`` says whether this node still holds the lease of a queued match (``Match.leased``):
        once it does not, the match ends ABORTED before its next turn.

        A bot connected to another node of the arena plays through that node (``relay``); this node
        checks its own bots' free slots, and trusts the others' nodes to keep theirs.

        Raises ``GameSetupError`` for a player count the game does not take, a running match's id or options the
        game refuses; ``BotUnavailableError`` for a bot not registered for the game, ``BotAbsentError`` for one
        connected nowhere, ``BotBusyError`` for one with no free slot.
        """
        if self.closing:
            raise NodeStoppingError("this node is shutting down and starts no more matches: start it on another node")
        with self._counted_start():
            game = get_game(game_name)
            if len(bots) not in game.player_counts:
                counts = game.player_counts
                raise GameSetupError(f"{game_name} is for {counts.start} to {counts.stop - 1} players, not {len(bots)}")
            elsewhere: dict[str, Home] = {}
            for name in set(bots):
                session = self.hub.sessions.get(name)
                wanted = bots.count(name)
                if session is None or session.connection is None:
                    home = await self.relay.locate(name) if self.relay is not None else None
                    if home is None or (self.relay is not None and home.node == self.relay.node_id):
                        raise BotAbsentError(name)
                    elsewhere[name] = home
                    continue
                if game_name not in session.games:
                    raise BotUnavailableError(f"bot {name!r} does not play {game_name}")
                if session.free_slots < wanted:
                    raise BotBusyError(name, f"it plays {session.capacity} at once")
            homes = set(elsewhere.values())
            if (
                anywhere
                and seal is None
                and self.relay is not None
                and len(elsewhere) == len(set(bots))
                and len(homes) == 1
            ):
                spec = {
                    "game": game_name,
                    "bots": list(bots),
                    "seed": seed,
                    "options": dict(options or {}),
                    "time_control": time_control.to_dict() if time_control is not None else None,
                    "match_id": match_id,
                    "deck": list(deck) if deck is not None else None,
                }
                return await self._start_at(homes.pop().node, spec)
            match_id = match_id or uuid.uuid4().hex
            if match_id in self.running:
                raise GameSetupError(f"match {match_id} is already running")
            tc = time_control or TimeControl()
            seed = secrets.randbits(63) if seed is None else seed
            # Validate the set-up before any seat is taken.
            game.initial_state(len(bots), seed, options or {}, deck)
            holders = _holders(bots, one_at_a_time)  # the deal's: a slot of capacity 1 its matches share
            if one_at_a_time is not None:
                if one_at_a_time in self._one_at_a_time:
                    raise _deal_busy(bots)
                self._one_at_a_time.add(one_at_a_time)
            try:
                writes: list[ScriptCall] = []  # the slots taken and the match listed, or neither: one call
                claimed = Counter(holders)
                if self.slots is not None:
                    local = {
                        n: s.capacity for n in set(bots) if (s := self.hub.sessions.get(n)) and s.connection is not None
                    }
                    if one_at_a_time is not None:
                        local[DEAL_HOLDER + one_at_a_time] = 1
                    writes.append(self.slots.claim(match_id, claimed, local))
                if self.listing is not None:  # listed before the match runs, so that its end is unlisted after this
                    listed = MatchSummary(
                        match_id,
                        game_name,
                        list(bots),
                        dict(options or {}),
                        tc,
                        None,
                        self.clock.wall(),
                        0.0,
                        Phase.RUNNING,
                    )
                    writes.append(self.listing.listing(listed, sealed=seal is not None))
                if writes:
                    try:
                        step, refusal = await self.store.together(writes)
                    except Exception:
                        if self.slots is not None:  # the call may have been run
                            self._chore(self.slots.release(match_id, holders))
                        raise
                    if step < len(writes):  # the claim refused: nothing was written
                        found, bot = verdict(refusal, claimed)
                        if found is Slots.ABSENT:
                            raise BotAbsentError(bot)
                        if bot.startswith(DEAL_HOLDER):
                            raise _deal_busy(bots)
                        raise BotBusyError(bot, "it plays as many as it asked for")
                seats: list[RemoteSeat | RelaySeat] = []
                for index, name in enumerate(bots):
                    if name in elsewhere and self.relay is not None:
                        seats.append(RelaySeat(self.relay, elsewhere[name], name, match_id, index, game_name))
                    else:
                        seats.append(self.hub.seat_for(name, match_id, index, tc.disconnect_grace))
                setup = MatchSetup(match_id, game_name, list(bots), seats, seed, dict(options or {}), deck, tc)
                match = Match(
                    setup,
                    self.clock,
                    lambda event: self._publish(match_id, event),
                    self.metrics,
                    leased,
                    functools.partial(self._end, match_id),
                )
                if seal is not None and seal_size > 0:
                    self._seals.setdefault(seal, [seal_size, 0])
                task = asyncio.get_running_loop().create_task(self._run(match, seal), name=f"match-{match_id}")
                self.running[match_id] = RunningMatch(setup, task, seats, match, seal, deal=one_at_a_time)
            except BaseException:
                if one_at_a_time is not None:
                    self._one_at_a_time.discard(one_at_a_time)
                raise
            return match_id

    async def _start_at(self, node: str, spec: dict[str, Any]) -> str:
        assert self.relay is not None
        try:
            answer = await self.relay.start_at(node, spec, START_ELSEWHERE_SECONDS)
        except TimeoutError:
            raise BotUnavailableError(
                f"node {node[:80]!r}, where the bots are, did not start the match within {START_ELSEWHERE_SECONDS:g} s"
            ) from None
        if "match" in answer:
            return answer["match"]
        if answer.get("error") == NodeStoppingError.__name__:  # its text speaks of itself ("this node")
            raise NodeStoppingError(
                f"node {node[:80]!r}, where the bots are, is shutting down: "
                "start the match again once they have reconnected"
            )
        error = _REMOTE_ERRORS.get(answer.get("error", ""), BotUnavailableError)
        raise error(answer.get("text", "the bots' node did not start the match"))

    async def adopt(self, spec: dict[str, Any]) -> str:
        """Start a match that another node passed on (``start(..., anywhere=True)`` there)."""
        tc = spec.get("time_control")
        return await self.start(
            spec["game"],
            list(spec["bots"]),
            seed=spec.get("seed"),
            options=spec.get("options") or {},
            time_control=TimeControl.from_dict(tc) if tc else None,
            match_id=spec.get("match_id"),
            deck=spec.get("deck"),
        )

    async def _run(self, match: Match, seal: str | None) -> MatchRecord:
        setup = match.setup
        written = False
        try:
            record, written = await self._run_and_keep(match, seal)
            return record
        finally:  # listed until its record is stored: a list made in between has it in one phase
            self._finishing.pop(setup.match_id, None)
            if self.listing is not None and not written:
                self._chore(self.listing.ended(MatchSummary.of_record(match.record)))

    async def _run_and_keep(self, match: Match, seal: str | None) -> tuple[MatchRecord, bool]:
        """Run the match and keep its record; whether its end's writes (``_end``) all landed."""
        setup = match.setup
        finished = False
        end_call: asyncio.Task[None] | None = None
        try:
            record = await match.run()
            finished = True
        except asyncio.CancelledError:
            log.info("match %s aborted", setup.match_id)
            await self._keep(match.record, seal)
            raise
        finally:
            running = self.running.pop(setup.match_id, None)
            if running is not None:
                end_call = running.end_call
            if finished:  # until its record is stored, a client asking for it waits (``record``)
                self._storing[setup.match_id] = asyncio.Event()
                if running is not None:
                    self._finishing[setup.match_id] = running
            if running is None:
                self._let_go(setup.match_id, setup.players, None)
            elif end_call is None:
                self._let_go(setup.match_id, running.holders, running.deal)
            self._ended.set()
            self._ended = asyncio.Event()
            if running is not None:
                for seat in running.seats:
                    seat.release()
                for watcher in running.watchers:
                    watcher.put_nowait(None)
        written = False
        try:
            written = end_call is not None and await _landed(end_call)
            if end_call is not None and not written and running is not None:  # each part again, on its own
                self._let_go(setup.match_id, running.holders, None)
            await self._keep(record, seal, stored=written)
        finally:
            stored = self._storing.pop(setup.match_id, None)
            if stored is not None:
                stored.set()
        return record, written

    async def _end(self, match_id: str) -> None:
        """The match is over: before its seats are told, free its slots, keep its record and unlist
        it, in one call to the store (in that order), so that a bot told the end can be started in
        another match at once (a client that starts the next match the moment it hears the end used
        to find the slots still held). A store slower than ``FREE_WAIT_SECONDS`` delays the end no
        longer: the call goes on in the background; if it fails, each part is done again on its own
        (``_run_and_keep``)."""
        running = self.running.get(match_id)
        if running is None:
            return
        if running.deal is not None:
            self._one_at_a_time.discard(running.deal)
        record = running.match.record
        writes: list[ScriptCall] = []
        if self.slots is not None:
            writes.append(self.slots.freeing(match_id, running.holders))
        writes.append(self.store.saving(record) if running.seal is None else self.store.holding(running.seal, record))
        if self.listing is not None:
            writes.append(self.listing.unlisting(MatchSummary.of_record(record)))
        running.end_call = task = self._chore(self._write(writes))
        with contextlib.suppress(Exception):  # a failed call is logged by its chore
            await asyncio.wait_for(asyncio.shield(task), FREE_WAIT_SECONDS)

    async def _write(self, writes: list[ScriptCall]) -> None:
        await self.store.together(writes)

    def _let_go(self, match_id: str, holders: Sequence[str], deal: str | None) -> asyncio.Task[None] | None:
        """Free an ended match's deal and, in the background, its slots (the task, if any)."""
        if deal is not None:
            self._one_at_a_time.discard(deal)
        return self._chore(self.slots.release(match_id, holders)) if self.slots is not None else None

    @contextlib.contextmanager
    def _counted_start(self) -> Iterator[None]:
        """A start under way, which a shutdown waits for (``_starting``)."""
        self._starting += 1
        self._no_starts.clear()
        try:
            yield
        finally:
            self._starting -= 1
            if not self._starting:
                self._no_starts.set()

    async def _stored_or_held(self, match_id: str) -> tuple[MatchRecord | None, bool]:
        """A finished match's record, stored or held under a seal (then True). One in neither is
        looked for again among the stored: its deal's release (its last rotation ending) may have
        moved it from held to stored in between."""
        record = await self.store.get(match_id)
        if record is not None:
            return record, False
        held = await self.store.held(match_id)
        if held is not None:
            return held, True
        return await self.store.get(match_id), False

    async def _until_stored(self, match_id: str) -> None:
        """Wait (a bounded while) for the record of a match that has just ended to be stored."""
        stored = self._storing.get(match_id)
        if stored is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stored.wait(), STORING_WAIT_SECONDS)

    async def _keep(self, record: MatchRecord, seal: str | None, stored: bool = False) -> None:
        """Store the record (unless ``stored`` already), then count it against its seal."""
        backoff = 0.1
        while not stored:  # a finished match's record is never dropped: retried through a Redis restart
            try:
                await (self.store.save(record) if seal is None else self.store.hold(seal, record))
                break
            except STORE_ERRORS as error:
                log.warning("could not store the record of match %s (%s); retrying", record.match_id, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
        counts = self._seals.get(seal) if seal is not None else None
        if seal is not None and counts is not None:
            counts[1] += 1
            if counts[1] >= counts[0]:
                del self._seals[seal]
                await self.unseal(seal)

    def _chore(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run a store write in the background (it must not hold up, or be cancelled with, a match)."""
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chore_done)
        return task

    def _chore_done(self, task: asyncio.Task[None]) -> None:
        self._chores.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a match store write failed: %s", task.exception())

    async def refresh_slots(self) -> None:
        """Keep the slots of this node's running matches held (call more often than their hold lapses)."""
        if self.slots is not None:
            await self.slots.refresh({mid: m.holders for mid, m in self.running.items()})

    async def unseal(self, seal: str) -> None:
        """Every rotation of the deal has ended: release the records held under its seal."""
        await self.store.release(seal)

    def _publish(self, match_id: str, make: EventMaker) -> None:
        running = self.running.get(match_id)
        if running is None:
            return
        running.last_event = make
        if not running.watchers:
            return
        event = make()
        for watcher in list(running.watchers):
            if watcher.qsize() < WATCH_QUEUE_LIMIT:
                watcher.put_nowait(event)
            else:  # dropped, and told so once it has read what it was sent
                running.watchers.remove(watcher)
                watcher.put_nowait(LimitExceededError(SPECTATOR_BEHIND))

    async def running_list(
        self, query: MatchQuery, after: Position | None, limit: int
    ) -> tuple[list[MatchSummary], Position | None]:
        """Up to ``limit`` unsealed running matches fitting ``query``, newest started first, after
        ``after``: every node's with Redis (``RunningIndex.page``: the position to go on from, when
        its scan bound cut the list short), else this node's (no position)."""
        if self.listing is not None:
            return await self.listing.page(query, after, limit)
        return self.running_page(query, after, limit), None

    def running_page(self, query: MatchQuery, after: Position | None, limit: int) -> list[MatchSummary]:
        """Up to ``limit`` of this node's unsealed running matches fitting ``query``, newest started
        first, after ``after`` (bounded by its bots' capacity)."""
        running = [
            info
            for m in itertools.chain(self.running.values(), self._finishing.values())
            if m.seal is None and query.fits(info := MatchSummary.of_record(m.match.record, running=True))
        ]
        running.sort(key=lambda info: info.position, reverse=True)
        return [i for i in running if after is None or i.position < after][:limit]

    async def summary(self, match_id: str) -> MatchSummary:
        """The summary of a match running on any node or finished, with the errors of ``watch``."""
        running = self.running.get(match_id)
        if running is None:
            try:
                return MatchSummary.of_record(await self.record(match_id))
            except MatchElsewhereError:
                entry = await self.listing.find(match_id) if self.listing is not None else None
                if entry is not None:
                    return entry.info
                return MatchSummary.of_record(await self.record(match_id))  # it ended meanwhile
        if running.seal is not None:
            raise _sealed(match_id)
        return MatchSummary.of_record(running.match.record, running=True)

    async def wait(self, match_id: str) -> MatchRecord:
        """Wait for a match to end and return its record, sealed or not (for the arena's own use:
        the league worker that started it). Raises ``MatchNotFoundError`` for an unknown match."""
        running = self.running.get(match_id)
        if running is not None:
            return await asyncio.shield(running.task)
        await self._until_stored(match_id)
        record, _ = await self._stored_or_held(match_id)
        if record is None:
            raise MatchNotFoundError(f"no match {echo(match_id)}")
        return record

    async def record(self, match_id: str) -> MatchRecord:
        """The full record of a finished match. Raises ``MatchSealedError`` for a sealed one, running
        (on any node) or held, naming no node; ``MatchNotFinishedError`` for another running one
        (``MatchElsewhereError`` if it runs on another node);
        else ``MatchNotFoundError`` naming ``match_id`` as it was asked for (a scheduled id too,
        whose run has no record)."""
        running = self.running.get(match_id)
        if running is not None and running.seal is not None:
            raise _sealed(match_id)
        if running is None:
            await self._until_stored(match_id)
        if match_id in self.running or match_id in self._storing:
            raise MatchNotFinishedError(f"match {match_id} is still running; its record is released at the end")
        record, sealed = await self._stored_or_held(match_id)
        if sealed:
            raise _sealed(match_id)
        if record is None:
            entry = await self.listing.find(match_id) if self.listing is not None else None
            if entry is not None and self.listing is not None and entry.node != self.listing.node_id:
                if entry.sealed:
                    raise _sealed(match_id)
                where = f"on node {entry.node[:80]!r} (at {entry.address[:80]})"
                text = f"match {match_id} is still running {where}; its record is released at the end"
                raise MatchElsewhereError(text, entry.node, entry.address)
            run = await self.runs(match_id) if self.runs is not None else None
            if run is not None:  # a league's or ladder's match, asked for by its scheduled id
                try:
                    return await self.record(run)
                except MatchSealedError:
                    raise _sealed(match_id) from None  # a sealed run's id is listed nowhere: not named
                except MatchNotFoundError:
                    # Named by the id the client sent; the run's id leaks nothing (ListMatches lists it).
                    raise MatchNotFoundError(
                        f"no match {echo(match_id)}: the record of its run {echo(run)} is not stored"
                    ) from None
            raise MatchNotFoundError(f"no match {echo(match_id)}")
        return record

    async def watch(self, match_id: str, relayed: bool = True) -> AsyncGenerator[MatchEvent, None]:
        """Public events of a match: the latest state first, then every step until the end; of a
        match running on another node, that node's (``relayed``: the relay asks it for them)."""
        running = self.running.get(match_id)
        if running is None:
            try:
                record = await self.record(match_id)
            except MatchElsewhereError as elsewhere:
                if not relayed or self.relay is None:
                    raise
                async for news in self.relay.watch(elsewhere.node, match_id):
                    yield news
                return
            yield _final_event(record)
            return
        if running.seal is not None:
            raise _sealed(match_id)
        queue: asyncio.Queue[MatchEvent | LimitExceededError | None] = asyncio.Queue()
        if running.last_event is not None:
            queue.put_nowait(running.last_event())
        running.watchers.append(queue)
        try:
            while (event := await queue.get()) is not None:
                if isinstance(event, LimitExceededError):
                    raise event
                yield event
                if event.kind is EventKind.ENDED:
                    return
        finally:
            if queue in running.watchers:
                running.watchers.remove(queue)

    async def shutdown(self, grace_seconds: float) -> None:
        """Let running matches finish for up to ``grace_seconds``, then abort the rest (recorded);
        then give their store writes (slots freed, matches unlisted) up to ``CHORE_SECONDS``. From
        the first call on, ``start`` refuses (``NodeStoppingError``)."""
        self.closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_seconds
        with contextlib.suppress(TimeoutError):  # a start that passed the check runs first
            await asyncio.wait_for(self._no_starts.wait(), grace_seconds)
        tasks = [m.task for m in self.running.values()]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - loop.time()))
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._chores:
            await asyncio.wait(list(self._chores), timeout=CHORE_SECONDS)


async def _landed(write: asyncio.Task[None]) -> bool:
    """Whether a write in the background succeeded, once it is done."""
    try:
        await asyncio.shield(write)
    except Exception:  # logged by its chore
        return False
    return True


def _sealed(match_id: str) -> MatchSealedError:
    return MatchSealedError(
        f"match {match_id[:80]!r} plays a duplicate deal whose other rotations are not all over: "
        "nothing of it is released until they are"
    )


def _final_event(record: MatchRecord) -> MatchEvent:
    view = get_game(record.game).public_view(final_state(record))
    return MatchEvent(record.match_id, EventKind.ENDED, len(record.turns), view, record.game, {}, record.outcome)
