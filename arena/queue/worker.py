"""A referee worker: claims queued league matches, plays them on this node, stores each result once.

The loop, per node: take back what this worker name still holds from before a restart; reclaim
entries whose worker died (idle past the lease); read new entries as capacity allows; start each
match whose bots are connected here with free slots; keep the lease of what it holds fresh. When a
match ends, its result is stored (once per match id, even if the match ran twice) and only then is
the entry acknowledged. An aborted match is not acknowledged: it runs again. An entry of a cancelled
league is acknowledged and dropped unplayed: when first looked at, and (for one still waiting for
its bots) at the next lease refresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError

from arena.games.base import Termination
from arena.league.result import MatchResult
from arena.league.schedule import SEED_BITS, MatchSpec, deal_seed
from arena.metrics import ArenaMetrics
from arena.queue.stream import Entry, MatchQueue
from arena.referee.record import MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.service.matches import BotUnavailableError, MatchManager
from arena.store.leagues import LeagueStore

log = logging.getLogger(__name__)


@dataclasses.dataclass
class _Held:
    entry_id: str
    league_id: str
    match_id: str
    since: float
    spec: MatchSpec | None = None
    """The scheduled match and its league's spec, read once when the entry is first looked at."""
    league: dict[str, Any] | None = None
    secret: bytes = b""
    """The league's deal secret (duplicate deals are dealt from it)."""
    task: asyncio.Task[None] | None = None


DealHook = Callable[[str, list[dict[str, Any]]], Any]
"""Called once per deal whose every match has its result stored: (league id, the deal's results);
may return an awaitable. A deal is one match, or the k rotations of a duplicate deal."""


