"""The import contracts hold, every module of the package is in a layer, and the docs list the layers as checked."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]
    return config


def _layers() -> list[set[str]]:
    """The layers contract's layers, outermost first, each a set of modules."""
    (contract,) = [c for c in _config()["contracts"] if c["type"] == "layers"]
    return [{name.strip() for name in re.split(r"[|:]", layer)} for layer in contract["layers"]]


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(_config()['contracts'])} kept, 0 broken." in result.stdout


def test_every_module_of_the_package_is_in_a_layer() -> None:
    placed = set().union(*_layers())
    modules = {
        f"arena.{path.stem if path.is_file() else path.name}"
        for path in (ROOT / "arena").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert modules - placed == set(), "put each new module in a layer of pyproject.toml and docs/architecture.md"
    assert placed - modules == set()


def test_the_architecture_doc_lists_the_layers_as_the_contract_checks_them() -> None:
    rows = [
        set(re.findall(r"`(arena(?:\.\w+)?)`", line.split("|")[2]))
        for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| ") and line.count("|") >= 4 and "`arena" in line.split("|")[2]
    ]
    assert rows[::-1] == _layers()  # the doc reads from the inside out
