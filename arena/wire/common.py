"""Game-agnostic conversions between the engine's values and the wire contract (arena.v1).

Outcome and Termination (from ``arena.games.base``), rules options and durations. Imports protobuf
messages only: no grpc, no server code. (The referee's ``TimeControl`` is converted in the gRPC
layer, which may import the referee; this package depends on ``arena.games`` alone.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, Generic, TypeVar

from google.protobuf import duration_pb2, timestamp_pb2

from arena.errors import WireError
from arena.games.base import Outcome, Termination
from arena.v1 import common_pb2

T = TypeVar("T")

# -- notation ---------------------------------------------------------------------------------------


class Notation(Generic[T]):
    """A game's cards (or tiles) as text on the wire: each written ``str(item)``, read back exactly."""

    def __init__(self, items: Iterable[T], what: str, expected: str) -> None:
        self._by_text = {str(item): item for item in items}
        self._what = what
        self._expected = expected

    def read(self, text: str) -> T:
        """The item written ``text``; raises ``WireError`` naming the text (truncated) and what is expected."""
        item = self._by_text.get(text)
        if item is None:
            raise WireError(f"invalid {self._what} {text[:40]!r} on the wire: expected {self._expected}")
        return item

    def read_all(self, texts: Iterable[str]) -> tuple[T, ...]:
        """Items from their notation, in the same order; raises ``WireError`` as :meth:`read`."""
        return tuple(self.read(text) for text in texts)

    @staticmethod
    def write_all(items: Iterable[T]) -> list[str]:
        """Items in notation, in the same order."""
        return [str(item) for item in items]


# -- termination ------------------------------------------------------------------------------------

_TERMINATION_TO_PROTO: Final = {
    Termination.NORMAL: common_pb2.TERMINATION_NORMAL,
    Termination.TIMEOUT: common_pb2.TERMINATION_TIMEOUT,
    Termination.ILLEGAL_ACTION: common_pb2.TERMINATION_ILLEGAL_ACTION,
    Termination.DISCONNECTED: common_pb2.TERMINATION_DISCONNECTED,
    Termination.ABORTED: common_pb2.TERMINATION_ABORTED,
}
_TERMINATION_FROM_PROTO: Final = {value: key for key, value in _TERMINATION_TO_PROTO.items()}


def termination_to_proto(termination: Termination) -> common_pb2.Termination.ValueType:
    """The wire enum value of ``termination``."""
    return _TERMINATION_TO_PROTO[termination]


def termination_from_proto(value: common_pb2.Termination.ValueType) -> Termination:
    """The engine's Termination for a wire enum value; raises ``WireError`` if unset or unknown."""
    try:
        return _TERMINATION_FROM_PROTO[value]
    except KeyError:
        raise WireError(f"termination {value!r} is unset or unknown") from None


# -- outcome ----------------------------------------------------------------------------------------


def outcome_to_proto(outcome: Outcome) -> common_pb2.Outcome:
    """The wire form of a match result: per-seat scores and placings, winners, forfeits."""
    return common_pb2.Outcome(
        termination=termination_to_proto(outcome.termination),
        scores=list(outcome.scores),
        placings=list(outcome.placings),
        winners=sorted(outcome.winners),
        forfeited_seats=sorted(outcome.forfeited),
    )


def outcome_from_proto(message: common_pb2.Outcome) -> Outcome:
    """The engine's Outcome from its wire form (``winners`` is derived from the placings).

    Raises ``WireError`` when the lists disagree in length or a forfeited seat is not one.
    """
    if len(message.scores) != len(message.placings):
        raise WireError(f"outcome has {len(message.scores)} scores but {len(message.placings)} placings")
    forfeited = frozenset(message.forfeited_seats)
    if any(seat >= len(message.placings) for seat in forfeited):
        raise WireError(f"outcome forfeits seats {sorted(forfeited)} of {len(message.placings)}")
    return Outcome(
        termination=termination_from_proto(message.termination),
        scores=tuple(message.scores),
        placings=tuple(message.placings),
        forfeited=forfeited,
    )


# -- durations and timestamps ----------------------------------------------------------------------


def duration_to_proto(seconds: float) -> duration_pb2.Duration:
    """A ``google.protobuf.Duration`` of ``seconds`` (rounded to the nanosecond)."""
    message = duration_pb2.Duration()
    message.FromNanoseconds(round(seconds * 1_000_000_000))
    return message


def duration_from_proto(message: duration_pb2.Duration) -> float:
    """Seconds, as a float, of a ``google.protobuf.Duration``."""
    return message.ToNanoseconds() / 1_000_000_000


MAX_NANOS = 999_999_999
"""The largest ``nanos`` of a ``google.protobuf.Duration`` (its definition: a second is ``seconds``)."""


def checked_nanoseconds_from_proto(message: duration_pb2.Duration, field: str) -> int:
    """The nanoseconds, exactly, of a Duration a client sent (``field`` names it); ``WireError`` for
    one that is none by its definition: ``nanos`` beyond a second, or of the other sign than ``seconds``."""
    seconds, nanos = message.seconds, message.nanos
    if not -MAX_NANOS <= nanos <= MAX_NANOS:
        raise WireError(f"{field} is not a Duration: nanos must be between -{MAX_NANOS} and {MAX_NANOS}, not {nanos}")
    if (seconds < 0 < nanos) or (nanos < 0 < seconds):
        raise WireError(
            f"{field} is not a Duration: seconds and nanos must have the same sign, not {seconds} and {nanos}"
        )
    return int(message.ToNanoseconds())


def timestamp_to_proto(unix_seconds: float) -> timestamp_pb2.Timestamp:
    """A ``google.protobuf.Timestamp`` of a Unix time in seconds (rounded to the nanosecond)."""
    message = timestamp_pb2.Timestamp()
    message.FromNanoseconds(round(unix_seconds * 1_000_000_000))
    return message


def timestamp_from_proto(message: timestamp_pb2.Timestamp) -> float:
    """The Unix time, in seconds, of a ``google.protobuf.Timestamp``."""
    return message.ToNanoseconds() / 1_000_000_000


# -- rules options ----------------------------------------------------------------------------------


def options_to_proto(options: Mapping[str, Any]) -> dict[str, str]:
    """Rules options as the wire's ``map<string, string>``: every value a JSON literal."""
    return {str(name): json.dumps(value, sort_keys=True, separators=(",", ":")) for name, value in options.items()}


def options_from_proto(options: Mapping[str, str]) -> dict[str, Any]:
    """Rules options from the wire: each value read as JSON; a value that is not JSON is a string.

    So ``"true"`` is the boolean, ``"3"`` the integer, ``'"3"'`` and ``"abc"`` strings.
    """
    result: dict[str, Any] = {}
    for name, text in options.items():
        try:
            result[name] = json.loads(text)
        except ValueError:
            result[name] = text
    return result
