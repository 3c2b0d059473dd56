"""Packaging: the base install (the SDK's dependencies only, no ``server`` extra) gives an ``arena``
whose commands either work or say which extra to install. A fresh virtual environment, a real pip
install of this checkout."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def base_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with ``pip install .`` of this checkout: grpcio and protobuf, nothing of the extras."""
    where = tmp_path_factory.mktemp("base-venv")
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(REPO)],
        check=True,
        timeout=400,
        capture_output=True,
    )
    return where / "bin"


def arena(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "arena"), *args], capture_output=True, text=True, timeout=120, check=False, cwd=bin_dir
    )


@pytest.mark.slow
def test_the_base_install_has_no_server_dependencies_and_its_arena_works_or_names_the_extra(
    base_install: Path,
) -> None:
    listed = subprocess.run(
        [str(base_install / "python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    assert "grpcio==" in listed and "protobuf==" in listed
    assert "rich==" not in listed and "redis==" not in listed and "prometheus" not in listed
    assert arena(base_install, "--version").returncode == 0
    demo = arena(base_install, "demo")
    assert demo.returncode == 0, demo.stderr
    down = arena(base_install, "matches", "--server", "127.0.0.1:1")
    assert down.returncode == 1 and "no arena is listening" in down.stderr
    for command in (["serve"], ["run"], ["leaderboard", "L1", "--server", "127.0.0.1:1"], ["loadtest"]):
        result = arena(base_install, *command)
        assert result.returncode == 1, (command, result.stderr)
        assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr, command
        assert "pip install 'arena[server]'" in result.stderr, (command, result.stderr)
    for command in (["bot", "random"], ["play", "mybot.py", "random"]):
        result = arena(base_install, *command)
        assert result.returncode == 1 and "Traceback" not in result.stderr, (command, result.stderr)
        assert "arena-bot" in result.stderr and "clients/python" in result.stderr, (command, result.stderr)