class RefereeWorker:
    """Drains the match queue on one node."""

    def __init__(
        self,
        queue: MatchQueue,
        leagues: LeagueStore,
        matches: MatchManager,
        consumer: str,
        *,
        lease_seconds: float = 30.0,
        max_held: int = 256,
        poll_seconds: float = 0.1,
        on_deal: DealHook | None = None,
        metrics: ArenaMetrics | None = None,
    ) -> None:
        self.queue = queue
        self.leagues = leagues
        self.matches = matches
        self.consumer = consumer
        self.lease_seconds = lease_seconds
        self.max_held = max_held
        self.poll_seconds = poll_seconds
        self.on_deal = on_deal
        self.metrics = metrics
        self.held: dict[str, _Held] = {}
        self._last_touch = self._last_reclaim = 0.0
        self.results_stored = 0
        self.reclaimed = 0

    async def run(self, stop: asyncio.Event) -> None:
        """Work until ``stop`` is set; matches still running then are left to be aborted by the node.

        Redis going away (a restart) pauses the work: each step is retried with a backoff, and
        nothing held is dropped meanwhile.
        """
        started = False
        self._last_touch = self._last_reclaim = 0.0
        backoff = 0.1
        while not stop.is_set():
            try:
                if not started:
                    await self.queue.ensure_group()
                    self._take(await self.queue.read_own_pending(self.consumer))
                    started = True
                await self._iteration()
                backoff = 0.1
                wait = self.poll_seconds if self._waiting() else 0.001
            except (RedisError, OSError) as error:
                log.warning("redis unavailable (%s); retrying in %.1f s", error, backoff)
                wait, backoff = backoff, min(backoff * 2, 5.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)

    async def _iteration(self) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._last_reclaim >= self.lease_seconds / 2:
            stale = await self.queue.reclaim_stale(self.consumer, int(self.lease_seconds * 1000), 100)
            self._last_reclaim = now
            self.reclaimed += len(stale)
            self._take(stale)
            if self.metrics is not None:
                self.metrics.reclaimed.inc(len(stale))
        room = self.max_held - len(self.held)
        if room > 0:
            block = int(self.poll_seconds * 1000) if not self._waiting() else 1
            self._take(await self.queue.read_new(self.consumer, min(room, 64), block))
        await self._start_waiting()
        if now - self._last_touch >= min(self.lease_seconds / 3, 5.0):
            await self._touch()
            self._last_touch = now
            if self.metrics is not None:
                depth, _, oldest = await self.queue.depth()
                self.metrics.queue_depth.set(depth)
                self.metrics.queue_oldest_age.set(oldest)

    def _waiting(self) -> list[_Held]:
        return [h for h in self.held.values() if h.task is None]

    def _take(self, entries: list[Entry]) -> None:
        now = asyncio.get_running_loop().time()
        for entry_id, fields in entries:
            if entry_id not in self.held:
                self.held[entry_id] = _Held(entry_id, fields.get("league", ""), fields.get("match", ""), now)

    async def _start_waiting(self) -> None:
        for held in self._waiting():
            if held.spec is None:
                scheduled = await self.leagues.match(held.league_id, held.match_id)
                if scheduled is None:  # unknown: nothing to do
                    await self.queue.ack([held.entry_id])
                    del self.held[held.entry_id]
                    continue
                held.spec, held.league = MatchSpec.from_dict(scheduled), await self.leagues.spec(held.league_id) or {}
                held.secret = await self.leagues.secret(held.league_id) or b""
                if await self.leagues.has_result(held.league_id, held.match_id):
                    # It ran before and its result is stored: finish what its worker may not have.
                    await self._store(held, {})
                    del self.held[held.entry_id]
                    continue
                if await self.leagues.is_cancelled(held.league_id):  # dropped unplayed
                    await self.queue.ack([held.entry_id])
                    del self.held[held.entry_id]
                    continue
            spec, league = held.spec, held.league or {}
            assert spec is not None
            duplicate = bool(league.get("duplicate"))
            try:
                run_id = await self.matches.start(
                    league.get("game", "5211"),
                    spec.bots,
                    # A duplicate deal is the same cards in every rotation, and withheld until all are
                    # played; any other match (or re-run after an abort) is dealt afresh.
                    seed=deal_seed(held.secret, spec.deal) if duplicate else secrets.randbits(SEED_BITS),
                    options=league.get("options") or {},
                    time_control=TimeControl.from_dict(league.get("time_control") or {}),
                    match_id=f"{held.match_id}.{secrets.token_hex(3)}",
                    seal=spec.deal_id if duplicate else None,
                )
            except BotUnavailableError:
                continue  # its bots are busy or not connected here yet; try again soon
            await self.leagues.mark_running(held.league_id, held.match_id)
            held.task = asyncio.ensure_future(self._play(held, run_id))

    async def _play(self, held: _Held, run_id: str) -> None:
        try:
            record = await self.matches.wait(run_id)
        except (asyncio.CancelledError, Exception):
            log.warning("league match %s did not finish; it will run again", held.match_id)
            with contextlib.suppress(Exception):
                await self.leagues.mark_not_running(held.league_id, held.match_id)
            self.held.pop(held.entry_id, None)
            return
        if record.outcome is None or record.outcome.termination is Termination.ABORTED:
            with contextlib.suppress(RedisError, OSError):
                await self.leagues.mark_not_running(held.league_id, held.match_id)
            self.held.pop(held.entry_id, None)  # unacknowledged: reclaimed after the lease
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
        self.held.pop(held.entry_id, None)

    async def _store(self, held: _Held, result: dict[str, Any]) -> None:
        """Store the result (once per match id); once its deal is whole, unseal the deal's records and
        tell the hook; then acknowledge the entry. Safe to repeat: a stored result is never replaced."""
        assert held.spec is not None
        deal_id = held.spec.deal_id
        stored, deal_results = await self.leagues.record_result(held.league_id, held.match_id, deal_id, result)
        duplicate = bool((held.league or {}).get("duplicate"))
        deal_size = int((held.league or {}).get("players_per_match", 1)) if duplicate else 1
        if stored:
            self.results_stored += 1
        if deal_results >= deal_size:
            if duplicate:
                await self.matches.unseal(deal_id)  # idempotent: a re-run of this step does it again
            if stored and self.on_deal is not None:
                try:  # the live ratings are a view: a failure there must not hold the queue up
                    deal = [result] if not duplicate else await self.leagues.deal_results(held.league_id, deal_id)
                    outcome = self.on_deal(held.league_id, deal)
                    if asyncio.iscoroutine(outcome):
                        await outcome
                except Exception:
                    log.exception("the result hook failed for %s", held.match_id)
        await self.queue.ack([held.entry_id])

    async def _touch(self) -> None:
        await self._drop_cancelled()
        now = asyncio.get_running_loop().time()
        # Waiting entries older than the lease are let go, so a node whose bots are connected can take them.
        fresh = [h.entry_id for h in self.held.values() if h.task is not None or now - h.since < self.lease_seconds]
        await self.queue.touch(self.consumer, fresh)
        for held in list(self.held.values()):
            if held.task is None and now - held.since >= self.lease_seconds:
                del self.held[held.entry_id]

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
    """The stored result of a league match (``arena.league.result.MatchResult``'s form, plus where
    it came from): who sat where, the outcome, each seat's timeouts."""
    assert record.outcome is not None
    timeouts = [0] * len(record.players)
    for rejection in record.rejections:
        if rejection.fault == "timeout":
            timeouts[rejection.seat] += 1
    result = MatchResult.from_outcome(match_id, record.players, record.outcome, timeouts, deal_id)
    return result.to_dict() | {
        "league_id": league_id,
        "record_id": record.match_id,
        "seed": record.seed,
        "strikes": list(record.strikes),
        "ended_at": record.ended_at,
    }
