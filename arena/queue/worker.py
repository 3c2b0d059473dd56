"""A referee worker: claims queued league matches, plays them on this node, stores each result once.

The loop, per node: take back what this worker name still holds from before a restart; reclaim
entries whose worker died (idle past the lease); read new entries as room allows; start each match
whose bots have free slots (counted over every node); keep the lease of everything it holds fresh.

- A lease is trusted for ``LEASE_TRUSTED`` of its length after the last renewal seen to succeed:
  a worker cut off from Redis, or a node that stalled, longer than that stops its matches before
  their next turn (ABORTED, to be run again), before another node may take them over; and a
  renewal that finds an entry taken over meanwhile gives it up. No two runs of a match overlap by
  more than a turn, so no duplicate deal is released while a stale run of it still plays.

- A match one of whose bots is connected to no node is *parked* for that bot: off the queue until
  the bot connects, so absent bots cost nothing and hold no place in the queue. A ladder's match
  is dropped instead (and so is one with a retired bot): its matchmaker schedules whoever is
  connected.
- A match whose bots are busy waits, and is tried again as soon as any node frees a slot or a bot
  connects (the queue's generation count moves), or every ``retry_seconds`` in any case.
- When a match ends, its result is stored and its entry acknowledged in one step (once per match
  id, even if the match ran twice). An aborted match is not acknowledged: it runs again.
- Every ``reconcile_seconds`` (a minute) one node (a lock in Redis) queues again whatever open match
  is nowhere — lost, say, when the store's host crashed before writing its last second to disk.
- An entry of a cancelled league is acknowledged and dropped unplayed: when first looked at, and
  (for one still waiting for its bots) at the next lease refresh.
- A match that cannot be played as stored (its league's spec does not read, or the game refuses
  it) ends with one ``ABORTED`` result whose ``error`` says why, and is logged: it counts as
  aborted in the table, and the worker goes on; so does a scheduled match that does not read (its
  result names the bots it could read, if any).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import math
import secrets
from typing import Any

from redis.exceptions import RedisError

from arena.errors import BotAbsentError, BotUnavailableError, GameSetupError, StoredDataError, UnknownGameError
from arena.games.base import Outcome, Termination
from arena.league.result import StoredResult
from arena.league.schedule import SEED_BITS, MatchSpec, deal_seed
from arena.metrics import ArenaMetrics
from arena.referee.record import Fault, MatchRecord
from arena.service.matches import MatchManager
from arena.store.leagues import LeagueStore
from arena.store.match_queue import Entry, MatchQueue
from arena.store.specs import PlaySpec, SpecKind

log = logging.getLogger(__name__)

IDLE_SECONDS = 1.0
"""How long an idle worker waits for new work in one read."""

LEASE_TRUSTED = 0.9
"""The part of a lease a worker counts on after its last renewal seen to succeed (timed from before
the command): another node takes the entry over only once the whole lease has passed."""


@dataclasses.dataclass
class _Held:
    entry_id: str
    league_id: str
    match_id: str
    spec: MatchSpec | None = None
    """The scheduled match and its league's spec, read once when the entry is first looked at."""
    league: PlaySpec = dataclasses.field(default_factory=PlaySpec)
    secret: bytes = b""
    """The league's deal secret (duplicate deals are dealt from it)."""
    task: asyncio.Task[None] | None = None
    renewed: float = -math.inf
    """When its lease was last renewed, on the loop's clock (taken before the command)."""
    lost: bool = False
    """Another worker took it over (a renewal found it no longer this worker's)."""

    @property
    def duplicate(self) -> bool:
        """Whether the match is a rotation of a duplicate deal."""
        return self.league.duplicate

    @property
    def ladder(self) -> bool:
        """Whether the match is a ladder's (dropped, never parked, when a bot is absent)."""
        return self.league.kind is SpecKind.LADDER

    @property
    def deal_size(self) -> int:
        """How many matches play the match's deal."""
        return self.league.deal_size


def _stand_in(held: _Held, scheduled: Any) -> MatchSpec:
    """A match spec for a stored match that does not read, to end it with one aborted result: its
    id, and its bots if they read (a result without them counts for no bot)."""
    raw = scheduled.get("bots") if isinstance(scheduled, dict) else None
    bots = tuple(raw) if isinstance(raw, list) and all(isinstance(b, str) for b in raw) else ()
    return MatchSpec(held.match_id, held.league_id, 0, "", bots, 0, held.match_id)


