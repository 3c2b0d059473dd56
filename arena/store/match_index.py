"""Summaries of finished matches and the queries that list them (no I/O).

A summary (:class:`MatchSummary`) is the small part of a record a list shows; the stores keep one
beside each record and index them by end time for each list filter (:func:`index_names`), so a
list reads one page of one index and never parses whole records.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any

from arena.errors import BadFilterError, echo
from arena.games.base import Outcome
from arena.referee.record import MatchRecord, outcome_from_dict
from arena.referee.timecontrol import TimeControl

RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a league's or a ladder's id can be. It is part of the store's keys (``arena:league:{id}``
and the keys beside it), so it never holds a ``:``, which would make it another key of the league
(its deal secret, say), nor a ``.``, which separates a match's number from it."""
LADDER_MATCH = re.compile(r"(LD[0-9a-f]{8})\.\d+(?:\.|$)")
"""A ladder's match: the ladder's id and the match's number (scheduled), then a run suffix (each run)."""


def ladder_of(match_id: str) -> str:
    """The ladder a match was played for ("" for any other match)."""
    found = LADDER_MATCH.match(match_id)
    return found.group(1) if found else ""


class Phase(enum.Enum):
    """Where a listed match is in its life; a list gives them in this order."""

    RUNNING = "r"
    PENDING = "p"
    FINISHED = "f"


def league_of(match_id: str) -> str:
    """The league a match id belongs to ('' for an ad-hoc match): a league's matches are named
    ``{league}.{index:05d}`` (scheduled) and ``{league}.{index:05d}.{run}`` (each run of it)."""
    if ladder_of(match_id):
        return ""
    parts = match_id.split(".")
    return parts[0] if len(parts) in (2, 3) and len(parts[1]) == 5 and parts[1].isdigit() else ""


def scheduled_of(match_id: str) -> str:
    """The scheduled match a run of a league's match is of (``{league}.{index:05d}``); any other id as it is."""
    parts = match_id.split(".")
    return ".".join(parts[:2]) if league_of(match_id) else match_id


@dataclasses.dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of a match list."""

    match_id: str
    game: str
    bot_names: list[str]
    """The bots in seat order."""
    options: dict[str, Any]
    time_control: TimeControl
    outcome: Outcome | None
    started_at: float
    ended_at: float
    phase: Phase = Phase.FINISHED
    created_at: float = 0.0
    """When it was queued (its league's creation); 0: its start."""

    @property
    def running(self) -> bool:
        """Whether it is being played."""
        return self.phase is Phase.RUNNING

    @property
    def league_id(self) -> str:
        """Its league ('' for an ad-hoc match)."""
        return league_of(self.match_id)

    @property
    def queued_at(self) -> float:
        """When it was queued: its league's creation, else its start."""
        return self.created_at or self.started_at

    @property
    def ladder_id(self) -> str:
        """The ladder the match was played for ("" for any other)."""
        return ladder_of(self.match_id)

    @property
    def position(self) -> Position:
        """Where this summary stands in its phase: running ones by start, queued ones by their
        league's creation, finished ones by end."""
        if self.phase is Phase.PENDING:
            return (self.created_at, self.match_id)
        return (self.started_at if self.running else self.ended_at, self.match_id)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the summary stored beside each record)."""
        return {
            "match_id": self.match_id,
            "game": self.game,
            "bot_names": list(self.bot_names),
            "options": self.options,
            "time_control": self.time_control.to_dict(),
            "outcome": self.outcome.to_dict() if self.outcome else None,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSummary:
        """Read :meth:`to_dict` back (a finished match)."""
        outcome = data.get("outcome")
        return cls(
            str(data["match_id"]),
            str(data["game"]),
            [str(p) for p in data["bot_names" if "bot_names" in data else "players"]],
            dict(data.get("options") or {}),
            TimeControl.from_dict(data["time_control"]),
            outcome_from_dict(outcome) if outcome else None,
            float(data["started_at"]),
            float(data["ended_at"]),
        )

    @classmethod
    def of_record(cls, record: MatchRecord, running: bool = False) -> MatchSummary:
        """The summary of a record."""
        return cls(
            record.match_id,
            record.game,
            list(record.bot_names),
            record.options,
            record.time_control,
            record.outcome,
            record.started_at,
            record.ended_at,
            Phase.RUNNING if running else Phase.FINISHED,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class MatchQuery:
    """Which matches a list wants: empty strings and ``None`` mean any."""

    game: str = ""
    bot: str = ""
    phase: Phase | None = None
    league: str = ""
    ladder: str = ""
    """A ladder's matches (never combined with game or bot: it has an index of its own)."""

    def __post_init__(self) -> None:
        for kind, value in (("league", self.league), ("ladder", self.ladder)):
            if value and not RUN_ID.fullmatch(value):
                raise BadFilterError(f"{echo(value)} is not a {kind} id")

    def fits(self, info: MatchSummary) -> bool:
        """Whether ``info`` is one of them."""
        return (
            (not self.ladder or info.ladder_id == self.ladder)
            and (not self.game or info.game == self.game)
            and (not self.bot or self.bot in info.bot_names)
            and (self.phase is None or info.phase is self.phase)
            and (not self.league or info.league_id == self.league)
        )

    def wants(self, phase: Phase) -> bool:
        """Whether matches in ``phase`` may fit."""
        return self.phase is None or self.phase is phase

    def index_keys(self) -> tuple[str, ...]:
        """The index that holds exactly the finished matches fitting the filters (or the ladder's).
        A league has one game: with a league, the game filter is the caller's to check against it."""
        if self.ladder:
            return ("ladder", self.ladder)
        first: tuple[str, ...] = ("league", self.league) if self.league else ("game", self.game) if self.game else ()
        bot: tuple[str, ...] = ("bot", self.bot) if self.bot else ()
        return first + bot


Position = tuple[float, str]
"""Where a list stands: the (time, match id) of the last summary returned."""


def index_names(info: MatchSummary) -> list[tuple[str, ...]]:
    """Every index a finished match is listed in: all, by game, by bot, by game and bot, for a
    league's match by league and by league and bot, and for a ladder's by ladder."""
    names: list[tuple[str, ...]] = [(), ("game", info.game)]
    league = info.league_id
    if league:
        names.append(("league", league))
    for bot in sorted(set(info.bot_names)):
        names += [("bot", bot), ("game", info.game, "bot", bot)]
        if league:
            names.append(("league", league, "bot", bot))
    if info.ladder_id:
        names.append(("ladder", info.ladder_id))
    return names
