"""Ladders as a service: create, pause and follow them, and the matchmaker that keeps them busy.

The pure parts live in ``arena.ladder`` (versions, matchmaking, standings); storage in
``arena.store.ladders``; the matches themselves are played like a league's, from the shared
queue, by the referee worker of every node (``arena.queue.worker``).

Every node runs a :class:`Matchmaker`; one at a time (a lease in Redis, taken over within
``LEASE_SECONDS`` when its node dies) fills the free slots of the bots connected now, on any node,
with new matches of every running ladder, and charts their ratings.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import logging
import random
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import LadderExistsError, LadderNotFoundError, LadderSpecError, echo
from arena.games.lookup import get_game
from arena.ladder.matchmaker import Candidate, pick_tables, rotations
from arena.ladder.standings import Standing, standings
from arena.league.aggregate import PairingAggregate
from arena.league.bradley_terry import PRIOR_SD
from arena.league.schedule import SECRET_BYTES, MatchSpec, deal_id
from arena.league.table import PROVISIONAL_MATCHES, LeagueTable
from arena.referee.clock import Clock
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import check_request_id
from arena.store.ladders import LadderStore, Online
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import STORE_ERRORS
from arena.store.specs import SpecKind

log = logging.getLogger(__name__)

MAX_NAME = 100
"""Characters of a ladder's display name that are kept."""
LEASE_SECONDS = 3.0
"""The matchmaker lease: a dead node's matchmaking is taken over after this long."""
PASS_SECONDS = 0.5
"""How often the matchmaker fills free slots."""
WAKE_SECONDS = 0.05
"""How often the lease holder looks whether a match ended (one GET), while a ladder runs."""
PASS_SHARE = 0.25
"""At most this share of its node's time goes to matchmaking passes (each reads every bot online
that plays a running ladder's game), for passes under ``LEASE_SECONDS / 2 * PASS_SHARE``: a match's
end brings the next pass forward, but no closer to the last one's start than its length over this
share (see ``paced``)."""
REFIT_SECONDS = 1.0
"""The matchmaker pairs by standings at most this old."""
BOARD_CACHE_SIZE = 64
"""Fitted standings kept (one per ladder version asked)."""


class LadderState(enum.Enum):
    """Where a ladder is in its life."""

    RUNNING = "running"
    PAUSED = "paused"


@dataclasses.dataclass(frozen=True, slots=True)
class LadderInfo:
    """A ladder's stored spec, state and figures."""

    ladder_id: str
    name: str
    game: str
    players: int
    duplicate: bool
    time_control: TimeControl
    options: dict[str, Any]
    created_at: float
    state: LadderState
    done: int
    open: int


def new_ladder_id() -> str:
    """A short random ladder id ("LD" and hex: never a league's "L" and hex)."""
    return "LD" + secrets.token_hex(4)


