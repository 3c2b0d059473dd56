"""``arena serve --front``: the node behind ``arena-front`` (``front/``, Rust), as real processes.

The front relays the bot streams to the node over its link and proxies every other call to the
node's gRPC server, naming the client; these tests play matches through it, check that the node
counts each call against the client's address (never one a client names itself), and stop it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.cli.admin import register_bot
from arena.cli.main import built_front
from arena.grpc.peers import FRONT_PEER_HEADER
from arena.serve.launch import serving
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from tests.buildlock import build_lock
from tests.grpc.rawbot import RawBot

FRONT = built_front()
BUILD_TIMEOUT = 900.0
"""A cold ``cargo build --release`` of the front compiles tonic and tokio: minutes on two cores."""


@pytest.fixture(scope="module")
def front() -> Path:
    """The front, built (``scripts/prebuild.sh`` may be building it: its lock is waited for)."""
    folder = FRONT.parents[2]
    with build_lock(folder, BUILD_TIMEOUT):
        built = subprocess.run(
            ["make", "front"],
            cwd=folder.parent,
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            check=False,
        )
    if built.returncode != 0:
        pytest.fail(f"make front failed ({built.returncode}):\n{(built.stdout + built.stderr)[-4000:]}")
    assert os.access(FRONT, os.X_OK)
    return FRONT


@contextmanager
def behind_front(tmp_path: Path, *flags: str) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """``arena serve --front`` with ``flags``: its process, its address and its admin token."""
    args = ["--address", "127.0.0.1:0", "--data-dir", str(tmp_path / "data"), "--front", "--log-format", "text"]
    args += ["--shutdown-grace", "0.5", "--metrics-address", "", *flags]
    with serving(args, log=tmp_path / "serve.log") as (process, address):
        yield process, address, (tmp_path / "data" / "admin-token").read_text().strip()


def front_processes(node: subprocess.Popen[str]) -> list[int]:
    """The node's child processes that run the front."""
    children = Path(f"/proc/{node.pid}/task/{node.pid}/children").read_text().split()
    return [int(pid) for pid in children if Path(f"/proc/{pid}/exe").resolve().name == FRONT.name]


async def stream_ended(bot: RawBot) -> None:
    """Wait for the server to end ``bot``'s stream (its ``error`` says how)."""
    assert bot._task is not None
    await asyncio.wait_for(bot._task, 10)


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


async def test_bots_play_a_match_through_the_front(front: Path, tmp_path: Path) -> None:
    with behind_front(tmp_path) as (node, address, admin):
        assert len(front_processes(node)) == 1
        tokens = {name: await asyncio.to_thread(register_bot, address, name, admin) for name in ("p", "q")}
        bots = [RawBot(address, tokens[name]).start() for name in tokens]
        for bot in bots:
            await asyncio.wait_for(bot.welcomed.wait(), 10)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            request = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "q"], seed=5)
            started = await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
            ended = await bots[0].wait_ended(started.match_id)
            assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
            record = (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))).record
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert list(record.bot_names) == ["p", "q"]
        # Each bot answered every request it was sent, through the front both ways.
        for bot in bots:
            assert len(bot.messages("action_request")) > 10
            assert bot.error is None
        for bot in bots:
            await bot.stop()


async def test_a_bot_with_a_bad_token_is_refused_through_the_front_as_directly(front: Path, tmp_path: Path) -> None:
    with behind_front(tmp_path) as (_, address, _):
        bot = RawBot(address, "not-a-token").start()
        await stream_ended(bot)
        assert bot.error is not None
        assert bot.error.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_the_node_counts_a_call_through_the_front_against_its_client_not_a_header_it_sends(
    front: Path, tmp_path: Path
) -> None:
    # The admin token is taken only from 10.0.0.0/8: this client is 127.0.0.1, whatever it says.
    with behind_front(tmp_path, "--admin-network", "10.0.0.0/8") as (_, address, admin):
        async with grpc.aio.insecure_channel(address) as channel:
            stub = registry_pb2_grpc.RegistryServiceStub(channel)
            request = registry_pb2.RegisterBotRequest(name="spoof")
            for metadata in (
                (("authorization", f"Bearer {admin}"),),
                (("authorization", f"Bearer {admin}"), (FRONT_PEER_HEADER, "10.1.2.3:4")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.RegisterBot(request, metadata=metadata)
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert "127.0.0.1" in (refused.value.details() or "")


async def test_sigterm_ends_the_bots_streams_and_the_front(front: Path, tmp_path: Path) -> None:
    with behind_front(tmp_path) as (node, address, admin):
        [pid] = front_processes(node)
        token = await asyncio.to_thread(register_bot, address, "p", admin)
        bot = RawBot(address, token).start()
        await asyncio.wait_for(bot.welcomed.wait(), 10)
        node.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(node.wait, 20) == 0
        await stream_ended(bot)
        assert bot.error is not None
        assert bot.error.code() == grpc.StatusCode.UNAVAILABLE
        assert "shutting down" in (bot.error.details() or "")
        assert not running(pid), "the front outlived its node"


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--front", "/nonexistent/arena-front"], "arena serve: --front: no arena-front program at /nonexistent"),
        (["--front", "--tls-cert", "c.pem", "--tls-key", "k.pem"], "arena serve: --front serves no TLS yet"),
    ],
)
def test_serve_refuses_a_front_it_cannot_start_in_one_line(tmp_path: Path, flags: list[str], said: str) -> None:
    command = [sys.executable, "-m", "arena.cli", "serve", "--data-dir", str(tmp_path), *flags]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(said)
    assert len(done.stderr.strip().splitlines()) == 1
