"""A league's Elo lines, carried forward result by result as its results are stored.

The site charts each league's bots' Elo ratings after each rated result. Computed afresh, a chart
costs a read of every result of the league; carried forward (:class:`EloLines`), each result is
read and rated once, whoever asks and however often, and a view costs the results stored since the
last. A duplicate deal's results are rated together once the deal is whole, as the leaderboard
counts whole deals only. A line keeps at most ``CHART_POINTS`` points and its latest: past that,
every other point goes and points are kept half as often.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.league.elo import INITIAL_RATING, EloLadder
from arena.league.result import StoredResult
from arena.web.chart import Series

CHART_POINTS = 60
"""Points a line keeps (and its latest)."""


@dataclasses.dataclass
class EloLines:
    """The Elo lines of a league's ``bots`` over the results taken in so far (``take``)."""

    bots: tuple[str, ...]
    deal_size: int = 1
    """Results a deal needs before they are rated (1: deals are not duplicated)."""
    taken: int = 0
    """Results of the league's list taken in (their positions are below this)."""
    rated: int = 0
    every: int = 1
    """A point is kept every this many rated results."""
    ladder: EloLadder = dataclasses.field(default_factory=EloLadder)
    points: dict[str, list[tuple[float, float]]] = dataclasses.field(default_factory=dict)
    waiting: dict[str, list[StoredResult]] = dataclasses.field(default_factory=dict)
    """The results of duplicate deals not yet whole, by deal."""
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock, repr=False)
    """Held by the view that carries the lines forward (``take`` runs off the event loop)."""
    kept: int = 0
    """``taken`` when the lines were last kept in the store (``to_dict``)."""

    def __post_init__(self) -> None:
        if not self.points:
            self.points = {bot: [(0, INITIAL_RATING)] for bot in self.bots}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: its size grows with the bots and the unfinished deals, not the results."""
        return {
            "bots": list(self.bots),
            "deal_size": self.deal_size,
            "taken": self.taken,
            "rated": self.rated,
            "every": self.every,
            "ladder": self.ladder.to_dict(),
            "points": {bot: [list(point) for point in points] for bot, points in self.points.items()},
            "waiting": {deal: [r.to_dict() for r in results] for deal, results in self.waiting.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EloLines:
        """Read :meth:`to_dict`'s form back (as kept: ``kept`` is its ``taken``)."""
        taken = int(data["taken"])
        return cls(
            bots=tuple(str(b) for b in data["bots"]),
            deal_size=int(data["deal_size"]),
            taken=taken,
            rated=int(data["rated"]),
            every=int(data["every"]),
            ladder=EloLadder.from_dict(data["ladder"]),
            points={str(b): [(int(x), y) for x, y in points] for b, points in data["points"].items()},
            waiting={str(d): [StoredResult.from_dict(r) for r in rs] for d, rs in data["waiting"].items()},
            kept=taken,
        )

    def encode(self) -> bytes:
        """``to_dict`` as JSON, to be kept in the store."""
        return json.dumps(self.to_dict(), separators=(",", ":")).encode()

    @classmethod
    def decode(cls, kept: str | bytes) -> EloLines | None:
        """Lines ``encode`` kept; None for what is not such lines (kept by another version)."""
        try:
            return cls.from_dict(json.loads(kept))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def take(self, stored: Iterable[Mapping[str, Any]], upto: int) -> None:
        """Take in the stored results at positions ``taken`` to ``upto`` (in their order; each
        match's result is in a league's list once). Then ``taken`` is ``upto``."""
        for raw in stored:
            result = StoredResult.from_dict(dict(raw))
            if self.deal_size <= 1:
                self._rate(result)
                continue
            deal = self.waiting.setdefault(str(result.deal_id), [])
            deal.append(result)
            if len(deal) >= self.deal_size:
                del self.waiting[str(result.deal_id)]
                for whole in deal:
                    self._rate(whole)
        self.taken = upto

    def _rate(self, result: StoredResult) -> None:
        self.ladder.update(result)
        self.rated += 1
        if self.rated % self.every:
            return
        for bot in self.bots:
            self.points[bot].append((self.rated, round(self.ladder.rating(bot), 1)))
        if self.bots and len(self.points[self.bots[0]]) > CHART_POINTS:
            self.every *= 2
            for bot in self.bots:
                self.points[bot] = [point for point in self.points[bot] if point[0] % self.every == 0]

    def series(self) -> list[Series]:
        """Each bot's line to the latest rated result (none before the first)."""
        if not self.rated:
            return []
        lines = []
        for bot in self.bots:
            points = self.points[bot]
            if points[-1][0] != self.rated:
                points = [*points, (self.rated, round(self.ladder.rating(bot), 1))]
            lines.append(Series(bot, points))
        return lines


def elo_series(
    stored: Sequence[Mapping[str, Any]], bots: Sequence[str], duplicate: bool, deal_size: int
) -> list[Series]:
    """The Elo lines of ``bots`` over these stored results, in their order (all at once)."""
    lines = EloLines(tuple(bots), deal_size if duplicate else 1)
    lines.take(stored, len(stored))
    return lines.series()
