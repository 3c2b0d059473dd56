"""What each page of the web site shows, read from one node's services with bounded work.

Every function here answers one page (and the JSON API behind it) with a JSON-ready dict. Each
reads a bounded amount: a page of a match index, the most recent leagues, a page of one league's
results (``LEAGUE_RESULTS_SCANNED`` at most), this node's connected bots, a page of the running
matches (every node's, with Redis), never a scan of the whole store. A league's chart is carried
forward by the results stored since it was last asked for (``arena.web.elo_lines``). Finished
replays are computed off the event loop and kept for the last ``REPLAY_CACHE_SIZE`` matches asked
(records never change).

A competition's board (:func:`league_board`, :func:`ladder_board`) has one shape for leagues and
ladders: ``kind``, ``id``, ``name``, ``game``, ``state``, ``rows`` and the chart's ``series``. A
ladder's chart and a bot's ladder history come from the rating points the matchmaker persists
(``LadderService.history``), bounded to ``CHART_POINTS`` a bot.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from arena import catalogue
from arena.errors import (
    ArenaError,
    BadFilterError,
    LadderNotFoundError,
    LeaguesUnavailableError,
    MatchElsewhereError,
    MatchSealedError,
    NotFoundError,
    NotRegisteredForGameError,
    echo,
)
from arena.games.base import GameRules
from arena.games.lookup import get_game
from arena.ladder.standings import Standing
from arena.ladder.versions import BotVersion
from arena.league.result import StoredResult
from arena.league.table import PROVISIONAL_MATCHES
from arena.node import ArenaNode
from arena.service.ladders import LadderInfo, LadderService
from arena.service.leagues import LeagueInfo
from arena.service.listing import ListPosition, MatchLister
from arena.store.match_index import MatchQuery, MatchSummary, Phase
from arena.store.specs import SpecKind
from arena.web.chart import Series
from arena.web.elo_lines import CHART_POINTS, EloLines
from arena.web.frames import replay_turns, to_json

PLAYED = (Phase.RUNNING, Phase.FINISHED)
"""What the site lists: matches being played or played (not the queued ones of leagues)."""
STATES: dict[str, Phase | None] = {"": None, "running": Phase.RUNNING, "finished": Phase.FINISHED}
"""The match list's ``state`` filter, as a phase (empty: any)."""
PAGE_SIZE = 25
"""Matches per page of the match list."""
RECENT_LEAGUES = 20
RECENT_LADDERS = 20
RECENT_MATCHES = 20
RUNNING_SHOWN = 50
LEAGUE_RUNNING_SHOWN = 500
"""Running matches a league's match list shows (before its results)."""
LEAGUE_RESULTS_SCANNED = 500
"""Results one page of a league's match list reads at most (its filters may skip many)."""
RESULTS_CHUNK = 2 * PAGE_SIZE
"""Results read from the store at a time while a page fills."""
_SEALED = "match {} is not shown until its duplicate deal is over"
BOTS_SHOWN = 200
CHART_LEADERS = 5
CHART_CACHE_SIZE = 2 * RECENT_LEAGUES
"""Leagues whose Elo lines are kept (a bot's page charts it in up to ``RECENT_LEAGUES`` leagues)."""
CHART_KEPT_EVERY = 50
"""Results a league's chart lines are carried forward by between two copies kept in the store."""
CHART_READ = 1000
"""Results read from the store at a time while a league's lines are carried forward."""
REPLAY_CACHE_SIZE = 64
MAX_FILTER = 128
"""Characters of a filter value that count (longer ones cannot name anything)."""

KIT_LANGUAGES = {
    "arena-bot": "Python",
    "arena-bot-go": "Go",
    "arena-bot-java": "Java",
    "arena-bot-ts": "TypeScript",
    "arena-bot-rust": "Rust",
    "arena-bot-cpp": "C++",
}
"""The language of each starter kit, by the client name its Hello sends (clients/*)."""

RulesOf = Callable[[str], GameRules[Any, Any, Any]]


