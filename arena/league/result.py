"""A stored match result, and its decomposition into pairwise games.

A :class:`StoredResult` is what the store keeps per match (JSON via ``to_dict``/``from_dict``,
never pickle) and all that ratings and league tables are rebuilt from.

Pairwise decomposition (used by Elo, Bradley–Terry and the table's points): every pair of seats
of a k-player match is one game between their bots; the better placing wins, an equal placing is
a draw. Forfeited seats are already placed last by the :class:`~arena.games.base.Outcome`. Two
seats held by the same bot are not a game (a bot learns nothing from beating itself).
``ABORTED`` matches are not rated at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.games.base import Outcome, Seat, Termination


@dataclasses.dataclass(frozen=True, slots=True)
class PairGame:
    """One pairwise game of a match: ``score`` is 1 if ``first`` placed better, ½ if equal, else 0."""

    first: str
    second: str
    score: float
    weight: float
    """``1 / (k - 1)`` for a k-player match, so every bot's games in one match weigh 1 in all."""


@dataclasses.dataclass(frozen=True, slots=True)
class StoredResult:
    """The result of one match, seat by seat.

    ``timeouts[seat]`` counts that seat's late decisions (all zeros when not recorded);
    ``deal_id`` groups the matches of one duplicate deal (``None``: the match is its own deal).
    """

    match_id: str
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    placings: tuple[int, ...]
    termination: Termination = Termination.NORMAL
    forfeited: frozenset[Seat] = frozenset()
    timeouts: tuple[int, ...] = ()
    deal_id: str | None = None

    def __post_init__(self) -> None:
        k = len(self.bots)
        object.__setattr__(self, "bots", tuple(self.bots))
        object.__setattr__(self, "scores", tuple(self.scores))
        object.__setattr__(self, "placings", tuple(self.placings))
        object.__setattr__(self, "forfeited", frozenset(self.forfeited))
        object.__setattr__(self, "timeouts", tuple(self.timeouts) or (0,) * k)
        if k < 1 or not (len(self.scores) == len(self.placings) == len(self.timeouts) == k):
            raise ValueError(
                f"result {self.match_id!r}: bots, scores, placings and timeouts must have one entry per seat ({k})"
            )
        if any(not 1 <= p <= k for p in self.placings):
            raise ValueError(f"result {self.match_id!r}: placings must be in 1..{k}: {self.placings}")
        if any(not 0 <= s < k for s in self.forfeited):
            raise ValueError(f"result {self.match_id!r}: no seat {sorted(self.forfeited)} to forfeit")

    @classmethod
    def from_outcome(
        cls,
        match_id: str,
        bots: Sequence[str],
        outcome: Outcome,
        timeouts: Sequence[int] = (),
        deal_id: str | None = None,
    ) -> StoredResult:
        """The result of a match between ``bots`` (in seat order) that ended in ``outcome``."""
        return cls(
            match_id=match_id,
            bots=tuple(bots),
            scores=outcome.scores,
            placings=outcome.placings,
            termination=outcome.termination,
            forfeited=outcome.forfeited,
            timeouts=tuple(timeouts),
            deal_id=deal_id,
        )

    @property
    def is_rated(self) -> bool:
        """Whether ratings count this match (every termination but ``ABORTED``)."""
        return self.termination is not Termination.ABORTED

    def pair_games(self) -> list[PairGame]:
        """The pairwise decomposition (see the module docstring); empty if not rated."""
        k = len(self.bots)
        if not self.is_rated or k < 2:
            return []
        weight = 1.0 / (k - 1)
        games = []
        for i in range(k):
            for j in range(i + 1, k):
                if self.bots[i] == self.bots[j]:
                    continue
                pi, pj = self.placings[i], self.placings[j]
                score = 1.0 if pi < pj else 0.5 if pi == pj else 0.0
                games.append(PairGame(self.bots[i], self.bots[j], score, weight))
        return games

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "match_id": self.match_id,
            "bots": list(self.bots),
            "scores": list(self.scores),
            "placings": list(self.placings),
            "termination": self.termination.value,
            "forfeited": sorted(self.forfeited),
            "timeouts": list(self.timeouts),
            "deal_id": self.deal_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StoredResult:
        """Read :meth:`to_dict`'s form back (``forfeited``, ``timeouts``, ``deal_id`` optional)."""
        deal = data.get("deal_id")
        return cls(
            match_id=str(data["match_id"]),
            bots=tuple(str(b) for b in data["bots"]),
            scores=tuple(int(s) for s in data["scores"]),
            placings=tuple(int(p) for p in data["placings"]),
            termination=Termination(data.get("termination", Termination.NORMAL.value)),
            forfeited=frozenset(int(s) for s in data.get("forfeited", ())),
            timeouts=tuple(int(t) for t in data.get("timeouts", ())),
            deal_id=None if deal is None else str(deal),
        )


def unique_results(results: Iterable[StoredResult]) -> list[StoredResult]:
    """The results with each match id once (the first kept), in their order: a re-run counts once."""
    seen: set[str] = set()
    unique = []
    for result in results:
        if result.match_id not in seen:
            seen.add(result.match_id)
            unique.append(result)
    return unique