class LadderService:
    """Create, pause and follow ladders; their standings and rating history."""

    def __init__(self, store: LadderStore, queue: MatchQueue, clock: Clock) -> None:
        self.store = store
        self.queue = queue
        self.clock = clock
        self._boards: dict[tuple[str, int], asyncio.Future[list[Standing]]] = {}

    async def create(
        self,
        game: str,
        players: int,
        *,
        name: str = "",
        duplicate: bool = False,
        time_control: TimeControl | None = None,
        options: Mapping[str, Any] | None = None,
        request_id: str = "",
    ) -> LadderInfo:
        """Create a ladder (running at once). Refused with nothing stored (``UnknownGameError``,
        ``LadderSpecError`` or ``GameSetupError``, naming the value) for an unknown game, a table
        size the game does not have, rules options it refuses, or a ``request_id`` over
        ``MAX_REQUEST_ID`` characters."""
        check_request_id(request_id, LadderSpecError)
        rules = get_game(game)
        players = players or 2
        if players not in rules.player_counts:
            counts = rules.player_counts
            raise LadderSpecError(f"{game} is for {counts.start} to {counts.stop - 1} players, not {players}")
        options = dict(options or {})
        rules.initial_state(players, 0, options)  # refuses options the game does not take
        ladder_id = new_ladder_id()
        spec = {
            "kind": SpecKind.LADDER.value,
            "name": name[:MAX_NAME] or ladder_id,
            "game": game,
            "players_per_match": players,
            "duplicate": duplicate,
            "time_control": (time_control or TimeControl()).to_dict(),
            "options": options,
            "created_at": self.clock.wall(),
        }
        await self.queue.ensure_group()
        made = await self.store.create(ladder_id, spec, secrets.token_bytes(SECRET_BYTES), request_id)
        if made is None:
            raise LadderExistsError(f"a ladder with id {echo(ladder_id)} exists already")
        return await self.get(made)

    async def get(self, ladder_id: str) -> LadderInfo:
        """A ladder, its state and figures.

        Raises ``LadderNotFoundError`` for an unknown id.
        """
        spec = await self.store.spec(ladder_id)
        if spec is None:
            raise LadderNotFoundError(f"no ladder {echo(ladder_id)}")
        [paused] = await self.store.paused([ladder_id])
        done, open_ = await self.store.counts(ladder_id)
        return LadderInfo(
            ladder_id=ladder_id,
            name=str(spec.get("name", ladder_id)),
            game=str(spec["game"]),
            players=int(spec["players_per_match"]),
            duplicate=bool(spec.get("duplicate")),
            time_control=TimeControl.from_dict(spec.get("time_control") or {}),
            options=dict(spec.get("options") or {}),
            created_at=float(spec.get("created_at", 0.0)),
            state=LadderState.PAUSED if paused else LadderState.RUNNING,
            done=done,
            open=open_,
        )

    async def recent(self, limit: int = 50) -> list[LadderInfo]:
        """The most recent ladders, newest first."""
        return [await self.get(ladder_id) for ladder_id in await self.store.ladder_ids(limit)]

    async def pause(self, ladder_id: str, paused: bool = True) -> LadderInfo:
        """Pause (or resume) the ladder: no new match is scheduled while paused."""
        await self.get(ladder_id)
        await self.store.set_paused(ladder_id, paused)
        return await self.get(ladder_id)

    async def standings(self, ladder_id: str) -> tuple[LadderInfo, list[Standing]]:
        """The ladder's standings, fitted once per count of stored results, off the event loop."""
        info = await self.get(ladder_id)
        version = (ladder_id, info.done)
        board = self._boards.get(version)
        if board is None:
            board = self._boards[version] = asyncio.ensure_future(self._fit(info))
            while len(self._boards) > BOARD_CACHE_SIZE:
                del self._boards[next(iter(self._boards))]
        try:
            lines = await asyncio.shield(board)
        except Exception:
            self._boards.pop(version, None)
            raise
        return info, lines

    async def _fit(self, info: LadderInfo) -> list[Standing]:
        deal_size = info.players if info.duplicate else 1
        aggregate = PairingAggregate.from_fields(
            await self.store.current_pairings(info.ladder_id, info.done, deal_size)
        )
        retired = await self.store.retired(sorted(aggregate.bots))
        table = await asyncio.to_thread(LeagueTable.from_aggregate, aggregate)
        return standings(table, retired)

    async def history(self, ladder_id: str, bot: str, limit: int = 500) -> list[dict[str, Any]]:
        """The bot's rating points in the ladder, oldest first."""
        await self.get(ladder_id)
        return await self.store.history(ladder_id, bot, max(1, min(limit, 2000)))

    async def retire(self, bot: str) -> None:
        """No ladder schedules the bot again; its ladder matches that no referee has looked at yet
        are dropped unplayed (those already waiting for a slot, or playing, finish)."""
        await self.store.retire(bot)


def paced(started: float, ended: float, interval: float, lease: float) -> tuple[float, float]:
    """When the pass after one that ran from ``started`` to ``ended`` is due, and the earliest a
    match's end may bring it forward to: ``interval`` after the last one's start, and no sooner than
    its length over ``PASS_SHARE``, but within half the ``lease`` (which only a pass renews)."""
    earliest = started + min((ended - started) / PASS_SHARE, lease / 2)
    return max(started + interval, earliest), earliest


