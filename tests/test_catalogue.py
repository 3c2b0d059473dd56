"""The catalogue is the one list of games, and the arena outside each game's own places names none."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from arena import catalogue
from arena.errors import UnknownGameError
from arena.games.lookup import GAMES
from arena.v1 import observation_pb2

ROOT = Path(__file__).resolve().parents[1]
GAME_NAMES = frozenset(catalogue.names())
GAME_FIELDS = frozenset(entry.wire.field for entry in catalogue.ENTRIES)


def test_the_rules_registry_and_the_catalogue_list_the_same_games() -> None:
    assert set(GAMES) == GAME_NAMES
    assert {"5211", "coloretto"} <= GAME_NAMES
    for name in GAME_NAMES:
        assert catalogue.entry(name).rules is GAMES[name]
    assert catalogue.ENTRIES[0].name == catalogue.DEFAULT_GAME


def test_an_unknown_game_or_policy_is_refused_naming_it() -> None:
    with pytest.raises(UnknownGameError, match=r"'chess'.*5211, coloretto"):
        catalogue.entry("chess")
    with pytest.raises(UnknownGameError, match="'hasty' for game coloretto; known: heuristic, random"):
        catalogue.policy("coloretto", "hasty")


@pytest.mark.parametrize("name", sorted(GAME_NAMES))
def test_every_entry_is_complete(name: str) -> None:
    entry = catalogue.entry(name)
    # Its field is in both envelopes.
    for envelope in (observation_pb2.Observation, observation_pb2.RoundResult):
        assert entry.wire.field in [field.name for field in envelope.DESCRIPTOR.oneofs_by_name["game"].fields]
    assert {"random", "heuristic"} <= set(entry.policies)
    assert entry.default_players in entry.rules.player_counts
    assert len(entry.demo_policies) in entry.rules.player_counts
    # Its policies play legal actions, its printer prints, its round results convert.
    rules = entry.rules
    rng = random.Random(1)
    bots = [catalogue.policy(name, entry.demo_policies[seat], seat) for seat in range(entry.default_players)]
    state = rules.initial_state(entry.default_players, 7)
    lines = list(entry.printer.describe_start(state))
    while seats := rules.to_move(state):
        actions = {}
        for seat in seats:
            legal = rules.legal_actions(state, seat)
            actions[seat] = bots[seat].choose(rules.observe(state, seat), legal)
            assert actions[seat] in legal
        after = rules.apply(state, actions)
        lines += entry.printer.describe_turn(state, actions, after)
        state = after
        if rng.random() < 0.1:
            catalogue.observation_from_proto(catalogue.observation_to_proto(rules.public_view(state)))
    lines += entry.printer.describe_end(state)
    assert any("Winner" in line for line in lines)
    number, result = rules.round_result(rules.public_view(state)) or (0, None)
    assert number >= 1
    assert catalogue.round_result_from_proto(catalogue.round_result_to_proto(result, number)) == result
    assert rules.round_result(rules.public_view(rules.initial_state(entry.default_players, 7))) is None


# -- who may know which game ---------------------------------------------------------------------------

GAME_AGNOSTIC = [
    "arena/referee",
    "arena/service",
    "arena/league",
    "arena/queue",
    "arena/store",
    "arena/grpc",
    "arena/bots/policy.py",
    "arena/cli/main.py",
    "arena/cli/admin.py",
    "arena/cli/conformance.py",
    "arena/cli/loadtest.py",
    "arena/cli/loadtest_bots.py",
    "arena/cli/mainjob.py",
    "arena/serve/process.py",
    "arena/node.py",
    "arena/wire/__init__.py",
    "arena/wire/common.py",
    "arena/wire/record.py",
    "arena/catalogue/__init__.py",
    "arena/catalogue/entry.py",
    "arena/games/base.py",
    "arena/games/lookup.py",
    "clients/python/arena_bot/__init__.py",
    "clients/python/arena_bot/__main__.py",
    "clients/python/arena_bot/bot.py",
    "clients/python/arena_bot/bots.py",
    "clients/python/arena_bot/types.py",
]
"""Modules that must name no game: neither a game's name in code nor an import of a game's modules."""


def _modules(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for relative in paths:
        path = ROOT / relative
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            for child in node.body:
                if isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant):
                    ids.add(id(child.value))
    return ids


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names


def _game_modules() -> set[str]:
    games = {path.name for path in (ROOT / "arena" / "games").iterdir() if (path / "__init__.py").exists()}
    return (
        {f"arena.games.{g}" for g in games}
        | {f"arena.wire.{g}" for g in games}
        | {f"arena.catalogue.{g}" for g in games}
        | {f"arena.v1.game_{g.removeprefix('g')}_pb2" for g in games}
        | {"arena.bots.heuristic5211"}
    )


def test_the_game_agnostic_modules_name_no_game() -> None:
    game_modules = _game_modules()
    offences = []
    for path in _modules(GAME_AGNOSTIC):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            if isinstance(node, ast.Constant) and is_text and (node.value in GAME_NAMES or node.value in GAME_FIELDS):
                offences.append(f"{where}:{node.lineno}: names the game {node.value!r}")
        for name in _imports(tree):
            game_module = any(name == module or name.startswith(module + ".") for module in game_modules)
            if game_module and where.as_posix() != "arena/catalogue/__init__.py":
                offences.append(f"{where}: imports {name}")
    assert not offences, "\n".join(offences)
