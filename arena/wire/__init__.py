"""Converters between the engine's values (``arena.games``) and the wire contract (``arena.v1``).

The one package the gRPC layer and the SDK convert game payloads through. It depends on
``arena.games`` and the generated messages only (no grpc, no server code). Per-game payloads go
through :func:`observation_to_proto` / :func:`observation_from_proto`, which dispatch on the
observation's type (to the wire) or on the ``oneof game`` field that is set (from the wire)::

    message = observation_to_proto(game.observe(state, seat))   # an arena.v1 Observation
    observation = observation_from_proto(message)                # the engine Observation again

Adding a game: write ``arena/wire/<game>.py`` like :mod:`arena.wire.g5211`, add its field to each
``oneof game`` in ``proto/arena/v1/observation.proto`` and register it in ``_CODECS`` below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from google.protobuf.message import Message

from arena.games.g5211.scoring import RoundResult as RoundResult5211
from arena.games.g5211.state import Observation as Observation5211
from arena.v1 import observation_pb2
from arena.wire import g5211
from arena.wire.common import (
    WireError,
    duration_from_proto,
    duration_to_proto,
    options_from_proto,
    options_to_proto,
    outcome_from_proto,
    outcome_to_proto,
    termination_from_proto,
    termination_to_proto,
    timestamp_from_proto,
    timestamp_to_proto,
)

__all__ = [
    "WireError",
    "duration_from_proto",
    "duration_to_proto",
    "game_of",
    "games",
    "last_round_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "options_from_proto",
    "options_to_proto",
    "outcome_from_proto",
    "outcome_to_proto",
    "round_result_from_proto",
    "round_result_to_proto",
    "termination_from_proto",
    "termination_to_proto",
    "timestamp_from_proto",
    "timestamp_to_proto",
]


@dataclasses.dataclass(frozen=True, slots=True)
class _Codec:
    """How one game's values travel: its field in each ``oneof game`` and its converters."""

    game: str
    field: str
    observation_type: type
    round_result_type: type
    observation_to_proto: Callable[[Any], Message]
    observation_from_proto: Callable[[Any], Any]
    round_result_to_proto: Callable[[Any], Message]
    round_result_from_proto: Callable[[Any], Any]
    last_round: Callable[[Any], tuple[int, Any] | None]
    """The 1-based number and result of the last scored round in an observation, if any."""


def _last_round_5211(observation: Observation5211) -> tuple[int, RoundResult5211] | None:
    # The history holds every scored round of the match, so the last one is round len(history).
    if not observation.history:
        return None
    return len(observation.history), observation.history[-1]


_CODECS: Final = (
    _Codec(
        game=g5211.GAME,
        field="game_5211",
        observation_type=Observation5211,
        round_result_type=RoundResult5211,
        observation_to_proto=g5211.observation_to_proto,
        observation_from_proto=g5211.observation_from_proto,
        round_result_to_proto=g5211.round_result_to_proto,
        round_result_from_proto=g5211.round_result_from_proto,
        last_round=_last_round_5211,
    ),
)
_BY_FIELD: Final = {codec.field: codec for codec in _CODECS}
_BY_OBSERVATION: Final = {codec.observation_type: codec for codec in _CODECS}
_BY_ROUND_RESULT: Final = {codec.round_result_type: codec for codec in _CODECS}


def games() -> frozenset[str]:
    """The games (registry names) whose payloads this package converts."""
    return frozenset(codec.game for codec in _CODECS)


def _lookup(table: dict[type, _Codec], value: object, what: str) -> _Codec:
    codec = table.get(type(value))
    if codec is None:
        raise WireError(f"no wire converter for {what} of type {type(value).__name__}")
    return codec


def _from_oneof(message: Message, what: str) -> tuple[_Codec, Any]:
    field = message.WhichOneof("game")
    if field is None:
        raise WireError(f"{what} has no game payload set (a game this client does not know?)")
    codec = _BY_FIELD[field]
    return codec, getattr(message, field)


def game_of(message: observation_pb2.Observation | observation_pb2.RoundResult) -> str | None:
    """The registry name of the game whose payload ``message`` carries; None if none is set."""
    field = message.WhichOneof("game")
    codec = None if field is None else _BY_FIELD.get(field)
    return None if codec is None else codec.game


def observation_to_proto(observation: Any) -> observation_pb2.Observation:
    """An engine observation (a seat's, or a public view) in the wire envelope of its game."""
    codec = _lookup(_BY_OBSERVATION, observation, "observation")
    message = observation_pb2.Observation()
    getattr(message, codec.field).CopyFrom(codec.observation_to_proto(observation))
    return message


def observation_from_proto(message: observation_pb2.Observation) -> Any:
    """The engine observation inside the wire envelope, for whichever game is set."""
    codec, payload = _from_oneof(message, "observation")
    return codec.observation_from_proto(payload)


def round_result_to_proto(result: Any, round_number: int) -> observation_pb2.RoundResult:
    """An engine round result, round ``round_number`` (1-based) of its match, in the wire envelope."""
    codec = _lookup(_BY_ROUND_RESULT, result, "round result")
    message = observation_pb2.RoundResult(round=round_number)
    getattr(message, codec.field).CopyFrom(codec.round_result_to_proto(result))
    return message


def round_result_from_proto(message: observation_pb2.RoundResult) -> Any:
    """The engine round result inside the wire envelope."""
    codec, payload = _from_oneof(message, "round result")
    return codec.round_result_from_proto(payload)


def last_round_to_proto(observation: Any) -> observation_pb2.RoundResult:
    """The last scored round in an observation (e.g. a public view), for WatchMatch's round_scored.

    Raises ``WireError`` if no round has been scored yet.
    """
    codec = _lookup(_BY_OBSERVATION, observation, "observation")
    last = codec.last_round(observation)
    if last is None:
        raise WireError("no round has been scored yet")
    number, result = last
    return round_result_to_proto(result, number)
