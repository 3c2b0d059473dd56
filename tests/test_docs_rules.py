"""The rules and the public case files are in the repository (docs/rules/, docs/conformance/), and
``arena conformance GAME`` checks against those by default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena import catalogue

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "conformance"
GAMES = ("5211", "coloretto", "azul", "fool")


@pytest.mark.parametrize("game", GAMES)
def test_every_hosted_game_has_its_rules_and_its_case_files_in_the_repository(game: str) -> None:
    rules = REPO / "docs" / "rules" / f"{game}.md"
    assert len(rules.read_text(encoding="utf-8").split()) > 300
    copies = sorted(p.name for p in (REPO / "docs" / "conformance" / game).glob("*.json"))
    assert copies == sorted(p.name for p in (SHARED / game).glob("*.json"))
    for name in copies:
        assert (REPO / "docs" / "conformance" / game / name).read_bytes() == (SHARED / game / name).read_bytes()


@pytest.mark.parametrize("game", catalogue.names())
def test_arena_conformance_defaults_to_the_repositorys_case_files(game: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "conformance", game],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"docs/conformance/{game}/" in result.stdout and f"{game} conformance OK" in result.stdout


def test_the_readme_links_to_files_a_clone_has() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "shared/rules" not in text and "shared/conformance" not in text
    for game in GAMES:
        assert f"docs/rules/{game}.md" in text
