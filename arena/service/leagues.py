"""Leagues as a service: schedule them, queue their matches, follow them, rank their bots.

The pure parts live in ``arena.league`` (scheduling, ratings); storage in ``arena.store.leagues``;
the queue in ``arena.queue``. A league's stored spec is ``LeagueSpec.to_dict()`` plus its name,
time control and creation time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from arena.errors import LeagueExistsError, LeagueNotFoundError, LeagueSpecError, echo
from arena.games.lookup import get_game
from arena.league.aggregate import PairingAggregate
from arena.league.schedule import SECRET_BYTES, LeagueSpec, match_count, schedule_league
from arena.league.table import LeagueTable
from arena.referee.clock import Clock
from arena.referee.timecontrol import TimeControl
from arena.service.limits import Limits
from arena.store.leagues import LeagueStore
from arena.store.match_queue import MatchQueue
from arena.store.specs import SpecKind

MAX_REQUEST_ID = 128
"""Characters of a create request's id that count."""

TABLE_CACHE_SIZE = 64
"""Fitted league tables kept (one per league version asked)."""


MAX_GAMES_PER_PAIRING = 10_000

BotCheck = Callable[[Sequence[str], str], Awaitable[None]]
"""Raises unless every bot named is registered for the game (``BotRegistry.check_plays``)."""


class LeagueState(enum.Enum):
    """Where a league is in its life."""

    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueProgress:
    """Where a league stands."""

    total: int
    done: int
    running: int
    cancelled: bool = False
    """The league was cancelled: what is not done or running by now is never played."""
    waiting_for: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Of the queued matches, how many wait for each bot that is not connected (played once it is)."""

    @property
    def queued(self) -> int:
        """Matches not yet started (none once cancelled)."""
        return 0 if self.cancelled else max(0, self.total - self.done - self.running)

    @property
    def dropped(self) -> int:
        """Matches that will never be played because the league was cancelled."""
        return max(0, self.total - self.done - self.running) if self.cancelled else 0

    @property
    def finished(self) -> bool:
        """Every scheduled match has its result."""
        return self.total > 0 and self.done >= self.total

    @property
    def state(self) -> LeagueState:
        """Running, finished, or cancelled (a league that finished before its cancel is finished)."""
        if self.finished:
            return LeagueState.FINISHED
        return LeagueState.CANCELLED if self.cancelled else LeagueState.RUNNING


@dataclasses.dataclass(frozen=True, slots=True)
class LeagueInfo:
    """A league's stored spec and its progress."""

    league_id: str
    name: str
    spec: LeagueSpec
    time_control: TimeControl
    created_at: float
    progress: LeagueProgress


def check_size(spec: LeagueSpec, limits: Limits) -> None:
    """Raise ``LeagueSpecError`` if the league is too big to schedule (see ``LeagueService.create``);
    the match count is arithmetic on the spec (``match_count``), so nothing is scheduled to find out."""
    if len(spec.bots) > limits.max_league_bots:
        raise LeagueSpecError(f"a league of {len(spec.bots)} bots is too big: at most {limits.max_league_bots}")
    if spec.games_per_pairing > MAX_GAMES_PER_PAIRING:
        raise LeagueSpecError(
            f"games per pairing must be at most {MAX_GAMES_PER_PAIRING}, not {spec.games_per_pairing}"
        )
    count = match_count(spec)
    if count > limits.max_league_matches:
        raise LeagueSpecError(f"a league of {count} matches is too big: at most {limits.max_league_matches}")


def check_request_id(request_id: str, error: type[ValueError]) -> None:
    """Raise ``error`` for a create's ``request_id`` over ``MAX_REQUEST_ID`` characters (refused, not
    cut: two ids sharing their first characters would make one league)."""
    if len(request_id) > MAX_REQUEST_ID:
        raise error(f"a request_id is at most {MAX_REQUEST_ID} characters, not {len(request_id)}")


def check_rules(spec: LeagueSpec) -> None:
    """Raise ``GameSetupError`` naming the value if the game refuses the league's player count or
    rules options: refused at creation, not at every one of its matches."""
    get_game(spec.game).initial_state(spec.players_per_match, 0, spec.options)


def new_league_id() -> str:
    """A short random league id."""
    return "L" + secrets.token_hex(4)


