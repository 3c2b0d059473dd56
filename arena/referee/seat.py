"""How the referee reaches the seats of a match: the ``SeatClient`` protocol and its messages.

A transport (the gRPC layer, or an in-process bot) implements ``SeatClient`` once per seat. The
referee sends it the match start, one decision request at a time, rejections and the match end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Sequence
from typing import Any, NamedTuple, Protocol

from arena.games.base import Outcome, Seat
from arena.referee.record import Fault
from arena.referee.timecontrol import TimeControl


@dataclasses.dataclass(frozen=True, slots=True)
class MatchStart:
    """Sent to every seat when a match begins."""

    match_id: str
    game: str
    seat: Seat
    players: tuple[str, ...]
    """The bot name at each seat."""
    time_control: TimeControl
    options: dict[str, Any]


class DecisionRequest(NamedTuple):
    """Asks one seat for one action. ``sequence`` must be echoed with the answer.

    A named tuple rather than a frozen dataclass: the referee builds one a decision, and a frozen
    dataclass of ten fields costs about four times as much to build (3.7 against 0.9 µs)."""

    match_id: str
    game: str
    sequence: int
    seat: Seat
    observation: Any
    """The game's observation for this seat: exactly what it may know."""
    legal_actions: Sequence[str]
    action_hint: str
    deadline: float
    """Wall-clock Unix time by which the answer must arrive (allowance plus remaining bank)."""
    allowance: float
    """Seconds this decision may take without spending the time bank (the match's ``decision_allowance``)."""
    time_bank: float
    """Seconds of time bank left for the match before this decision."""


@dataclasses.dataclass(frozen=True, slots=True)
class Rejection:
    """Tells a seat its answer was not used, why, and what was played instead."""

    match_id: str
    sequence: int
    seat: Seat
    fault: Fault
    """A strike: ``TIMEOUT``, ``INVALID`` (does not parse) or ``ILLEGAL`` (not legal now)."""
    reason: str
    fallback_action: str
    strikes: int
    strike_limit: int


@dataclasses.dataclass(frozen=True, slots=True)
class MatchEnd:
    """Sent to every seat when the match is over, however it ended."""

    match_id: str
    seat: Seat
    outcome: Outcome


class SeatClient(Protocol):
    """One seat's bot, as the referee sees it. Implementations must not block the event loop."""

    @property
    def is_connected(self) -> bool:
        """Whether the bot is reachable now (a decision missed while it is not costs no strike)."""
        ...

    async def match_started(self, start: MatchStart) -> None:
        """The match has begun."""
        ...

    def decide(self, request: DecisionRequest) -> Awaitable[str]:
        """The bot's answer, as action text: a coroutine or a future. The referee bounds the wait
        by the deadline and cancels it then.

        Raises (or resolves with) ``SeatGoneError`` when the bot is gone for good.
        """
        ...

    async def rejected(self, rejection: Rejection) -> None:
        """The last answer was late, illegal or unparseable; a fallback was played."""
        ...

    async def match_ended(self, end: MatchEnd) -> None:
        """The match is over."""
        ...