class RefereeWorker:
    """Drains the match queue on one node."""

    def __init__(
        self,
        queue: MatchQueue,
        leagues: LeagueStore,
        matches: MatchManager,
        consumer: str,
        *,
        default_game: str,
        lease_seconds: float = 30.0,
        max_held: int = 256,
        poll_seconds: float = 0.1,
        retry_seconds: float = 2.0,
        reconcile_seconds: float = 60.0,
        metrics: ArenaMetrics | None = None,
    ) -> None:
        self.queue = queue
        self.leagues = leagues
        self.matches = matches
        self.consumer = consumer
        self.default_game = default_game
        """The game of a league whose spec names none (stored before leagues named their game)."""
        self.lease_seconds = lease_seconds
        self.max_held = max_held
        self.poll_seconds = poll_seconds
        self.retry_seconds = retry_seconds
        self.reconcile_seconds = reconcile_seconds
        self.metrics = metrics
        self.held: dict[str, _Held] = {}
        self._last_touch = self._last_reclaim = self._last_retry = self._last_reconcile = 0.0
        self._generation = -1
        self._ended = asyncio.Event()
        """Set when a match of this node ends (its bots may be free for a waiting match)."""
        self.results_stored = 0
        self.reclaimed = 0
        self.requeued = 0
        self.parked = 0
        self._stop: asyncio.Event | None = None

    async def run(self, stop: asyncio.Event, halt: asyncio.Event | None = None) -> None:
        """Work until ``stop`` is set; then, until ``halt`` is set (if given) or they end, keep the
        leases of the matches still playing here (see ``_keep_leases``). Matches still running when
        it returns are left to be aborted by the node.

        Redis going away (a restart) pauses the work: each step is retried with a backoff, and
        nothing held is dropped meanwhile.
        """
        started = False
        self._stop = stop
        self._last_touch = self._last_reclaim = self._last_retry = self._last_reconcile = 0.0
        backoff = 0.1
        while not stop.is_set():
            try:
                if not started:
                    await self.queue.ensure_group()
                    at = asyncio.get_running_loop().time()
                    self._take(await self.queue.read_own_pending(self.consumer), at)  # a read renews
                    started = True
                await self._iteration()
                backoff = 0.1
                wait = self.poll_seconds if self._waiting() else 0.0
            except (RedisError, OSError) as error:
                log.warning("redis unavailable (%s); retrying in %.1f s", error, backoff)
                wait, backoff = backoff, min(backoff * 2, 5.0)
            if wait:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), wait)
        await self._hand_back([held for held in self.held.values() if held.task is None])
        if halt is not None:
            await self._keep_leases(halt)

    def _handing_back(self, held: _Held) -> bool:
        """Whether a match of ``held`` that ended unplayed goes back on the queue now: the worker is
        stopping, the entry is still its own, and the task playing it is not itself being cancelled."""
        task = asyncio.current_task()
        stopping = self._stop is not None and self._stop.is_set()
        return stopping and not held.lost and (task is None or not task.cancelling())

    async def _hand_back(self, matches: list[_Held]) -> None:
        """Put held matches this node will not play (not started, or aborted by its shutdown) back on
        the queue for the other nodes, or this node's next start under whatever id, rather than leave
        them to wait out their lease. One another node has taken over is left to it."""
        if not matches:
            return
        try:
            back = await self.leagues.hand_back([(h.league_id, h.match_id, h.entry_id) for h in matches], self.consumer)
        except (RedisError, OSError) as error:
            log.warning("redis unavailable (%s): %d held matches left to their lease", error, len(matches))
            return
        for held in matches:
            self.held.pop(held.entry_id, None)
        log.info("handed back the matches this node will not play", extra={"matches": back})

    @property
    def _touch_seconds(self) -> float:
        """How often the leases of held entries are renewed (well inside a lease)."""
        return min(self.lease_seconds / 3, 5.0)

    async def _keep_leases(self, halt: asyncio.Event) -> None:
        """Renew the leases of the matches still playing here, claiming nothing new, until they end
        or ``halt`` is set: a node stopping gracefully plays them out, and another node must not
        take them over meanwhile and play them again (a rotation of a duplicate deal would have its
        cards released while the first run is still being played). What is held unstarted is not
        renewed: other nodes take it over once its lease runs out."""
        while not halt.is_set():
            playing = [entry for entry, held in self.held.items() if held.task is not None and not held.task.done()]
            if not playing:
                return
            try:
                await self._renew(playing)
            except (RedisError, OSError) as error:
                log.warning("redis unavailable (%s): the leases of %d matches not renewed", error, len(playing))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(halt.wait(), self._touch_seconds)

    async def _iteration(self) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._last_reclaim >= self.lease_seconds / 2:
            stale = await self.queue.reclaim_stale(self.consumer, int(self.lease_seconds * 1000), 100)
            self._last_reclaim = now
            self.reclaimed += len(stale)
            self._take(stale, now)
            if self.metrics is not None:
                self.metrics.reclaimed.inc(len(stale))
        if now - self._last_reconcile >= self.reconcile_seconds:
            self._last_reconcile = now
            await self._reconcile()
        room = self.max_held - len(self.held)
        fresh: list[Entry] = []
        if room > 0:
            # Block for new work only when nothing waits here (a second when nothing is held at all: a new
            # entry ends the wait at once, so an idle node costs nothing); else just look.
            block = 1 if self._waiting() else int((self.poll_seconds if self.held else IDLE_SECONDS) * 1000)
            fresh = await self.queue.read_new(self.consumer, min(room, 256), block)
            self._take(fresh, -math.inf)
            if fresh:  # delivered at some moment of the blocking read: their leases start now
                await self._renew([entry_id for entry_id, _ in fresh])
        generation = await self.queue.generation()
        if (
            fresh
            or generation != self._generation
            or self._ended.is_set()
            or now - self._last_retry >= self.retry_seconds
        ):
            self._generation, self._last_retry = generation, now
            self._ended.clear()
            await self._start_waiting()
        if now - self._last_touch >= self._touch_seconds:
            await self._drop_cancelled()
            await self._renew(list(self.held))
            self._last_touch = now
            if self.metrics is not None:
                depth, _, oldest = await self.queue.depth()
                self.metrics.queue_depth.set(depth)
                self.metrics.queue_oldest_age.set(oldest)

    def _waiting(self) -> list[_Held]:
        return [h for h in self.held.values() if h.task is None]

    def _take(self, entries: list[Entry], at: float) -> None:
        """Hold these entries, claimed (their leases renewed) by a command sent at ``at``."""
        for entry_id, fields in entries:
            held = self.held.get(entry_id)
            if held is None:
                held = self.held[entry_id] = _Held(entry_id, fields.get("league", ""), fields.get("match", ""))
            held.renewed = max(held.renewed, at)

    async def _renew(self, entry_ids: list[str]) -> None:
        """Renew the leases of these held entries, and give up those another worker took over: a
        waiting one is dropped, a playing one stops before its next turn (``_leased``)."""
        at = asyncio.get_running_loop().time()
        lost = set(await self.queue.touch(self.consumer, entry_ids))
        for entry_id in entry_ids:
            held = self.held.get(entry_id)
            if held is None:
                continue
            if entry_id not in lost:
                held.renewed = max(held.renewed, at)
                continue
            held.lost = True
            if held.task is None:
                del self.held[entry_id]
            log.warning("league match %s was taken over by another node: this one gives it up", held.match_id)

    def _leased(self, held: _Held) -> bool:
        """Whether this worker can count on the entry's lease still: another worker may take it
        over once a whole lease has passed since its renewal."""
        age = asyncio.get_running_loop().time() - held.renewed
        return not held.lost and age < self.lease_seconds * LEASE_TRUSTED

    async def _reconcile(self) -> None:
        """Queue again the open matches that are nowhere; one node at a time does it."""
        if not await self.leagues.claim_reconciling(self.consumer, self.reconcile_seconds):
            return
        for league_id in await self.leagues.active_ids():
            lost = await self.leagues.reconcile(league_id)
            if lost:
                self.requeued += lost
                log.warning("%d matches of league %s were nowhere: queued again", lost, league_id)

    async def _start_waiting(self) -> None:
        busy: set[str] = set()
        """Bots found busy in this pass: their other matches are not tried again until the next."""
        absent: set[str] = set()
        """Bots found connected nowhere in this pass: their other matches are parked straight away."""
        to_park: list[tuple[_Held, str]] = []
        unplayable: list[tuple[_Held, str]] = []
        await self._look_up([held for held in self._waiting() if held.spec is None])
        for held in self._waiting():
            spec, league = held.spec, held.league
            assert spec is not None
            if busy.intersection(spec.bots) or not self._leased(held):
                continue  # busy bots, or a lease to renew first
            gone = next((bot for bot in spec.bots if bot in absent), None)
            if gone is not None:
                to_park.append((held, gone))
                continue
            try:
                run_id = await self.matches.start(
                    league.game or self.default_game,
                    spec.bots,
                    # A duplicate deal is the same cards in every rotation, and withheld until all are
                    # played; any other match (or re-run after an abort) is dealt afresh.
                    seed=deal_seed(held.secret, spec.deal) if held.duplicate else secrets.randbits(SEED_BITS),
                    options=league.options,
                    time_control=league.time_control,
                    match_id=f"{held.match_id}.{secrets.token_hex(3)}",
                    seal=spec.deal_id if held.duplicate else None,
                    # A bot in two rotations at once would hold in one its opponent's cards in the other.
                    one_at_a_time=spec.deal_id if held.duplicate else None,
                    leased=functools.partial(self._leased, held),
                )
            except (GameSetupError, UnknownGameError) as refused:
                log.error("match %s of league %s cannot be played: %s", held.match_id, held.league_id, refused)
                unplayable.append((held, str(refused)))
                continue
            except BotAbsentError as away:
                absent.add(away.bot)
                to_park.append((held, away.bot))
                continue
            except BotUnavailableError:
                busy.update(spec.bots)
                continue  # its bots are busy; tried again when a slot frees
            await self.leagues.mark_running(held.league_id, held.match_id)
            held.task = asyncio.ensure_future(self._play(held, run_id))
        to_drop = [held for held, _ in to_park if held.ladder]
        to_park = [(held, bot) for held, bot in to_park if not held.ladder]
        if to_drop:
            await self._drop(to_drop)
        if to_park:
            await self._park(to_park)
        for held, why in unplayable:
            await self._abort_unplayable(held, why)

    async def _drop(self, matches: list[_Held]) -> None:
        """Give up these (ladder) matches unplayed: the matchmaker schedules the bots connected now."""
        await self.leagues.drop_many([(h.league_id, h.match_id, h.entry_id) for h in matches])
        for held in matches:
            self.held.pop(held.entry_id, None)

    async def _park(self, matches: list[tuple[_Held, str]]) -> None:
        """Take these matches off the queue until their absent bot connects (one that just did stays)."""
        parked = await self.leagues.park_many([(h.league_id, h.match_id, h.entry_id, bot) for h, bot in matches])
        for (held, _), done in zip(matches, parked, strict=True):
            if done:
                self.parked += 1
                del self.held[held.entry_id]

    async def _look_up(self, fresh: list[_Held]) -> None:
        """Read newly held entries' matches and leagues (in one round trip, and once a league); drop
        those with nothing to play."""
        if not fresh:
            return
        found = await self.leagues.matches_and_results([(h.league_id, h.match_id) for h in fresh])
        leagues: dict[str, tuple[PlaySpec | str, bytes, bool]] = {}
        """Each league's spec (or why it does not read), deal secret and whether it is cancelled."""
        drop: list[str] = []
        retired: list[_Held] = []
        unplayable: list[tuple[_Held, str]] = []
        for held, (scheduled, has_result) in zip(fresh, found, strict=True):
            if scheduled is None:  # unknown: nothing to do
                drop.append(held.entry_id)
                continue
            broken = ""
            try:
                held.spec = MatchSpec.from_dict(scheduled)
            except (KeyError, TypeError, ValueError) as error:
                broken = f"match {held.match_id} of league {held.league_id} does not read: {error}"[:300]
                log.error("%s: it ends aborted", broken)
                held.spec = _stand_in(held, scheduled)
            if held.league_id not in leagues:
                league: PlaySpec | str
                try:
                    league = PlaySpec.parse(held.league_id, await self.leagues.spec(held.league_id) or {})
                except StoredDataError as unreadable:
                    league = str(unreadable)
                    log.error("%s: its matches end aborted", league)
                secret = await self.leagues.secret(held.league_id) or b""
                leagues[held.league_id] = league, secret, await self.leagues.is_cancelled(held.league_id)
            league, held.secret, cancelled = leagues[held.league_id]
            if isinstance(league, PlaySpec):
                held.league = league
            if has_result:
                # It ran before and its result is stored: finish what its worker may not have.
                await self._store(held, {})
            elif cancelled:  # dropped unplayed
                drop.append(held.entry_id)
            elif broken or isinstance(league, str):
                unplayable.append((held, broken or str(league)))
            elif held.ladder and await self.leagues.retired(held.spec.bots):
                retired.append(held)
        if retired:
            await self._drop(retired)
        for held, why in unplayable:
            await self._abort_unplayable(held, why)
        if drop:
            await self.queue.ack(drop)
            for entry_id in drop:
                del self.held[entry_id]

    async def _play(self, held: _Held, run_id: str) -> None:
        try:
            record = await self.matches.wait(run_id)
        except (asyncio.CancelledError, Exception):
            log.warning("league match %s did not finish; it will run again", held.match_id)
            with contextlib.suppress(Exception):
                await self.leagues.mark_not_running(held.league_id, held.match_id)
                if self._handing_back(held):  # its run was stopped by the shutdown, not this task
                    await self._hand_back([held])
            self.held.pop(held.entry_id, None)
            return
        finally:
            self._ended.set()
        if record.outcome is None or record.outcome.termination is Termination.ABORTED:
            with contextlib.suppress(RedisError, OSError):
                await self.leagues.mark_not_running(held.league_id, held.match_id)
            if self._handing_back(held):  # aborted by this node's shutdown: to be played again
                await self._hand_back([held])
            self.held.pop(held.entry_id, None)  # else unacknowledged: reclaimed after the lease
            return
        assert held.spec is not None
        result = result_of(held.league_id, held.match_id, record, held.spec.deal_id)
        backoff = 0.1
        while True:  # a finished match's result is never dropped: retry through a Redis restart
            try:
                await self._store(held, result)
                break
            except (RedisError, OSError) as error:
                log.warning("could not store the result of %s (%s); retrying", held.match_id, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)

    async def _abort_unplayable(self, held: _Held, error: str) -> None:
        """End a match that cannot be played as stored with one ``ABORTED`` result saying why."""
        assert held.spec is not None
        seats = len(held.spec.bots)
        outcome = Outcome(Termination.ABORTED, (0,) * seats, (1,) * seats)
        result = StoredResult.from_outcome(held.match_id, held.spec.bots, outcome, deal_id=held.spec.deal_id)
        await self._store(held, result.to_dict() | {"league_id": held.league_id, "error": error})

    async def _store(self, held: _Held, result: dict[str, Any]) -> None:
        """Store the result (once per match id) and acknowledge the entry in one step, and let the
        entry go; once its deal is whole, unseal the deal's records. Safe to repeat: a stored result
        is never replaced."""
        assert held.spec is not None
        stored, deal_results = await self.leagues.record_result(
            held.league_id, held.match_id, held.spec.deal_id, result, held.entry_id, held.deal_size
        )
        self.held.pop(held.entry_id, None)  # acknowledged: its lease is not renewed again
        if stored:
            self.results_stored += 1
        if held.duplicate and deal_results >= held.deal_size:
            await self.matches.unseal(held.spec.deal_id)  # idempotent: a re-run of this step does it again

    async def _drop_cancelled(self) -> None:
        """Acknowledge and drop the waiting entries of cancelled leagues (one lookup per league)."""
        waiting = self._waiting()
        for league_id in {held.league_id for held in waiting}:
            if await self.leagues.is_cancelled(league_id):
                dropped = [held.entry_id for held in waiting if held.league_id == league_id]
                await self.queue.ack(dropped)
                for entry_id in dropped:
                    del self.held[entry_id]


def result_of(league_id: str, match_id: str, record: MatchRecord, deal_id: str | None = None) -> dict[str, Any]:
    """The stored result of a league match (``arena.league.result.StoredResult``'s form, plus where
    it came from): who sat where, the outcome, each seat's timeouts."""
    assert record.outcome is not None
    timeouts = [0] * len(record.bot_names)
    for rejection in record.rejections:
        if rejection.fault is Fault.TIMEOUT:
            timeouts[rejection.seat] += 1
    result = StoredResult.from_outcome(match_id, record.bot_names, record.outcome, timeouts, deal_id)
    return result.to_dict() | {
        "league_id": league_id,
        "record_id": record.match_id,
        "seed": record.seed,
        "strikes": list(record.strikes),
        "ended_at": record.ended_at,
    }
