"""What a catalogue entry holds: everything the arena knows about one game, behind one value."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from google.protobuf.message import Message

from arena.bots.policy import Policy
from arena.games.base import GameRules, Seat


@dataclasses.dataclass(frozen=True, slots=True)
class WireCodec:
    """How one game's values travel: its field in each ``oneof game`` and its converters (``arena/wire/<game>.py``)."""

    field: str
    """The field of the game in ``Observation.game`` and ``RoundResult.game`` (proto/arena/v1/observation.proto)."""
    observation_type: type
    """The engine's observation type (a seat's view and the public view)."""
    round_result_type: type
    """The engine's type of one round's result (what ``GameRules.round_result`` returns)."""
    observation_to_proto: Callable[[Any], Message]
    observation_from_proto: Callable[[Any], Any]
    round_result_to_proto: Callable[[Any], Message]
    round_result_from_proto: Callable[[Any], Any]
    observation_to_wire: Callable[[Any], bytes] | None = None
    """The encoded ``observation_to_proto(observation)`` (the same message once parsed), quicker; None:
    encode that message."""


class TurnPrinter(Protocol):
    """Lines telling what one decision did (``before``, the actions taken, ``after``)."""

    def __call__(self, before: Any, actions: Mapping[Seat, Any], after: Any, /) -> list[str]:
        """The lines telling what happened between ``before`` and ``after`` (none when nothing public did)."""
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class Printer:
    """A readable text account of a match (``arena demo``), from the game's own printer module."""

    describe_start: Callable[[Any], list[str]]
    """The header: players, options, who starts."""
    describe_turn: TurnPrinter
    describe_end: Callable[[Any], list[str]]
    """The result and the final scoring."""


@dataclasses.dataclass(frozen=True, slots=True)
class GameEntry:
    """One game in the catalogue: its rules, wire converters, conformance checker, bots and printer."""

    rules: GameRules[Any, Any, Any]
    wire: WireCodec
    check_conformance: Callable[[Any], list[str]]
    """A parsed case file in, one line per mismatch out (each starting ``"<case id>: "``); raises a
    ``ValueError`` when the file follows none of the game's formats."""
    policies: Mapping[str, Callable[[int | None], Policy]]
    """Built-in policies by name (``random`` and ``heuristic`` at least), each factory taking a seed."""
    printer: Printer
    default_players: int
    """Players a match when nobody says (``arena run``, ``arena demo``, the load test)."""
    demo_policies: Sequence[str] = ("heuristic", "heuristic", "random", "random")
    """The policies of ``arena demo``, by seat (their number is the demo's player count)."""

    @property
    def name(self) -> str:
        """The game's name."""
        return self.rules.name
