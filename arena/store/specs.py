"""How a league's (or a ladder's) queued matches are played, as its stored spec says.

A league's stored spec is ``LeagueSpec.to_dict()`` plus its name, time control and creation time
(``arena.service.leagues``); a ladder's is its own (``arena.service.ladders``), with ``"kind":
"ladder"``. Both live at ``arena:league:{id}``; the referee worker reads either through
:meth:`PlaySpec.parse`, once per league, which names the field and value that do not read.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from arena.errors import StoredDataError, clip, echo
from arena.referee.timecontrol import TimeControl


class SpecKind(enum.StrEnum):
    """What a stored spec at ``arena:league:{id}`` is (its ``"kind"`` field; a league's has none)."""

    LEAGUE = "league"
    LADDER = "ladder"

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> SpecKind:
        """The kind of a stored spec; raises ``StoredDataError`` naming a kind that is neither."""
        value = stored.get("kind", cls.LEAGUE.value)
        try:
            return cls(value)
        except ValueError:
            raise StoredDataError(f"unknown spec kind {echo(str(value))}: one of {[k.value for k in cls]}") from None


@dataclasses.dataclass(frozen=True, slots=True)
class PlaySpec:
    """The part of a league's or ladder's stored spec that plays its matches."""

    kind: SpecKind = SpecKind.LEAGUE
    game: str = ""
    """Empty for a league stored before leagues named their game (the worker's default game plays)."""
    players_per_match: int = 1
    duplicate: bool = False
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def deal_size(self) -> int:
        """How many matches play one deal (the rotations of a duplicate deal; else 1)."""
        return self.players_per_match if self.duplicate else 1

    def to_dict(self) -> dict[str, Any]:
        """The stored form of these fields (a league's spec has no ``kind``; a ladder's does)."""
        data: dict[str, Any] = {} if self.kind is SpecKind.LEAGUE else {"kind": self.kind.value}
        return data | {
            "game": self.game,
            "players_per_match": self.players_per_match,
            "duplicate": self.duplicate,
            "time_control": self.time_control.to_dict(),
            "options": dict(self.options),
        }

    @classmethod
    def parse(cls, league_id: str, stored: Mapping[str, Any]) -> PlaySpec:
        """Read a stored spec (missing fields take their defaults). Raises ``StoredDataError`` naming
        the league, the field and its value when a field does not read."""
        try:
            kind = SpecKind.of(stored)
        except StoredDataError as error:
            raise StoredDataError(f"league {echo(league_id)}: {error}") from None
        read = _Reader(league_id, stored)
        return cls(
            kind,
            read("game", "", lambda v: _typed(v or "", str)),
            read("players_per_match", 1, lambda v: _typed(v, int)),
            read("duplicate", False, lambda v: _typed(v, bool)),
            read("time_control", {}, _time_control),
            read("options", {}, _mapping),
        )


T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True)
class _Reader:
    league_id: str
    stored: Mapping[str, Any]

    def __call__(self, field: str, default: Any, convert: Callable[[Any], T]) -> T:
        value = self.stored.get(field, default)
        try:
            return convert(value)
        except (TypeError, ValueError) as error:
            why = f" ({error})" if str(error) else ""
            raise StoredDataError(
                f"league {echo(self.league_id)} has a stored {field} that does not read: {clip(repr(value))}{why}"
            ) from None


def _typed(value: Any, kind: type[T]) -> T:
    """``value`` if it is a ``kind`` (a bool is no int here); else ``TypeError``."""
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"not {kind.__name__}")
    return value


def _mapping(value: Any) -> dict[str, Any]:
    """A JSON object (``None``: empty); else ``TypeError``."""
    if not isinstance(value or {}, Mapping):
        raise TypeError("not an object")
    return dict(value or {})


def _time_control(value: Any) -> TimeControl:
    data = _mapping(value)
    for name, number in data.items():
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise TypeError(f"{name} is not a number")
    return TimeControl.from_dict(dict(data))  # TimeControlError is a ValueError
