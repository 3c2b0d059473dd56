"""Time control: a per-decision allowance plus a per-match time bank, strikes and a grace period."""

from __future__ import annotations

import dataclasses
from typing import Any

from arena.errors import TimeControlError


@dataclasses.dataclass(frozen=True, slots=True)
class TimeControl:
    """How long a seat may think, and how much failure it is allowed.

    Each decision may take ``decision_seconds``; time beyond that is drawn from the seat's
    ``bank_seconds`` for the whole match. A decision not answered when both are spent times out.
    Every late, illegal or unparseable answer is a strike; at ``max_strikes`` the seat is forfeited.
    A seat whose bot disconnects and does not come back within ``grace_seconds`` is forfeited.
    """

    decision_seconds: float = 1.0
    bank_seconds: float = 10.0
    max_strikes: int = 3
    grace_seconds: float = 10.0

    def __post_init__(self) -> None:
        if self.decision_seconds <= 0 or self.bank_seconds < 0 or self.grace_seconds < 0:
            raise TimeControlError(f"time control needs a positive allowance and non-negative bank and grace: {self}")
        if self.max_strikes < 1:
            raise TimeControlError(f"max_strikes must be at least 1, not {self.max_strikes}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        """Read the JSON form back."""
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})