class LeagueService:
    """Create and follow leagues."""

    def __init__(
        self,
        store: LeagueStore,
        queue: MatchQueue,
        clock: Clock,
        check_bots: BotCheck | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.store = store
        self.queue = queue
        self.clock = clock
        self.check_bots = check_bots
        """Refuses bots that are not registered (for the game); None: any name is taken."""
        self.limits = limits or Limits()
        """The largest league (bots, matches) it schedules."""
        self._tables: OrderedDict[tuple[str, int], asyncio.Future[LeagueTable]] = OrderedDict()
        """Tables by (league id, results stored): a league's results only grow, so the count is its
        version."""

    async def create(
        self, spec: LeagueSpec, time_control: TimeControl, name: str = "", request_id: str = ""
    ) -> LeagueInfo:
        """Check and schedule the league, then store it and queue every match in one step (a league
        exists whole or not at all); returns it with its progress. A ``request_id`` sent before returns
        the league that request made, so a client may retry a create whose answer it did not get.

        Refused (``LeagueSpecError``, or the bot check's error) with nothing stored: more than
        ``limits.max_league_bots`` bots, more than ``MAX_GAMES_PER_PAIRING`` games a pairing, more than
        ``limits.max_league_matches`` matches (counted from the spec, before anything is scheduled),
        a player count or rules options the game refuses (``GameSetupError``), or a bot not registered
        for the game.
        """
        check_request_id(request_id, LeagueSpecError)
        check_size(spec, self.limits)
        check_rules(spec)
        if self.check_bots is not None:
            await self.check_bots(spec.bots, spec.game)
        # Scheduling a large league takes a while: off the event loop.
        matches = await asyncio.to_thread(lambda: [m.to_dict() for m in schedule_league(spec)])
        stored = spec.to_dict() | {
            "name": name or spec.league_id,
            "time_control": time_control.to_dict(),
            "created_at": self.clock.wall(),
        }
        await self.queue.ensure_group()
        made = await self.store.create(spec.league_id, stored, matches, secrets.token_bytes(SECRET_BYTES), request_id)
        if made is None:
            raise LeagueExistsError(f"a league with id {echo(spec.league_id)} exists already")
        return await self.get(made)

    async def get(self, league_id: str) -> LeagueInfo:
        """A league and its progress.

        Raises ``LeagueNotFoundError`` for an unknown id.
        """
        stored = await self.store.spec(league_id)
        if stored is None or SpecKind.of(stored) is SpecKind.LADDER:  # a ladder keeps its spec beside the leagues'
            raise LeagueNotFoundError(f"no league {echo(league_id)}")
        total, done, running = await self.store.progress(league_id)
        cancelled = await self.store.is_cancelled(league_id)
        waiting_for = {} if cancelled else await self.store.parked_for(league_id)
        return LeagueInfo(
            league_id=league_id,
            name=str(stored.get("name", league_id)),
            spec=LeagueSpec.from_dict(stored),
            time_control=TimeControl.from_dict(stored.get("time_control") or {}),
            created_at=float(stored.get("created_at", 0.0)),
            progress=LeagueProgress(total, done, running, cancelled, waiting_for),
        )

    async def cancel(self, league_id: str) -> LeagueInfo:
        """Cancel the league: the workers drop its queued matches unplayed; running ones finish."""
        info = await self.get(league_id)
        if not info.progress.finished:
            await self.store.cancel(league_id, self.clock.wall())
        return await self.get(league_id)

    async def recent(self, limit: int = 50) -> list[LeagueInfo]:
        """The most recent leagues, newest first."""
        return [await self.get(league_id) for league_id in await self.store.league_ids(limit)]

    async def results(self, league_id: str) -> list[dict[str, Any]]:
        """Every stored result of the league, in arrival order."""
        await self.get(league_id)
        return await self.store.results(league_id)

    async def leaderboard(self, league_id: str) -> tuple[LeagueInfo, LeagueTable]:
        """The league table, fitted from the league's pairing aggregate (the results summed by
        pairing, which the store updates with every result: see ``LeagueStore.record_result``), so
        its cost does not grow with the results. An aggregate that has not counted every stored
        result (a league stored before it existed) is rebuilt from the results, once.

        Only whole deals count: a duplicate deal's results are left out until all its rotations are in.
        The table is fitted once per league version (its count of stored results, which only grows),
        off the event loop, and kept for the last ``TABLE_CACHE_SIZE`` versions asked of any league;
        callers asking at once share one computation.
        """
        info = await self.get(league_id)
        version = (league_id, info.progress.done)
        board = self._tables.get(version)
        if board is None:
            board = asyncio.ensure_future(self._fit(info))
            self._tables[version] = board
            while len(self._tables) > TABLE_CACHE_SIZE:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(version)
        try:
            table = await asyncio.shield(board)
        except Exception:
            self._tables.pop(version, None)
            raise
        return info, table

    async def _fit(self, info: LeagueInfo) -> LeagueTable:
        deal_size = info.spec.players_per_match if info.spec.duplicate else 1
        fields = await self.store.current_pairings(info.league_id, info.progress.done, deal_size)
        return await asyncio.to_thread(
            lambda: LeagueTable.from_aggregate(PairingAggregate.from_fields(fields), info.spec.bots)
        )
