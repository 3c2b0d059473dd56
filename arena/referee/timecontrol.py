"""Time control: a per-decision allowance plus a per-match time bank, strikes and a grace period."""

from __future__ import annotations

import dataclasses
from typing import Any

from arena.errors import TimeControlError


@dataclasses.dataclass(frozen=True, slots=True)
class TimeControl:
    """How long a seat may think, and how much failure it is allowed.

    Each decision may take ``decision_allowance`` seconds; time beyond that is drawn from the seat's
    ``time_bank`` (seconds) for the whole match. A decision not answered when both are spent times out.
    Every late, illegal or unparseable answer is a strike; at ``strike_limit`` the seat is forfeited.
    A seat whose bot disconnects and does not come back within ``disconnect_grace`` seconds is
    forfeited. The names are the wire's (``TimeControl`` in proto/arena/v1/common.proto).

    Raises ``TimeControlError`` for a non-positive allowance, a negative bank or grace, or a strike
    limit below 1.
    """

    decision_allowance: float = 1.0
    time_bank: float = 10.0
    strike_limit: int = 3
    disconnect_grace: float = 10.0

    def __post_init__(self) -> None:
        if self.decision_allowance <= 0 or self.time_bank < 0 or self.disconnect_grace < 0:
            raise TimeControlError(f"time control needs a positive allowance and non-negative bank and grace: {self}")
        if self.strike_limit < 1:
            raise TimeControlError(f"strike_limit must be at least 1, not {self.strike_limit}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        """Read the JSON form back (also the form stored before the fields took the wire's names);
        raises ``TimeControlError`` as the constructor does."""
        data = {_OLD_NAMES.get(key, key): value for key, value in data.items()}
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})


_OLD_NAMES = {
    "decision_seconds": "decision_allowance",
    "bank_seconds": "time_bank",
    "max_strikes": "strike_limit",
    "grace_seconds": "disconnect_grace",
}
"""The JSON keys of records and specs stored before the rename, read as the new ones."""
