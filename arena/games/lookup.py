"""The rules of every game, by name: each package under ``arena/games/`` that exports ``RULES``.

A game's rules folder registers itself (its ``__init__`` sets ``RULES`` to its rules object), so the
inner layers (referee, league scheduling, services) can look rules up by name without knowing any
game and without importing the adapters. Everything else about a game (wire converters, built-in
bots, printer, conformance checker) is in its ``arena.catalogue`` entry; a test checks that the two
list the same games.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

from arena.errors import UnknownGameError, echo
from arena.games.base import GameRules


def _discover() -> dict[str, GameRules[Any, Any, Any]]:
    found: dict[str, GameRules[Any, Any, Any]] = {}
    for module in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
        if not module.ispkg:
            continue
        rules = getattr(importlib.import_module(f"arena.games.{module.name}"), "RULES", None)
        if rules is not None:
            found[rules.name] = rules
    return found


GAMES: dict[str, GameRules[Any, Any, Any]] = _discover()
"""Every game the arena can referee, by name."""


def get_game(name: str) -> GameRules[Any, Any, Any]:
    """The game named ``name``; raises ``UnknownGameError``."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {echo(name)}; known games: {', '.join(sorted(GAMES))}") from None
