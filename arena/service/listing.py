"""Match lists: running, queued (PENDING) and finished matches, filtered before they are paged.

A list walks the phases in order (:class:`Phase`): the running matches (with Redis, every node's,
from the running index of :mod:`arena.store.running`; without, this node's), then the queued
matches of active leagues, then the finished ones from the record store's index for the filters.
A sealed match (a rotation of a duplicate deal) is in no phase's list until its deal is released,
whoever asks: the running lists leave it out, and the record store holds its record apart.
The filters apply inside each phase before a page is cut, so no page misses a match. Each call does
bounded work: the running part is one range of the running index (at most its ``SCAN`` entries)
or this node's matches, the finished part one index range, the queued part at most
``PENDING_SCAN`` schedule slots; a page cut short by such a bound still carries a page token, and
the next call goes on from there.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from collections.abc import Sequence

from arena.errors import InvalidPageTokenError
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.service.matches import MATCH_ID, MatchManager
from arena.store.match_index import MatchQuery, MatchSummary, Phase, Position, ladder_of, league_of
from arena.store.specs import SpecKind

PENDING_SCAN = 1000
"""The most schedule slots of leagues one list call looks at for queued matches."""
PHASES = (Phase.RUNNING, Phase.PENDING, Phase.FINISHED)


@dataclasses.dataclass(frozen=True, slots=True)
class ListPosition:
    """Where a match list stands, as an opaque page token: the phase, and in it the (time, match
    id) of the last summary given (for queued matches: the league's creation and the next match
    to look at)."""

    phase: Phase
    position: Position

    def token(self) -> str:
        """The opaque page token."""
        text = f"{self.phase.value}:{self.position[0]!r}:{self.position[1]}"
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    @classmethod
    def parse(cls, token: str) -> ListPosition:
        """Read :meth:`token` back; ``InvalidPageTokenError`` names a token that is not one."""
        try:
            text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
            phase, stamp, match_id = text.split(":", 2)
            moment = float(stamp)
            kind = Phase(phase)
        except (ValueError, UnicodeError) as error:
            raise InvalidPageTokenError(_bad_token(token)) from error
        if not math.isfinite(moment) or not MATCH_ID.fullmatch(match_id):
            raise InvalidPageTokenError(_bad_token(token))
        if kind is Phase.PENDING and not (league_of(match_id) or ladder_of(match_id)):
            raise InvalidPageTokenError(_bad_token(token))
        return cls(kind, (moment, match_id))


def _bad_token(token: str) -> str:
    return f"invalid page token {token[:40]!r}: pass the next_page_token of the previous ListMatches answer"


class MatchLister:
    """Pages of match summaries for a node's matches and, with Redis, its arena's (every node's
    running matches, the leagues' queued ones, every finished one)."""

    def __init__(self, matches: MatchManager, leagues: LeagueService | None) -> None:
        self.matches = matches
        self.leagues = leagues

    async def page(
        self, query: MatchQuery, after: ListPosition | None, limit: int, phases: Sequence[Phase] = PHASES
    ) -> tuple[list[MatchSummary], ListPosition | None]:
        """Up to ``limit`` summaries fitting ``query`` after ``after``, in ``phases`` only, and
        where the next page starts (None: there is none)."""
        if query.league and self.leagues is not None:
            spec = await self.leagues.store.spec(query.league)
            if spec is None or (query.game and spec.get("game") != query.game):
                return [], None
        page: list[MatchSummary] = []
        start = PHASES.index(after.phase) if after is not None else 0
        for phase in PHASES[start:]:
            if not query.wants(phase) or phase not in phases:
                continue
            need = limit - len(page)
            if need == 0:  # the page is full: the next one goes on after its last summary
                return await self._dated(page), ListPosition(page[-1].phase, page[-1].position)
            position = after.position if after is not None and after.phase is phase else None
            if phase is Phase.PENDING:
                queued, resume = await self._queued(query, position, need)
                page += queued
                if resume is not None:
                    return await self._dated(page), ListPosition(Phase.PENDING, resume)
                continue
            if phase is Phase.RUNNING:
                found, resume = await self.matches.running_list(query, position, need + 1)
                if resume is not None:
                    page += found
                    return await self._dated(page), ListPosition(Phase.RUNNING, resume)
            else:
                found = await self.matches.store.page(query, position, need + 1)
            if len(found) > need:
                page += found[:need]
                return await self._dated(page), ListPosition(phase, page[-1].position)
            page += found
        return await self._dated(page), None

    async def dated(self, info: MatchSummary) -> MatchSummary:
        """``info`` with its queueing time, for a league match."""
        return (await self._dated([info]))[0]

    async def _dated(self, page: list[MatchSummary]) -> list[MatchSummary]:
        """The page with each league match's queueing time (its league's creation)."""
        leagues = sorted({info.league_id for info in page if info.league_id and not info.created_at})
        if not leagues or self.leagues is None:
            return page
        created = await self.leagues.store.created_at(leagues)
        return [
            dataclasses.replace(info, created_at=created[info.league_id]) if info.league_id in created else info
            for info in page
        ]

    async def _queued(
        self, query: MatchQuery, after: Position | None, limit: int
    ) -> tuple[list[MatchSummary], Position | None]:
        """Up to ``limit`` queued league matches after ``after`` (newest league first, each in
        schedule order), and the position of the last one covered when the list goes on (None: the
        queued matches are done)."""
        if self.leagues is None:
            return [], None
        store = self.leagues.store
        ids = [query.league or query.ladder] if query.league or query.ladder else await store.active_ids()
        created = await store.created_at(ids)
        order = sorted(created.items(), key=lambda item: (item[1], item[0]), reverse=True)
        after_league, after_index = "", -1
        if after is not None:
            after_league = league_of(after[1]) or ladder_of(after[1])
            after_index = int(after[1].split(".")[1])
            order = [(i, c) for i, c in order if (c, i) < (after[0], after_league) or i == after_league]
        found: list[MatchSummary] = []
        budget = PENDING_SCAN
        for league_id, created_at in order:
            spec = await store.spec(league_id) or {}
            start = after_index + 1 if league_id == after_league else 0
            if SpecKind.of(spec) is SpecKind.LADDER:  # its queued matches are its few open ones
                for match in await store.waiting(league_id):
                    info = _queued_info(match, spec, created_at)
                    if int(match.get("index", -1)) >= start and query.fits(info):
                        found.append(info)
                        if len(found) == limit:
                            return found, info.position
                continue
            while True:
                if budget <= 0:
                    return found, (created_at, f"{league_id}.{start - 1:05d}")
                count = min(budget, 250)
                scheduled, total = await store.queued(league_id, start, count)
                budget -= count
                for match in scheduled:
                    info = _queued_info(match, spec, created_at)
                    if query.fits(info):
                        found.append(info)
                        if len(found) == limit:
                            return found, info.position
                start += count
                if start >= total:
                    break
        return found, None


def _queued_info(match: dict[str, object], spec: dict[str, object], created_at: float) -> MatchSummary:
    """The summary of a scheduled match still to be played."""
    time_control = spec.get("time_control")
    options = match.get("options") or spec.get("options") or {}
    return MatchSummary(
        str(match["match_id"]),
        str(spec.get("game", match.get("game", ""))),
        [str(b) for b in match.get("bots", [])],  # type: ignore[attr-defined]
        dict(options),  # type: ignore[call-overload]
        TimeControl.from_dict(time_control if isinstance(time_control, dict) else {}),
        None,
        0.0,
        0.0,
        Phase.PENDING,
        created_at,
    )
