"""Packaging: the base install (the SDK's dependencies only, no ``server`` extra) gives an ``arena``
whose commands either work or say which extra to install. A fresh virtual environment, a real pip
install of this checkout."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import venv
from pathlib import Path

import pytest

from arena.v1 import common_pb2
from tests.grpc.harness import Arena, eventually

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
    for client in (["matches"], ["leaderboard", "L1"], ["nodes"], ["match", "show", "m1"]):  # piped: no rich needed
        down = arena(base_install, *client, "--server", "127.0.0.1:1")
        assert down.returncode == 1 and "no arena is listening" in down.stderr, (client, down.stderr)
    for command in (["serve"], ["run"], ["loadtest"]):
        result = arena(base_install, *command)
        assert result.returncode == 1, (command, result.stderr)
        assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr, command
        assert "pip install 'arena[server]'" in result.stderr, (command, result.stderr)
    for command in (["bot", "random"], ["play", "mybot.py", "random"]):
        result = arena(base_install, *command)
        assert result.returncode == 1 and "Traceback" not in result.stderr, (command, result.stderr)
        assert "arena-bot" in result.stderr and "clients/python" in result.stderr, (command, result.stderr)


def _floors(pyproject: Path) -> dict[str, str]:
    """The SDK's runtime dependencies and their lowest allowed versions (``>=X``)."""
    import tomllib

    pins = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    found = {}
    for pin in pins:
        match = re.fullmatch(r"([a-z-]+)>=([0-9.]+),<([0-9.]+)", pin)
        if match and match.group(1) in ("grpcio", "protobuf"):
            found[match.group(1)] = match.group(2)
    return found


def test_the_declared_floors_are_the_generated_codes_own() -> None:
    """The generated code refuses an older runtime than its generator's, so the floors must be those."""
    floors = _floors(REPO / "clients" / "python" / "pyproject.toml")
    assert floors == _floors(REPO / "pyproject.toml")
    grpc_code = (REPO / "arena" / "v1" / "bot_pb2_grpc.py").read_text()
    assert f"GRPC_GENERATED_VERSION = '{floors['grpcio']}'" in grpc_code
    pb_code = (REPO / "arena" / "v1" / "bot_pb2.py").read_text()
    gencode = re.search(r"Domain\.PUBLIC,\s*(\d+),\s*(\d+),\s*(\d+),", pb_code)
    assert gencode is not None and ".".join(gencode.groups()) == floors["protobuf"]


@pytest.mark.slow
@pytest.mark.parametrize("end", ["lowest", "highest"])
async def test_the_sdk_plays_at_both_ends_of_its_grpcio_and_protobuf_range(
    end: str, arena: Arena, tmp_path: Path
) -> None:
    pyproject = REPO / "clients" / "python" / "pyproject.toml"
    import tomllib

    pins = [p for p in tomllib.loads(pyproject.read_text())["project"]["dependencies"] if not p.startswith("arena")]
    floors = _floors(pyproject)
    wanted = [f"{name}=={version}" for name, version in floors.items()] if end == "lowest" else pins
    where = tmp_path / "venv"
    await asyncio.to_thread(venv.EnvBuilder(with_pip=True).create, where)
    python = str(where / "bin" / "python")
    await asyncio.to_thread(
        subprocess.run,
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *wanted],
        check=True,
        timeout=300,
        capture_output=True,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "clients" / "python")])  # this checkout's code
    versions = await asyncio.to_thread(
        subprocess.run,
        [python, "-c", "import grpc, google.protobuf as p; print(grpc.__version__, p.__version__)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    grpc_version, protobuf_version = versions.stdout.split()
    if end == "lowest":
        assert (grpc_version, protobuf_version) == (floors["grpcio"], floors["protobuf"])
    else:
        assert grpc_version >= floors["grpcio"] and protobuf_version >= floors["protobuf"]
    env["ARENA_TOKEN"] = await arena.register("ranged")
    opponent = await arena.connect("other")
    bot = await asyncio.create_subprocess_exec(
        python, "-m", "arena_bot", "random", "--server", arena.address, "--matches", "1", env=env
    )
    try:
        # Until the SDK's bot is connected: a fresh interpreter of another environment, on a busy machine.
        await eventually(lambda: arena.node.hub.sessions.get("ranged") is not None, 60)
        match_id = await arena.start_match(["ranged", "other"])
        end_of_match = await opponent.wait_ended(match_id)
        assert end_of_match.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert await asyncio.wait_for(bot.wait(), 30) == 0
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
