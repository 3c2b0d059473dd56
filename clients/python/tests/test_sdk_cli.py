"""``python -m arena_bot``, the blocking ``run``, ``stop`` from another thread, and TLS."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import grpc.aio
import pytest
from arena_bot import Bot, Turn
from arena_bot.__main__ import load_bot, main
from arena_bot.bots import HeuristicBot, RandomBot
from conftest import STEP, Arena, ScriptedBotService, action_request, match_ended, match_started, states

from arena.v1 import bot_pb2_grpc


class FirstLegal(Bot):
    """A bot importable as ``test_sdk_cli:FirstLegal``."""

    def act(self, turn: Turn) -> str:
        return turn.legal_actions[0]


def test_help_runs_as_a_module() -> None:
    sdk = str(Path(__file__).resolve().parents[1])  # this checkout's SDK, installed or not
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [sdk, os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-m", "arena_bot", "--help"], capture_output=True, text=True, timeout=60, check=True, env=env
    )
    assert "--server" in result.stdout
    assert "--token" in result.stdout


def test_bots_load_by_name_or_module_path() -> None:
    assert isinstance(load_bot("random", 1), RandomBot)
    assert isinstance(load_bot("heuristic"), HeuristicBot)
    assert isinstance(load_bot("test_sdk_cli:FirstLegal"), FirstLegal)
    with pytest.raises(SystemExit, match="unknown bot"):
        load_bot("nope")
    with pytest.raises(SystemExit, match="not a Bot subclass"):
        load_bot("test_sdk_cli:test_help_runs_as_a_module")


async def test_main_plays_the_requested_number_of_matches(arena: Arena) -> None:
    argv = ["random", "--server", arena.address, "--token", "tok", "--matches", "1", "--seed", "3"]
    runner = asyncio.create_task(asyncio.to_thread(main, argv))
    peer = await arena.service.next_peer()
    hello = await peer.welcome()
    assert hello.token == "tok"
    await peer.send(match_started=match_started("m1"))
    await peer.send(action_request=action_request("m1", 1, next(states())))
    assert (await peer.recv_kind("action")).sequence == 1
    await peer.send(match_ended=match_ended("m1"))
    assert await asyncio.wait_for(runner, STEP) == 0


async def test_main_reports_a_refused_token(arena: Arena) -> None:
    runner = asyncio.create_task(asyncio.to_thread(main, ["random", "--server", arena.address, "--token", "bad"]))
    peer = await arena.service.next_peer()
    await peer.recv_kind("hello")
    peer.end(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
    assert await asyncio.wait_for(runner, STEP) == 2


async def _hello_token(arena: Arena, argv: list[str]) -> str:
    """Run the CLI with ``argv`` (after the server flag) and return the token its Hello carried."""
    runner = asyncio.create_task(asyncio.to_thread(main, ["random", "--server", arena.address, *argv]))
    peer = await arena.service.next_peer()
    hello = await peer.recv_kind("hello")
    peer.end(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
    assert await asyncio.wait_for(runner, STEP) == 2
    return str(hello.token)


@pytest.mark.parametrize("token", ["-starts-with-a-dash", "--looks-like-a-flag", "arena_plain"])
async def test_a_token_parses_whatever_its_first_character(arena: Arena, token: str) -> None:
    assert await _hello_token(arena, [f"--token={token}"]) == token
    assert await _hello_token(arena, ["--token", token]) == token


async def test_the_token_comes_from_a_file_or_the_environment(
    arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    path = tmp_path / "token"
    path.write_text("-from-a-file\n")
    assert await _hello_token(arena, ["--token-file", str(path)]) == "-from-a-file"
    monkeypatch.setenv("ARENA_BOT_TOKEN", "-from-the-environment")
    assert await _hello_token(arena, []) == "-from-the-environment"
    assert await _hello_token(arena, ["--token", "given"]) == "given"  # a flag wins over the environment


def test_a_missing_or_empty_token_file_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BOT_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    with pytest.raises(SystemExit, match=r"cannot read the token file .*nope"):
        main(["random", "--server", "127.0.0.1:1", "--token-file", str(tmp_path / "nope")])
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(SystemExit, match="is empty"):
        main(["random", "--server", "127.0.0.1:1", "--token-file", str(tmp_path / "empty")])
    with pytest.raises(SystemExit, match=r"\$ARENA_TOKEN"):
        main(["random", "--server", "127.0.0.1:1"])


async def test_stop_from_another_thread_ends_a_blocking_run(arena: Arena) -> None:
    bot = FirstLegal()
    runner = asyncio.create_task(asyncio.to_thread(bot.run, arena.address, "tok", initial_backoff=0.01))
    peer = await arena.service.next_peer()
    await peer.welcome()
    await asyncio.to_thread(bot.stop)
    await asyncio.wait_for(runner, STEP)


def _self_signed(folder: Path) -> tuple[bytes, bytes]:
    """A throwaway certificate for localhost, made with the openssl command."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return key.read_bytes(), cert.read_bytes()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
async def test_tls_with_a_root_certificate_file(tmp_path: Path) -> None:
    key, cert = _self_signed(tmp_path)
    server = grpc.aio.server()
    service = ScriptedBotService()
    bot_pb2_grpc.add_BotServiceServicer_to_server(service, server)
    port = server.add_secure_port("localhost:0", grpc.ssl_server_credentials([(key, cert)]))
    await server.start()
    bot = FirstLegal()
    task = asyncio.create_task(bot.run_async(f"localhost:{port}", "tok", root_certificates=tmp_path / "cert.pem"))
    try:
        peer = await service.next_peer()
        hello = await peer.welcome()
        assert hello.token == "tok"
    finally:
        bot.stop()
        await asyncio.wait_for(task, STEP)
        await server.stop(0)


def test_stop_before_run_is_harmless() -> None:
    FirstLegal().stop()
    assert threading.active_count() >= 1


async def test_the_server_and_token_come_from_arena_server_and_arena_token(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_SERVER", arena.address)  # no --server: as `arena bot` does
    monkeypatch.setenv("ARENA_TOKEN", "-the-documented-one")
    monkeypatch.setenv("ARENA_BOT_TOKEN", "-its-alias")
    runner = asyncio.create_task(asyncio.to_thread(main, ["random"]))
    peer = await arena.service.next_peer()
    hello = await peer.recv_kind("hello")
    peer.end(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
    assert await asyncio.wait_for(runner, STEP) == 2
    assert hello.token == "-the-documented-one"


def test_the_installed_command_prints_its_own_name() -> None:
    script = Path(sys.executable).parent / "arena-bot"
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.startswith("usage: arena-bot ")
    assert "default 127.0.0.1:50051" in result.stdout
    assert "ARENA_SERVER" in result.stdout
