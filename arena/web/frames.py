"""Engine values as JSON, and a finished match's record replayed through its rules into turns.

Every game's states, observations and results are named tuples or dataclasses of cards (``int``
subclasses that print themselves), enums, tuples and mappings, so one converter serves every game:
cards become their notation (``"G3"``), enums their name, records their fields. Each game's
renderer (``static/games/<game>.js``) reads the fields of its own game.

What a replay leaves out even of a finished match: the seed and the undealt order of the cards
(``SECRET_FIELDS``): a duplicate deal replays the same cards in another league's rotation, and a
person following the match needs neither. Histories are cut to their last entry per turn
(``history_count`` says how many there were), so a replay grows with the match, not its square.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from arena.games.base import GameRules
from arena.referee.record import MatchRecord

SECRET_FIELDS = frozenset({"seed", "deals", "bag", "refills", "draw_pile", "later_piles", "pile"})
"""Fields never put in a page: the seed and the order of cards nobody has seen."""

HISTORY_FIELDS = frozenset({"history"})
"""Growing lists of earlier rounds: only the last entry is kept in each turn."""

MAX_DEPTH = 12


def to_json(value: Any, depth: int = 0) -> Any:
    """A JSON-ready form of an engine value (see the module docstring)."""
    if depth > MAX_DEPTH:
        return str(value)
    if value is None or isinstance(value, bool | float | str):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, int):
        return str(value) if type(value).__str__ is not int.__str__ else int(value)
    if hasattr(value, "_asdict"):
        return _fields(value._asdict(), depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, depth)
    if isinstance(value, Mapping):
        return {str(to_json(k, depth + 1)): to_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, frozenset | set):
        return [to_json(v, depth + 1) for v in sorted(value)]
    if isinstance(value, tuple | list):
        return [to_json(v, depth + 1) for v in value]
    return str(value)


def _fields(fields: Mapping[str, Any], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if name in SECRET_FIELDS:
            continue
        kept = value
        if name in HISTORY_FIELDS and isinstance(value, tuple | list):
            out["history_count"] = len(value)
            kept = value[-1:]
        out[name] = to_json(kept, depth + 1)
    return out


def replay_turns(record: MatchRecord, rules: GameRules[Any, Any, Any]) -> list[dict[str, Any]]:
    """The match turn by turn: the state before any action (turn 0), then after each recorded turn,
    with the actions that made it (as played: a fallback says why)."""
    state = rules.initial_state(len(record.bot_names), record.seed, record.options, record.deck)
    turns = [{"turn": 0, "round": _round(state), "actions": [], "state": to_json(state)}]
    for index, decisions in enumerate(record.turns, start=1):
        state = rules.apply(state, {d.seat: rules.parse_action(d.action) for d in decisions})
        actions = [
            {"seat": d.seat, "action": d.action, "fallback": d.fallback.value if d.fallback else ""} for d in decisions
        ]
        turns.append({"turn": index, "round": _round(state), "actions": actions, "state": to_json(state)})
    return turns


def _round(state: Any) -> int | None:
    number = getattr(state, "round", None)
    return number if isinstance(number, int) else None
