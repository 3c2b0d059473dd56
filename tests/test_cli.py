"""The command line: every subcommand's help renders (argparse formats help lazily); a usage mistake
is one line and exit code 2."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.cli.main import build_parser
from arena.errors import AuthError
from arena.serve.launch import stop
from arena.service.limits import AdminNetworks
from arena.store.embedded import EmbeddedRedis, free_port
from tests.grpc.harness import ADMIN, Arena, start_node
from tests.grpc.rawbot import RawBot


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )


def subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += subcommands(sub)
    return found


def test_every_help_renders(capsys: pytest.CaptureFixture[str]) -> None:
    parsers = subcommands(build_parser())
    assert len(parsers) >= 14
    for parser in parsers:
        text = parser.format_help()
        assert parser.prog in text
    names = {p.prog.split(" ", 1)[1] for p in parsers if " " in p.prog}
    assert {
        "run",
        "serve",
        "register",
        "match",
        "bot",
        "league create",
        "leaderboard",
        "nodes",
        "loadtest",
        "token revoke",
        "token rotate",
        "league cancel",
    } <= names


async def test_token_revoke_and_rotate_from_the_command_line(arena: Arena, tmp_path: Path) -> None:
    token = await arena.register("alice")
    bot = RawBot(arena.address, token).start()
    arena.bots.append(bot)
    await asyncio.wait_for(bot.welcomed.wait(), 10)
    admin_file = tmp_path / "admin"
    admin_file.write_text(ADMIN + "\n")
    common = ["--server", arena.address, "--admin-token-file", str(admin_file)]
    rotated = await asyncio.to_thread(_arena, "token", "rotate", "alice", *common)
    assert rotated.returncode == 0, rotated.stderr
    new = rotated.stdout.strip()
    assert new.startswith("arena_") and new != token
    assert await arena.node.registry.authenticate(new) == "alice"
    await asyncio.wait_for(bot._task, 5)  # type: ignore[arg-type]
    assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAUTHENTICATED
    revoked = await asyncio.to_thread(
        _arena, "token", "revoke", "alice", "--server", arena.address, "--admin-token", ADMIN
    )
    assert revoked.returncode == 0, revoked.stderr
    with pytest.raises(AuthError):
        await arena.node.registry.authenticate(new)
    denied = await asyncio.to_thread(
        _arena, "token", "rotate", "alice", "--server", arena.address, "--admin-token", "-nope"
    )
    assert denied.returncode == 1 and "permission_denied" in denied.stderr
    missing = await asyncio.to_thread(
        _arena, "token", "rotate", "alice", *common[:2], "--admin-token-file", "/nonexistent"
    )
    assert missing.returncode == 2
    assert (
        missing.stderr.strip()
        == "arena token: cannot read the admin token file '/nonexistent': No such file or directory"
    )


@pytest.mark.parametrize("source", ["env", "file", "flag"])
async def test_arena_bot_takes_its_token_from_the_environment_a_file_or_a_flag(
    arena: Arena, tmp_path: Path, source: str
) -> None:
    token = await arena.register(f"bot-{source}")
    command = ["bot", "random", "--server", arena.address]
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_BOT_TOKEN", "ARENA_TOKEN")}
    if source == "env":
        env["ARENA_BOT_TOKEN"] = token
    elif source == "file":
        (tmp_path / "token").write_text(token + "\n")
        command += ["--token-file", str(tmp_path / "token")]
    else:
        command += ["--token", token]
    process = subprocess.Popen(  # noqa: ASYNC220 - started once, polled without blocking
        [sys.executable, "-m", "arena.cli", *command], env=env, stderr=subprocess.PIPE
    )
    try:
        for _ in range(1000):
            if f"bot-{source}" in {s.name for s in arena.node.hub.connected()}:
                break
            assert process.poll() is None, process.communicate()[1]
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the bot never connected")
        if source != "flag":
            assert token not in await asyncio.to_thread(Path(f"/proc/{process.pid}/cmdline").read_text)
    finally:
        process.terminate()
        process.communicate(timeout=10)


@pytest.mark.parametrize("games", ["0", "-3", "many"])
def test_league_create_refuses_a_bad_games_count_in_one_line(games: str) -> None:
    command = [sys.executable, "-m", "arena.cli", "league", "create", "a", "b", "--games", games]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("arena league create: argument --games:"), lines
    assert repr(games) in lines[0] and "at least 1" in lines[0]
    assert "Traceback" not in done.stderr


def test_league_create_refuses_too_few_players_in_one_line() -> None:
    command = [sys.executable, "-m", "arena.cli", "league", "create", "a", "b", "--players", "0"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "arena league create: argument --players: '0' is not a whole number of at least 2 (see --help)"
    ]


def test_serve_refuses_more_workers_than_it_would_start_in_one_line() -> None:
    """``--workers 99999999`` went on to start that many processes (and failed on a metrics port
    the operator never named)."""
    command = [sys.executable, "-m", "arena.cli", "serve", "--workers", "99999999"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "arena serve: argument --workers: '99999999' is not a whole number 0 to 256 (see --help)"
    ]


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """`arena demo | head`: the reader closes the pipe; the command stops quietly with status 1."""
    command = [sys.executable, "-m", "arena.cli", "demo", "--game", "fool"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the first line: every write the command makes meets a closed pipe
    errors = process.stderr.read().decode()
    code = process.wait(timeout=60)
    assert "Traceback" not in errors and "BrokenPipe" not in errors, errors
    assert code == 1


async def test_an_admin_call_from_outside_the_admin_networks_is_told_why_and_no_token_hint(arena: Arena) -> None:
    """The refusal named the networks, then told the operator to give his token another way: the
    token was right, the address was not."""
    arena.node.admin_networks = AdminNetworks.parse(["10.0.0.0/8"])
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "arena.cli", "register", "carol", "--server", arena.address],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "arena register: permission_denied: the admin token is accepted only from 10.0.0.0/8; "
        "this call came from 127.0.0.1"
    )


@pytest.mark.parametrize(
    ("flag", "given", "wanted"),
    [
        ("--heartbeat-seconds", "0", "above 0"),
        ("--lease-seconds", "-1", "above 0"),
        ("--shutdown-grace", "soon", "of at least 0"),
        ("--shutdown-grace", "nan", "of at least 0"),
    ],
)
def test_serve_refuses_a_duration_that_is_not_a_number_of_seconds_in_one_line(
    flag: str, given: str, wanted: str
) -> None:
    """Found in a review: ``--lease-seconds -1`` was taken (a dead node's matches would be taken over at once)."""
    command = [sys.executable, "-m", "arena.cli", "serve", flag, given]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"arena serve: argument {flag}: {given!r} is not a number of seconds {wanted} (see --help)"
    ]


def _register_without_a_token(address: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    command = [sys.executable, "-m", "arena.cli", "register", "carol", "--server", address]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=60, check=False)


async def test_register_needs_no_admin_token_on_an_arena_with_open_registration(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """A trial's ``arena register`` refused, "no admin token found", on an arena that lets anyone
    register: the command asked for a token before asking the arena."""
    port = free_port()
    node = start_node(redis7.url, "node-open", port, tmp_path / "open")  # --open-registration
    try:
        done = await asyncio.to_thread(_register_without_a_token, f"127.0.0.1:{port}", tmp_path)
    finally:
        stop(node)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("arena_") and done.stderr == ""


async def test_register_without_an_admin_token_on_a_closed_arena_says_how_to_give_one(
    arena: Arena, tmp_path: Path
) -> None:
    done = await asyncio.to_thread(_register_without_a_token, arena.address, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena register: no admin token found"), done.stderr
    assert "registers bots only with the admin token" in lines[0]
