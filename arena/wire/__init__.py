"""Converters between the engine's values (``arena.games``) and the wire contract (``arena.v1``).

Per-game converters sit in ``arena/wire/<game>.py`` (one module per game, like
:mod:`arena.wire.g5211`); this package re-exports the game-agnostic ones of
:mod:`arena.wire.common`. The envelopes (``oneof game``) are converted by :mod:`arena.catalogue`,
which knows every game. It depends on ``arena.games`` and the generated messages only (no grpc, no
server code).
"""

from __future__ import annotations

from arena.errors import WireError
from arena.wire.common import (
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
    "options_from_proto",
    "options_to_proto",
    "outcome_from_proto",
    "outcome_to_proto",
    "termination_from_proto",
    "termination_to_proto",
    "timestamp_from_proto",
    "timestamp_to_proto",
]