@dataclasses.dataclass(frozen=True)
class LeaguePage:
    """Where a page of a league's match list starts: at an offset in its running matches (the
    first page: 0), or among its results stored before a position (``LeagueStore.results_before``).
    Its token is ``r<offset>`` or ``s<position>``; the empty token is the first page."""

    running: int | None = None
    before: int | None = None

    @classmethod
    def parse(cls, token: str) -> LeaguePage:
        """The page a token names; ``BadFilterError`` naming it for one no page gave."""
        if not token:
            return cls(running=0)
        kind, number = token[:1], token[1:]
        if kind in ("r", "s") and number.isascii() and number.isdigit() and len(number) <= 18:
            return cls(running=int(number)) if kind == "r" else cls(before=int(number))
        raise BadFilterError(f"page must be a token a league's match list gave, not {echo(token)}")

    def token(self) -> str:
        return f"r{self.running}" if self.running is not None else f"s{self.before}"


@dataclasses.dataclass
class SiteData:
    """The site's read model over one node."""

    node: ArenaNode
    rules_of: RulesOf = get_game
    """The rules a record is replayed with, by game name (the rules lookup, ``arena.games.lookup``)."""
    _replays: OrderedDict[str, asyncio.Future[list[dict[str, Any]]]] = dataclasses.field(default_factory=OrderedDict)
    _charts: OrderedDict[str, EloLines] = dataclasses.field(default_factory=OrderedDict)

    # --- home ---------------------------------------------------------------------------------

    async def overview(self) -> dict[str, Any]:
        """Hosted games, recent leagues with progress, matches playing now, bots, nodes, queue depth."""
        node = self.node
        games = [
            {
                "name": e.name,
                "players": [e.rules.player_counts.start, e.rules.player_counts.stop - 1],
                "default_players": e.default_players,
            }
            for e in catalogue.ENTRIES
        ]
        running, _ = await node.matches.running_list(MatchQuery(), None, RUNNING_SHOWN)
        bots = sorted(node.hub.connected(), key=lambda s: s.name)[:BOTS_SHOWN]
        queue: dict[str, Any] | None = None
        leagues: list[dict[str, Any]] = []
        ladders = [ladder_json(i) for i in await node.ladders.recent(RECENT_LADDERS)] if node.ladders else []
        if node.leagues is not None:
            length, pending, age = await node.leagues.queue.depth()
            queue = {"queued": length - pending, "at_workers": pending, "oldest_seconds": round(age, 1)}
            leagues = [league_json(i) for i in await node.leagues.recent(RECENT_LEAGUES)]
        nodes = await node.nodes.nodes() if node.nodes is not None else []
        return {
            "games": games,
            "leagues": leagues,
            "ladders": ladders,
            "running": [match_json(i) for i in running],
            "bots": [
                {"name": s.name, "games": sorted(s.games), "capacity": s.capacity, "free": s.free_slots} for s in bots
            ],
            "bots_connected": len(node.hub.connected()),
            "bots_online": await node.matches.relay.directory.online() if node.matches.relay is not None else None,
            "nodes": nodes,
            "queue": queue,
        }

    # --- leagues ------------------------------------------------------------------------------

    def _leagues(self) -> Any:
        if self.node.leagues is None:
            raise NotFoundError("this node runs without Redis: it has no leagues")
        return self.node.leagues

    async def league_board(self, league_id: str) -> dict[str, Any]:
        """A league's table (rank, bot, rating with its interval, counts, faults) and its chart.

        Raises ``NotFoundError`` for an unknown league.
        """
        leagues = self._leagues()
        try:
            info, table = await leagues.leaderboard(league_id[:MAX_FILTER])
        except (KeyError, LeaguesUnavailableError) as error:
            raise NotFoundError(f"no league {echo(league_id)}") from error
        rows = [
            {
                "rank": row.rank,
                "bot": row.bot,
                "rating": round(row.rating, 1),
                "rating_low": round(row.rating_low, 1),
                "rating_high": round(row.rating_high, 1),
                "rated": row.rated,
                "provisional": row.provisional,
                "matches": row.matches,
                "wins": row.wins,
                "points": row.points,
                "average_score": round(row.average_score, 2),
                "faults": {"timeouts": row.timeouts, "forfeits": row.forfeits},
            }
            for row in table.rows
        ]
        series = await self._chart(info, [row.bot for row in table.rows[:CHART_LEADERS]])
        return league_json(info) | {
            "kind": SpecKind.LEAGUE.value,
            "id": info.league_id,
            "rows": rows,
            "rated_matches": table.matches,
            "aborted": table.aborted,
            "series": [{"label": s.label, "points": list(s.points)} for s in series],
        }

    async def _chart(self, info: LeagueInfo, bots: Sequence[str]) -> list[Series]:
        """The Elo lines of ``bots`` in the league: its lines are carried forward by the results
        stored since the last view (``EloLines``), kept for the last ``CHART_CACHE_SIZE`` leagues
        asked, so the league's page and its bots' pages share them and no view reads a result twice.
        Every ``CHART_KEPT_EVERY`` results the lines are kept in the store too, so a view on another
        node, or after this one forgot them, reads at most that many results besides them."""
        store = self._leagues().store
        lines = self._charts.get(info.league_id)
        if lines is None:
            lines = self._charts[info.league_id] = await self._kept_lines(info)
            while len(self._charts) > CHART_CACHE_SIZE:
                self._charts.popitem(last=False)
        else:
            self._charts.move_to_end(info.league_id)
        async with lines.lock:  # one view carries a league's lines forward at a time
            while lines.taken < info.progress.done:
                upto = min(info.progress.done, lines.taken + CHART_READ)
                chunk = await store.results_before(info.league_id, upto, upto - lines.taken)
                await asyncio.to_thread(lines.take, [stored for _, stored in reversed(chunk)], upto)
                if lines.taken - lines.kept >= CHART_KEPT_EVERY:
                    await store.keep_chart(info.league_id, lines.taken, await asyncio.to_thread(lines.encode))
                    lines.kept = lines.taken
            every = lines.series()
        by_bot = {line.label: line for line in every}
        return [by_bot[bot] for bot in bots if bot in by_bot]

    async def _kept_lines(self, info: LeagueInfo) -> EloLines:
        """The league's lines as the store keeps them, else new ones."""
        deal_size = info.spec.players_per_match if info.spec.duplicate else 1
        store = self._leagues().store
        kept = await store.chart(info.league_id)
        if kept is not None:
            lines = await asyncio.to_thread(EloLines.decode, kept)
            if lines is not None and lines.bots == tuple(info.spec.bots) and lines.deal_size == deal_size:
                return lines
            await store.forget_chart(info.league_id)  # kept by another version: kept afresh from now on
        return EloLines(tuple(info.spec.bots), deal_size)

    # --- ladders ------------------------------------------------------------------------------

    def _ladders(self) -> LadderService:
        if self.node.ladders is None:
            raise NotFoundError("this node runs without Redis: it has no ladders")
        return self.node.ladders

    async def ladders(self) -> dict[str, Any]:
        """The most recent ladders, newest first."""
        return {"ladders": [ladder_json(i) for i in await self._ladders().recent(RECENT_LADDERS)]}

    async def _standings(self, ladder_id: str) -> tuple[LadderInfo, list[Standing]]:
        try:
            return await self._ladders().standings(ladder_id[:MAX_FILTER])
        except LadderNotFoundError as error:
            raise NotFoundError(f"no ladder {echo(ladder_id)}") from error

    async def ladder_board(self, ladder_id: str) -> dict[str, Any]:
        """A ladder's standings (rank, bot, rating with its interval, provisional mark, games, wins,
        faults) and its leaders' rating history."""
        info, lines = await self._standings(ladder_id)
        series = []
        for line in lines[:CHART_LEADERS]:
            points = await self._ladders().history(info.ladder_id, line.bot, CHART_POINTS)
            series.append({"label": line.bot, "points": [[p["games"], round(p["rating"], 1)] for p in points]})
        return ladder_json(info) | {
            "kind": SpecKind.LADDER.value,
            "rows": [standing_json(line) for line in lines],
            "provisional_games": PROVISIONAL_MATCHES,
            "series": series,
        }

    # --- bots ---------------------------------------------------------------------------------

    async def bot(self, name: str) -> dict[str, Any]:
        """A bot: its games, clients and versions, connection, recent matches, leagues, faults, rating history.

        Raises ``NotFoundError`` for an unknown bot.
        """
        name = name[:MAX_FILTER]
        try:
            games = await self.node.registry.games_of(name)
        except NotRegisteredForGameError as error:
            raise NotFoundError(f"no bot {echo(name)}") from error
        session = self.node.hub.sessions.get(name)
        where: str | None = None
        if session is not None and session.connection is not None:
            where = self.node.matches.relay.node_id if self.node.matches.relay is not None else ""
        elif self.node.matches.relay is not None:
            home = await self.node.matches.relay.locate(name)  # another node (or worker) of the arena
            where = None if home is None else home.node
        clients = await self.node.clients.clients(name)
        recent, _ = await self._lister().page(MatchQuery(bot=name), None, RECENT_MATCHES, PLAYED)
        boards: list[dict[str, Any]] = []
        series: list[Series] = []
        faults = Counter[str]()
        if self.node.leagues is not None:
            for info in await self.node.leagues.recent(RECENT_LEAGUES):
                if name not in info.spec.bots:
                    continue
                board = await self.league_board(info.league_id)
                row = next((r for r in board["rows"] if r["bot"] == name), None)
                if row is None:
                    continue
                faults.update(row["faults"])
                boards.append({"id": info.league_id, "name": info.name, "game": info.spec.game, "row": row})
                mine = await self._chart(info, [name])
                if mine:
                    series.append(Series(f"{info.name[:16]} ({info.league_id})", mine[0].points))
        ladders, lineage = await self._bot_ladders(name)
        for ladder in ladders:
            series.append(
                Series(
                    f"{ladder['name'][:16]} ({ladder['id']})", [(p["games"], p["rating"]) for p in ladder["history"]]
                )
            )
        return {
            "name": name,
            "games": sorted(games),
            "connected": where is not None,
            "node": where or None,
            "clients": [
                {
                    "name": c.name,
                    "version": c.version,
                    "language": KIT_LANGUAGES.get(c.name, ""),
                    "last_seen": c.last_seen,
                }
                for c in clients
            ],
            "languages": sorted({KIT_LANGUAGES[c.name] for c in clients if c.name in KIT_LANGUAGES}),
            "versions": sorted({c.version for c in clients if c.version}),
            "lineage": {"base": BotVersion.of(name).base, "bots": lineage},
            "ladders": ladders,
            "recent": [match_json(i) for i in recent],
            "boards": boards,
            "faults": {"timeouts": faults["timeouts"], "forfeits": faults["forfeits"]},
            "series": [{"label": s.label, "points": list(s.points)} for s in series],
        }

    async def _bot_ladders(self, name: str) -> tuple[list[dict[str, Any]], list[str]]:
        """The recent ladders ranking ``name`` (its line and rating history in each) and its lineage:
        every version of its base name those ladders rank, and itself."""
        base = BotVersion.of(name).base
        lineage = {name}
        shown: list[dict[str, Any]] = []
        if self.node.ladders is None:
            return shown, [name]
        for info in await self.node.ladders.recent(RECENT_LADDERS):
            _, lines = await self.node.ladders.standings(info.ladder_id)
            lineage.update(line.bot for line in lines if line.lineage.base == base)
            line = next((line for line in lines if line.bot == name), None)
            if line is None:
                continue
            points = await self.node.ladders.history(info.ladder_id, name, CHART_POINTS)
            history = [
                {
                    "at": p["at"],
                    "games": p["games"],
                    "rating": round(p["rating"], 1),
                    "rating_low": round(p["low"], 1),
                    "rating_high": round(p["high"], 1),
                }
                for p in points
            ]
            shown.append(
                {
                    "id": info.ladder_id,
                    "name": info.name,
                    "game": info.game,
                    "row": standing_json(line),
                    "history": history,
                }
            )
        return shown, sorted(lineage, key=lambda bot: (BotVersion.of(bot).version, bot))

    # --- matches ------------------------------------------------------------------------------

    async def matches(
        self, game: str, bot: str, league: str, state: str, page: str, ladder: str = ""
    ) -> dict[str, Any]:
        """One page of the match list, newest first, filtered by game, bot, league or ladder, and state.

        Raises ``BadFilterError`` for a filter value that cannot be one, ``NotFoundError`` for an unknown ladder.
        """
        if state not in STATES:
            raise BadFilterError(f"state must be running or finished, not {echo(state)}")
        phase = STATES[state]
        if max(len(game), len(bot), len(league), len(ladder)) > MAX_FILTER:
            raise BadFilterError("a filter value is at most 128 characters")
        if league and ladder:
            raise BadFilterError("filter by a league or by a ladder, not both")
        if league:
            return await self._league_matches(league, game, bot, phase, page)
        if ladder:
            if bot:
                raise BadFilterError(f"a ladder's matches are not filtered by bot: drop bot={echo(bot)}")
            try:
                info = await self._ladders().get(ladder)
            except LadderNotFoundError as error:
                raise NotFoundError(f"no ladder {echo(ladder)}") from error
            if game and game != info.game:
                return {"matches": [], "next_page": ""}
            game, ladder = "", info.ladder_id
        after = ListPosition.parse(page) if page else None
        query = MatchQuery(game, bot, phase, ladder=ladder)
        shown, following = await self._lister().page(query, after, PAGE_SIZE, PLAYED)
        return {
            "matches": [match_json(i) for i in shown],
            "next_page": following.token() if following is not None else "",
        }

    def _lister(self) -> MatchLister:
        return MatchLister(self.node.matches, self.node.leagues)

    async def _league_matches(self, league: str, game: str, bot: str, phase: Phase | None, page: str) -> dict[str, Any]:
        """A league's matches: its running ones (up to ``LEAGUE_RUNNING_SHOWN``, every node's with
        Redis), then its results, newest first. A page reads at most ``LEAGUE_RESULTS_SCANNED``
        results, whatever the league's size: a bot filter that matches few may give a short page,
        with the place to go on from (``LeaguePage``)."""
        at = LeaguePage.parse(page)
        leagues = self._leagues()
        try:
            info = await leagues.get(league)
        except KeyError as error:
            raise NotFoundError(f"no league {echo(league)}") from error
        if game and game != info.spec.game:
            return {"matches": [], "next_page": ""}
        rows: list[dict[str, Any]] = []
        if phase is not Phase.FINISHED and at.running is not None:
            query = MatchQuery(bot=bot, phase=Phase.RUNNING, league=info.league_id)
            running, _ = await self.node.matches.running_list(query, None, LEAGUE_RUNNING_SHOWN)
            rows += [match_json(i) for i in running[at.running : at.running + PAGE_SIZE]]
            if len(running) > at.running + PAGE_SIZE:
                return {"matches": rows, "next_page": LeaguePage(running=at.running + PAGE_SIZE).token()}
        if phase is Phase.RUNNING:
            return {"matches": rows, "next_page": ""}
        before, scanned = at.before, 0
        whole = info.spec.players_per_match if info.spec.duplicate else 0
        """Results a deal needs before any is shown (0: deals are not duplicated)."""
        while len(rows) < PAGE_SIZE and scanned < LEAGUE_RESULTS_SCANNED and before != 0:
            chunk = await leagues.store.results_before(info.league_id, before, RESULTS_CHUNK)
            if not chunk:
                before = 0
                break
            deals = (
                await leagues.store.deal_counts(info.league_id, [str(r.get("deal_id")) for _, r in chunk])
                if whole
                else {}
            )
            for position, stored in chunk:
                before, scanned = position, scanned + 1
                result = StoredResult.from_dict(stored)
                if whole and deals.get(str(result.deal_id), 0) < whole:
                    continue  # a rotation of a deal still being played: nothing of it is shown yet
                if not bot or bot in result.bots:
                    rows.append(result_json(result, info.spec.game, str(stored.get("record_id") or result.match_id)))
                if len(rows) == PAGE_SIZE:
                    break
        if before is None:  # the running matches filled the page: the results follow on the next
            before = info.progress.done
        following = LeaguePage(before=before).token() if before else ""
        return {"matches": rows, "next_page": following}

    async def match(self, match_id: str) -> dict[str, Any]:
        """A match: running (on any node, with Redis), or finished (its summary, faults and replay address).

        Raises ``NotFoundError`` for an unknown match, or a sealed one (running or held) withheld until
        its duplicate deal is over.
        """
        match_id = match_id[:MAX_FILTER]
        running = self.node.matches.running.get(match_id)
        if running is not None and running.seal is None:
            info = MatchSummary.of_record(running.match.record, running=True)
            return match_json(info) | {"faults": []}
        try:
            record = await self.node.matches.record(match_id)  # sealed, running anywhere or held: refused
        except MatchSealedError as error:
            raise NotFoundError(_SEALED.format(echo(match_id))) from error
        except MatchElsewhereError as error:
            elsewhere = await self.node.matches.listing.find(match_id) if self.node.matches.listing else None
            if elsewhere is None:  # it ended meanwhile
                raise NotFoundError(f"no match {echo(match_id)} running or finished now: reload the page") from error
            return match_json(elsewhere.info) | {"faults": []}
        except KeyError as error:
            raise NotFoundError(f"no finished match {echo(match_id)}, and none running") from error
        except ArenaError as error:
            raise NotFoundError(str(error)) from error
        info = MatchSummary.of_record(record)
        faults = [
            {
                "turn": r.turn,
                "seat": r.seat,
                "bot": record.bot_names[r.seat],
                "fault": r.fault.value,
                "fallback": r.fallback,
            }
            for r in record.rejections[:200]
        ]
        return match_json(info) | {"faults": faults, "turns": len(record.turns)}

    async def replay(self, match_id: str) -> dict[str, Any]:
        """A finished match's replay: every turn's state (hands included) and the actions that made it.

        Raises ``NotFoundError`` while the match runs, is withheld, or for an unknown one.
        """
        match_id = match_id[:MAX_FILTER]
        running = self.node.matches.running.get(match_id)
        if running is not None and running.seal is None:
            raise NotFoundError(f"match {echo(match_id)} is still running: its replay is released at its end")
        try:
            record = await self.node.matches.record(match_id)
        except MatchSealedError as error:
            raise NotFoundError(_SEALED.format(echo(match_id))) from error
        except KeyError as error:
            raise NotFoundError(f"no finished match {echo(match_id)}") from error
        except ArenaError as error:
            raise NotFoundError(str(error)) from error
        future = self._replays.get(match_id)
        if future is None:
            rules = self.rules_of(record.game)
            future = asyncio.ensure_future(asyncio.to_thread(replay_turns, record, rules))
            self._replays[match_id] = future
            while len(self._replays) > REPLAY_CACHE_SIZE:
                self._replays.popitem(last=False)
        try:
            turns = await asyncio.shield(future)
        except Exception:
            self._replays.pop(match_id, None)
            raise
        return {
            "match_id": record.match_id,
            "game": record.game,
            "players": list(record.bot_names),
            "outcome": record.outcome.to_dict() if record.outcome else None,
            "turns": turns,
        }


