"""The Azul engine is pure: it imports only the standard library, arena.errors and arena.games."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import arena.games.azul

PACKAGE = Path(arena.games.azul.__file__).parent
ALLOWED = ("arena.errors", "arena.games.base", "arena.games.azul")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_azul_engine_imports_only_the_standard_library_and_the_game_core() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        for name in imported(path):
            top = name.split(".")[0]
            if top == "arena":
                assert name.startswith(ALLOWED), f"{path.name} imports {name}"
            else:
                assert top in sys.stdlib_module_names or top == "__future__", f"{path.name} imports {name}"
