"""The values a bot sees: a match's facts, one turn to act in, a match's result.

Each wraps the wire message it came from (``.message``) and adds the engine's view where the arena's
catalogue knows the game. Nothing here names a game: a turn carries the game's name (from
``MatchStarted``) and the observation envelope (its ``oneof game``); the typed helpers of each game
are in ``arena_bot.games.<game>``.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from typing import Any

from google.protobuf.message import Message

from arena import catalogue, wire
from arena.games.base import Outcome
from arena.v1 import bot_pb2, common_pb2

log = logging.getLogger("arena_bot")


@dataclasses.dataclass(frozen=True, slots=True)
class TimeControl:
    """A match's time control, in seconds (see ``TimeControl`` in proto/arena/v1/common.proto)."""

    decision_allowance: float
    """Time each decision may take without touching the time bank."""
    time_bank: float
    """Extra time for the whole match, spent by decisions longer than the allowance."""
    strike_limit: int
    """Late, invalid or illegal actions that make the seat forfeit."""
    disconnect_grace: float
    """How long a dropped connection has to come back before its seats forfeit."""

    @classmethod
    def from_proto(cls, message: common_pb2.TimeControl) -> TimeControl:
        """Read the wire form."""
        return cls(
            decision_allowance=wire.duration_from_proto(message.decision_allowance),
            time_bank=wire.duration_from_proto(message.time_bank),
            strike_limit=message.strike_limit,
            disconnect_grace=wire.duration_from_proto(message.disconnect_grace),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class MatchInfo:
    """A match the bot plays in, as announced by ``MatchStarted``."""

    match_id: str
    game: str
    seat: int
    """The bot's seat, 0-based."""
    num_players: int
    bot_names: tuple[str, ...]
    """The bot names in seat order."""
    time_control: TimeControl
    options: dict[str, Any]
    """The game's rules options (e.g. ``{"long_game": False}``)."""
    message: bot_pb2.MatchStarted

    @classmethod
    def from_proto(cls, message: bot_pb2.MatchStarted) -> MatchInfo:
        """Read the wire form."""
        return cls(
            match_id=message.match_id,
            game=message.game,
            seat=message.seat,
            num_players=message.num_players,
            bot_names=tuple(message.bot_names),
            time_control=TimeControl.from_proto(message.time_control),
            options=wire.options_from_proto(message.options),
            message=message,
        )


@dataclasses.dataclass(frozen=True)
class Turn:
    """One decision to make: what the seat may know, what it may do, and how long it has.

    Return one of ``legal_actions`` (or any value whose ``str()`` is an action in the game's
    notation, such as an engine action) from ``Bot.act``.
    """

    match_id: str
    sequence: int
    """The request's sequence number; the SDK echoes it for you."""
    game: str
    """The game's name, from the match's ``MatchStarted`` (or the observation's envelope)."""
    seat: int
    legal_actions: tuple[str, ...]
    """Every distinct legal action now, in the game's notation (e.g. ``"G3 Y1"``)."""
    action_hint: str
    """One line saying what a legal action looks like."""
    allowance: float
    """Seconds this decision may take without spending the time bank."""
    time_bank: float
    """Seconds left in the seat's time bank for the match."""
    received_at: float
    """``time.monotonic()`` when the request arrived."""
    match: MatchInfo | None
    """The match's facts (None if its ``MatchStarted`` was not seen)."""
    message: bot_pb2.ActionRequest
    """The wire message, for anything not surfaced above."""

    @classmethod
    def from_proto(
        cls, message: bot_pb2.ActionRequest, match: MatchInfo | None = None, received_at: float | None = None
    ) -> Turn:
        """Build a turn from an ``ActionRequest`` (also handy to test a bot offline)."""
        game = match.game if match is not None else (catalogue.game_of(message.observation) or "")
        return cls(
            match_id=message.match_id,
            sequence=message.sequence,
            game=game,
            seat=message.seat,
            legal_actions=tuple(message.legal_actions),
            action_hint=message.action_hint,
            allowance=wire.duration_from_proto(message.allowance),
            time_bank=wire.duration_from_proto(message.time_bank),
            received_at=time.monotonic() if received_at is None else received_at,
            match=match,
            message=message,
        )

    @functools.cached_property
    def observation(self) -> Any:
        """The engine's observation of the game (``arena_bot.games.<game>.observation`` gives it typed);
        None for a game the installed ``arena`` package does not know (use ``game_observation``
        then). Converted from the wire on first use, so bots that never look pay nothing."""
        message = self.message
        if message.observation.WhichOneof("game") is None or self.game not in catalogue.names():
            return None
        try:
            return catalogue.observation_from_proto(message.observation)
        except wire.WireError:
            log.warning("match %s: could not read the observation", message.match_id, exc_info=True)
            return None

    @property
    def deadline(self) -> float:
        """The ``time.monotonic()`` instant after which the action is late (allowance plus bank)."""
        return self.received_at + self.allowance + self.time_bank

    def time_left(self) -> float:
        """Seconds left before the action is late (0 when it already is)."""
        return max(0.0, self.deadline - time.monotonic())

    def free_time_left(self) -> float:
        """Seconds left before the decision starts spending the time bank."""
        return max(0.0, self.received_at + self.allowance - time.monotonic())

    @property
    def game_observation(self) -> Message | None:
        """The game's own wire message (the set field of the observation's ``oneof game``), whatever the game."""
        field = self.message.observation.WhichOneof("game")
        return None if field is None else getattr(self.message.observation, field)


@dataclasses.dataclass(frozen=True, slots=True)
class MatchResult:
    """A match the bot played in has ended."""

    match_id: str
    seat: int
    outcome: Outcome | None
    """The result (None only if the server sent an unreadable one)."""
    match: MatchInfo | None
    message: bot_pb2.MatchEnded

    @classmethod
    def from_proto(cls, message: bot_pb2.MatchEnded, match: MatchInfo | None = None) -> MatchResult:
        """Read the wire form."""
        outcome = None
        try:
            outcome = wire.outcome_from_proto(message.outcome)
        except wire.WireError:
            log.warning("match %s: could not read the outcome", message.match_id, exc_info=True)
        return cls(match_id=message.match_id, seat=message.seat, outcome=outcome, match=match, message=message)

    @property
    def placing(self) -> int | None:
        """The bot's placing (1 = a winner)."""
        if self.outcome is None or self.seat >= len(self.outcome.placings):
            return None
        return self.outcome.placings[self.seat]

    @property
    def score(self) -> int | None:
        """The bot's final score."""
        if self.outcome is None or self.seat >= len(self.outcome.scores):
            return None
        return self.outcome.scores[self.seat]

    @property
    def won(self) -> bool:
        """Whether the bot is among the winners (a shared win counts)."""
        return self.placing == 1
