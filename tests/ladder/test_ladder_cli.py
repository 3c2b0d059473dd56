"""``arena ladder create|list|show|pause|resume`` and ``arena bot retire`` against a real node."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.cli.admin import register_bot
from arena.cli.main import main
from arena.store.embedded import EmbeddedRedis
from tests.grpc.harness import ADMIN
from tests.ladder.harness import Nodes


@dataclasses.dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


async def run(capsys: pytest.CaptureFixture[str], *args: str) -> Done:
    """``arena ARGS`` in this process (the command's own ``main``), with what it printed."""
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return Done(code, out, err)


@pytest.fixture
async def node(redis7: EmbeddedRedis, tmp_path: Path) -> AsyncIterator[str]:
    nodes = Nodes(redis7, tmp_path)
    try:
        yield nodes.start("cli")
    finally:
        await nodes.close()


async def test_ladders_from_the_command_line(node: str, capsys: pytest.CaptureFixture[str]) -> None:
    admin = ["--server", node, "--admin-token", ADMIN]
    # Mistakes get one line and change nothing.
    for args, says in (
        (["ladder", "create", "--game", "5211", "--players", "9", *admin], "5211 is for 2 to 5 players, not 9"),
        (
            ["ladder", "create", "--game", "5211", "--option", "nonsense=1", *admin],
            "unknown 5211 option(s) ['nonsense']",
        ),
        (["ladder", "show", "LDnothing", "--server", node], "not_found: no ladder 'LDnothing'"),
        (["ladder", "pause", "LDnothing", *admin], "not_found: no ladder 'LDnothing'"),
        (["bot", "retire", "nobody@v3", *admin], "not_found: no bot named 'nobody@v3' is registered"),
        (["matches", "--ladder", "LD00000000", "--game", "5211", "--server", node], "a filter of its own"),
        (
            ["ladder", "create", "--game", "5211", "--server", node, "--data-dir", "/nonexistent"],
            "no admin token found",
        ),
        (["ladder", "create", "--game", "5211", "--server", node, "--admin-token", "arena_x"], "permission_denied"),
    ):
        done = await run(capsys, *args)
        assert done.returncode != 0 and done.stderr.count("\n") == 1 and says in done.stderr, (args, done)
    assert (await run(capsys, "ladder", "list", "--server", node)).stdout == ""

    made = await run(
        capsys,
        "ladder",
        "create",
        "--game",
        "5211",
        "--players",
        "3",
        "--name",
        "weekly",
        "--option",
        "long_game=true",
        *admin,
    )
    assert made.returncode == 0, made.stderr
    ladder_id = made.stdout.split()[0]
    assert ladder_id.startswith("LD") and "weekly" in made.stdout and "running" in made.stdout
    assert "long_game=true" in made.stdout
    league = await run(capsys, "leaderboard", ladder_id, "--server", node)  # a ladder is no league
    assert league.returncode != 0 and f"not_found: no league '{ladder_id}'" in league.stderr, league
    listed = await run(capsys, "ladder", "list", "--server", node)
    assert ladder_id in listed.stdout and "5211 for 3" in listed.stdout
    paused = await run(capsys, "ladder", "pause", ladder_id, *admin)
    assert paused.returncode == 0 and "paused" in paused.stdout, paused.stderr
    shown = await run(capsys, "ladder", "show", ladder_id, "--server", node)
    assert shown.returncode == 0 and "paused" in shown.stdout and "provisional" in shown.stdout, shown.stderr
    resumed = await run(capsys, "ladder", "resume", ladder_id, *admin)
    assert "running" in resumed.stdout, resumed.stderr

    await asyncio.to_thread(register_bot, node, "x@v1", ADMIN)
    retired = await run(capsys, "bot", "retire", "x@v1", *admin)
    assert retired.returncode == 0 and "x@v1 is retired" in retired.stdout, retired.stderr
