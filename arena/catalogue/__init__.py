"""The catalogue: the one list of games, and everything the arena knows about each behind one entry.

An entry (:class:`GameEntry`) joins a game's pure rules (``arena/games/<game>/``), its wire
converters (``arena/wire/<game>.py``, for the messages of ``proto/arena/v1/game_<game>.proto``), its
conformance checker, its built-in policies and its text printer. Each entry is defined in
``arena/catalogue/<game>.py``; :data:`ENTRIES` below is the one list of them. The referee, services,
leagues, CLI and load test name no game: they ask the catalogue (or, in the inner layers that must
not import the wire layer, the rules lookup ``arena.games.lookup``, which lists the same games).

The wire envelopes (``Observation`` and ``RoundResult``, each a ``oneof game``) are converted here,
dispatching on the engine value's type (to the wire) or on the ``oneof`` field that is set (from
the wire)::

    message = observation_to_proto(rules.observe(state, seat))   # an arena.v1 Observation
    observation = observation_from_proto(message)                 # the engine observation again

Adding a game: see docs/adding-a-game.md.
"""

from __future__ import annotations

from typing import Any, Final

from google.protobuf.message import Message

from arena.bots.policy import Policy
from arena.catalogue import azul, coloretto, fool, g5211
from arena.catalogue.entry import GameEntry, Printer, WireCodec
from arena.errors import UnknownGameError, WireError, echo
from arena.v1 import observation_pb2
from arena.wire.encode import length_delimited

__all__ = [
    "DEFAULT_GAME",
    "ENTRIES",
    "GameEntry",
    "Printer",
    "WireCodec",
    "entry",
    "game_of",
    "names",
    "observation_from_proto",
    "observation_to_proto",
    "observation_to_wire",
    "policy",
    "round_result_from_proto",
    "round_result_to_proto",
]

ENTRIES: Final[tuple[GameEntry, ...]] = (g5211.ENTRY, coloretto.ENTRY, azul.ENTRY, fool.ENTRY)
"""Every game the arena hosts, the default first."""

DEFAULT_GAME: Final = ENTRIES[0].name
"""The game of ``arena run``, ``arena demo``, leagues and the load test when nobody names one."""

_BY_NAME: Final = {e.name: e for e in ENTRIES}
_BY_FIELD: Final = {e.wire.field: e for e in ENTRIES}
_BY_OBSERVATION: Final = {e.wire.observation_type: e for e in ENTRIES}
_BY_ROUND_RESULT: Final = {e.wire.round_result_type: e for e in ENTRIES}
_OBSERVATION_FIELD: Final = {e.wire.field: observation_pb2.Observation.DESCRIPTOR.fields_by_name[e.wire.field].number
                             for e in ENTRIES}  # fmt: skip


def names() -> tuple[str, ...]:
    """The names of every game, in catalogue order."""
    return tuple(_BY_NAME)


def entry(name: str) -> GameEntry:
    """The entry of the game ``name``; raises ``UnknownGameError`` naming the known games."""
    found = _BY_NAME.get(name)
    if found is None:
        raise UnknownGameError(f"unknown game {echo(name)}; known games: {', '.join(_BY_NAME)}")
    return found


def policy(game: str, name: str, seed: int | None = None) -> Policy:
    """A new built-in policy of ``game``; raises ``UnknownGameError`` if there is none of that name."""
    factory = entry(game).policies.get(name)
    if factory is None:
        known = ", ".join(entry(game).policies)
        raise UnknownGameError(f"no built-in policy {echo(name)} for game {game}; known: {known}")
    return factory(seed)


def _lookup(table: dict[type, GameEntry], value: object, what: str) -> GameEntry:
    found = table.get(type(value))
    if found is None:
        raise WireError(f"no wire converter for {what} of type {type(value).__name__}")
    return found


def _from_oneof(message: Message, what: str) -> tuple[GameEntry, Any]:
    field = message.WhichOneof("game")
    if field is None:
        raise WireError(f"{what} has no game payload set (a game this client does not know?)")
    return _BY_FIELD[field], getattr(message, field)


def game_of(message: observation_pb2.Observation | observation_pb2.RoundResult) -> str | None:
    """The name of the game whose payload ``message`` carries; None if none is set."""
    field = message.WhichOneof("game")
    found = None if field is None else _BY_FIELD.get(field)
    return None if found is None else found.name


def observation_to_proto(observation: Any) -> observation_pb2.Observation:
    """An engine observation (a seat's, or a public view) in the wire envelope of its game."""
    wire = _lookup(_BY_OBSERVATION, observation, "observation").wire
    message = observation_pb2.Observation()
    getattr(message, wire.field).CopyFrom(wire.observation_to_proto(observation))
    return message


def observation_to_wire(observation: Any) -> bytes:
    """``observation_to_proto(observation)``, encoded: what the bot stream sends, made without the
    copies of building the envelope (and, for a game that has one, with its quicker encoder)."""
    wire = _lookup(_BY_OBSERVATION, observation, "observation").wire
    encode = wire.observation_to_wire
    payload = encode(observation) if encode is not None else wire.observation_to_proto(observation).SerializeToString()
    return length_delimited(_OBSERVATION_FIELD[wire.field], payload)


def observation_from_proto(message: observation_pb2.Observation) -> Any:
    """The engine observation inside the wire envelope, for whichever game is set."""
    found, payload = _from_oneof(message, "observation")
    return found.wire.observation_from_proto(payload)


def round_result_to_proto(result: Any, round_number: int) -> observation_pb2.RoundResult:
    """An engine round result, round ``round_number`` (1-based) of its match, in the wire envelope."""
    wire = _lookup(_BY_ROUND_RESULT, result, "round result").wire
    message = observation_pb2.RoundResult(round=round_number)
    getattr(message, wire.field).CopyFrom(wire.round_result_to_proto(result))
    return message


def round_result_from_proto(message: observation_pb2.RoundResult) -> Any:
    """The engine round result inside the wire envelope."""
    found, payload = _from_oneof(message, "round result")
    return found.wire.round_result_from_proto(payload)