def league_json(info: LeagueInfo) -> dict[str, Any]:
    """A league's name, game, state and progress (never its seed)."""
    progress = info.progress
    return {
        "id": info.league_id,
        "name": info.name,
        "game": info.spec.game,
        "bots": list(info.spec.bots),
        "players_per_match": info.spec.players_per_match,
        "state": progress.state.value,
        "progress": {
            "total": progress.total,
            "done": progress.done,
            "running": progress.running,
            "queued": progress.queued,
            "waiting_for": dict(sorted(progress.waiting_for.items())),
            "percent": round(100 * progress.done / progress.total) if progress.total else 0,
        },
        "created_at": info.created_at,
    }


def match_json(info: MatchSummary) -> dict[str, Any]:
    """A line of a match list."""
    outcome = info.outcome
    return {
        "match_id": info.match_id,
        "game": info.game,
        "players": list(info.bot_names),
        "state": "running" if info.running else "finished",
        "outcome": outcome.to_dict() if outcome else None,
        "started_at": info.started_at,
        "ended_at": None if info.running else info.ended_at,
        "ladder_id": info.ladder_id,
    }


def ladder_json(info: LadderInfo) -> dict[str, Any]:
    """A ladder's name, game, state and figures."""
    return {
        "id": info.ladder_id,
        "name": info.name,
        "game": info.game,
        "players_per_match": info.players,
        "duplicate": info.duplicate,
        "state": info.state.value,
        "matches_done": info.done,
        "matches_open": info.open,
        "created_at": info.created_at,
    }


def standing_json(line: Standing) -> dict[str, Any]:
    """One bot's line of a ladder's standings."""
    return {
        "rank": line.rank,
        "bot": line.bot,
        "base_name": line.lineage.base,
        "version": line.lineage.version,
        "rating": round(line.rating, 1),
        "rating_low": round(line.rating_low, 1),
        "rating_high": round(line.rating_high, 1),
        "provisional": line.provisional,
        "games": line.games,
        "wins": line.wins,
        "faults": line.faults,
        "retired": line.retired,
    }


def result_json(result: StoredResult, game: str, record_id: str) -> dict[str, Any]:
    """A league result as a line of a match list (``record_id``: the id its record is kept under)."""
    return {
        "match_id": record_id,
        "game": game,
        "players": list(result.bots),
        "state": "finished",
        "outcome": {
            "termination": result.termination.value,
            "scores": list(result.scores),
            "placings": list(result.placings),
            "winners": [seat for seat, placing in enumerate(result.placings) if placing == 1],
            "forfeited": sorted(result.forfeited),
        },
        "started_at": None,
        "ended_at": None,
    }


__all__ = ["BadFilterError", "NotFoundError", "SiteData", "to_json"]