class Matchmaker:
    """Keeps every running ladder busy with the bots connected now (one node at a time)."""

    def __init__(
        self,
        service: LadderService,
        owner: str,
        *,
        pass_seconds: float = PASS_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
        seed: int | None = None,
    ) -> None:
        self.service = service
        self.store = service.store
        self.owner = owner
        self.pass_seconds = pass_seconds
        self.lease_seconds = lease_seconds
        self.rng = random.Random(seed)
        self.scheduled = 0
        self.active = False
        """Whether a ladder was running at the last pass (then match ends wake the matchmaker)."""
        self._fitted: dict[str, tuple[float, int, list[Standing]]] = {}
        """Per ladder: when its standings were fitted, of how many results, and the lines."""

    async def run(self, stop: asyncio.Event) -> None:
        """Make matches every ``pass_seconds`` while this node holds the lease, and at once when a
        match ends or a bot connects anywhere (the queue's generation count moves), until ``stop``."""
        loop = asyncio.get_running_loop()
        next_pass = earliest = 0.0
        generation: int | None = None
        holding = False
        while not stop.is_set():
            wait = self.pass_seconds
            try:
                if loop.time() >= next_pass:
                    started = loop.time()
                    next_pass = earliest = started + self.pass_seconds  # if the pass fails
                    holding = await self.store.hold_matchmaking(self.owner, self.lease_seconds)
                    self.active = holding and await self.one_pass() >= 0
                    next_pass, earliest = paced(started, loop.time(), self.pass_seconds, self.lease_seconds)
                if holding and self.active:
                    seen = await self.service.queue.generation()
                    if generation is not None and seen != generation:
                        next_pass = earliest
                    generation = seen
                    wait = min(wait, WAKE_SECONDS)
            except STORE_ERRORS as error:
                log.warning("matchmaking paused: redis unavailable (%s)", error)
            except Exception:
                log.exception("matchmaking pass failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
        with contextlib.suppress(*STORE_ERRORS):
            await self.store.release_matchmaking(self.owner)

    async def one_pass(self) -> int:
        """Fill the free slots of connected bots with matches of every running ladder; returns how
        many matches were scheduled (-1: no ladder is running)."""
        ladder_ids = await self.store.all_ids()
        if not ladder_ids:
            return -1
        paused = await self.store.paused(ladder_ids)
        running = [ladder for ladder, stopped in zip(ladder_ids, paused, strict=True) if not stopped]
        if not running:
            return -1
        infos = [await self.service.get(ladder_id) for ladder_id in running]
        online = await self.store.online({info.game for info in infos})
        retired = await self.store.retired(sorted(online))
        busy: Counter[str] = Counter()
        for table in await self.store.open_tables(ladder_ids):
            busy.update(table)
        free = {
            bot: seen.capacity - seen.held_elsewhere - busy[bot] for bot, seen in online.items() if bot not in retired
        }
        self.rng.shuffle(infos)
        made = 0
        for info in infos:
            made += await self._fill(info, online, free)
        self.scheduled += made
        return made

    async def _fill(self, info: LadderInfo, online: Mapping[str, Online], free: dict[str, int]) -> int:
        ladder_id = info.ladder_id
        lines = await self._standings(info)
        known = {line.bot: line for line in lines}
        candidates = []
        for bot, seen in online.items():
            if free.get(bot, 0) <= 0 or info.game not in seen.games:
                continue
            line = known.get(bot)
            candidates.append(
                Candidate(
                    bot,
                    rating=line.rating if line else 1500.0,
                    uncertainty=line.stderr if line else PRIOR_SD,
                    games=line.games if line else 0,
                    free=free[bot],
                )
            )
        if len(candidates) < info.players:
            return 0
        seats = await self.store.seat_counts(ladder_id, info.players)
        tables = pick_tables(
            candidates, info.players, seats, self.rng, duplicate=info.duplicate, provisional_games=PROVISIONAL_MATCHES
        )
        if not tables:
            return 0
        matches = [rotation for table in tables for rotation in (rotations(table) if info.duplicate else [table])]
        first = await self.store.next_index(ladder_id)
        specs: list[dict[str, Any]] = []
        seated: list[tuple[int, str]] = []
        per_deal = info.players if info.duplicate else 1
        for offset, bots in enumerate(matches):
            index = first + offset
            deal = first + offset - offset % per_deal  # a duplicate deal is numbered by its first match
            specs.append(
                MatchSpec(
                    ladder_id + f".{index:06d}",
                    ladder_id,
                    index,
                    info.game,
                    bots,
                    deal,
                    deal_id(ladder_id, deal),
                    options=info.options,
                ).to_dict()
            )
            seated += list(enumerate(bots))
        added = await self.store.schedule(self.owner, ladder_id, specs, seated)
        if added:
            for bots in matches:
                for bot in bots:
                    free[bot] = free.get(bot, 0) - 1
        return added

    async def _standings(self, info: LadderInfo) -> Sequence[Standing]:
        """The ladder's standings as of at most ``REFIT_SECONDS`` ago (charted when refitted)."""
        now = asyncio.get_running_loop().time()
        fitted = self._fitted.get(info.ladder_id)
        if fitted is not None and (fitted[1] == info.done or now - fitted[0] < REFIT_SECONDS):
            return fitted[2]
        _, lines = await self.service.standings(info.ladder_id)
        self._fitted[info.ladder_id] = now, info.done, lines
        await self._chart(info, lines)
        return lines

    async def _chart(self, info: LadderInfo, lines: Sequence[Standing]) -> None:
        """Persist a rating point for every bot whose rated games changed."""
        at = self.service.clock.wall()
        points = {
            line.bot: {
                "at": at,
                "games": line.games,
                "rating": line.rating,
                "low": line.rating_low,
                "high": line.rating_high,
            }
            for line in lines
        }
        await self.store.chart(info.ladder_id, points)
