"""``arena serve --front``: the node behind ``arena-front`` (``front/``, Rust), as real processes.

The front relays the bot streams to the node over its link and proxies every other call to the
node's gRPC server, naming the client; these tests play matches through it, check that the node
counts each call against the client's address (never one a client names itself), that it closes
the connections that hold a slot for nothing (no handshake in time, or no call open for a while)
but not a bot's, however quiet, and stop it.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.cli.admin import register_bot
from arena.cli.main import FRONT_PROGRAM, built_front, default_front
from arena.grpc.front import LINK_VERSION, front_command
from arena.grpc.peers import FRONT_PEER_HEADER
from arena.serve.launch import READY, serving, stop
from arena.service.limits import Limits
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from tests.buildlock import build_lock
from tests.grpc.rawbot import RawBot

FRONT = built_front()
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
"""What every HTTP/2 client sends first."""
SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""An empty HTTP/2 SETTINGS frame (length 0, type 4, no flags, stream 0)."""
GOAWAY = 7
"""The HTTP/2 frame type of a GOAWAY."""
TIMEOUTS = ("--handshake-timeout-seconds", "1", "--idle-connection-seconds", "1")
BUILD_TIMEOUT = 900.0
"""A cold ``cargo build --release`` of the front compiles tonic and tokio: minutes on two cores."""
BUILT_IN_A_FIXTURE = pytest.mark.timeout(func_only=True)
"""The timeout of the tests of a module whose front fixture may wait for the build: their bodies only,
at the suite's default. ``make pytest`` builds the front in the background at the lowest priority while
two workers run the tests, which can take longer than any test; the build's waits are bounded on their own."""

pytestmark = BUILT_IN_A_FIXTURE


def make_front(target: str) -> subprocess.CompletedProcess[str]:
    """``make target`` in the front's folder's checkout, under its build lock (``scripts/prebuild.sh``
    may be building it: its lock is waited for)."""
    folder = FRONT.parents[2]
    with build_lock(folder, BUILD_TIMEOUT):
        return subprocess.run(
            ["make", target], cwd=folder.parent, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
        )


def build_front() -> Path:
    """Build the front; its path."""
    built = make_front("front")
    if built.returncode != 0:
        pytest.fail(f"make front failed ({built.returncode}):\n{(built.stdout + built.stderr)[-4000:]}")
    assert os.access(FRONT, os.X_OK)
    return FRONT


@pytest.fixture(scope="module")
def front() -> Path:
    """The front, built."""
    return build_front()


@contextmanager
def behind_front(tmp_path: Path, *flags: str) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """``arena serve --front`` with ``flags``: its process, its address and its admin token."""
    args = ["--address", "127.0.0.1:0", "--data-dir", str(tmp_path / "data"), "--front", "--log-format", "text"]
    args += ["--shutdown-grace", "0.5", "--metrics-address", "", "--web-port", "0", *flags]
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


async def read_until_closed(address: str, send: bytes, seconds: float = 5.0) -> tuple[bytes, float]:
    """Connect a raw TCP socket to ``address``, send ``send`` and then nothing, and read until the
    server closes it: what it sent and how long it took. A reset counts as closed."""
    host, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    started = time.monotonic()
    received = b""
    try:
        writer.write(send)
        await writer.drain()
        while chunk := await asyncio.wait_for(reader.read(65536), started + seconds - time.monotonic()):
            received += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the server left the connection open {seconds} s") from None
    finally:
        writer.close()
    return received, time.monotonic() - started


async def check_health(channel: grpc.aio.Channel) -> None:
    """One unary call, proxied to the node: its health check, which says SERVING."""
    health: Any = health_pb2_grpc.HealthStub(channel)  # the type stubs leave out its methods
    response = await health.Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


def frame_types(data: bytes) -> list[int]:
    """The types of the HTTP/2 frames in ``data``, in order."""
    types, at = [], 0
    while at + 9 <= len(data):
        types.append(data[at + 3])
        at += 9 + int.from_bytes(data[at : at + 3])
    return types


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


async def welcomed_bots(address: str, admin: str) -> list[RawBot]:
    """Bots "p" and "q", registered, connected and welcomed."""
    tokens = {name: await asyncio.to_thread(register_bot, address, name, admin) for name in ("p", "q")}
    bots = [RawBot(address, tokens[name]).start() for name in tokens]
    for bot in bots:
        await asyncio.wait_for(bot.welcomed.wait(), 10)
    return bots


async def play_a_match(address: str, admin: str, bots: list[RawBot]) -> str:
    """A 5211 match between "p" and "q" (``bots``), played to its normal end; its id."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        request = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "q"], seed=5)
        started = await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
    ended = await bots[0].wait_ended(started.match_id)
    assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
    return started.match_id


async def test_bots_play_a_match_through_the_front(front: Path, tmp_path: Path) -> None:
    with behind_front(tmp_path) as (node, address, admin):
        assert len(front_processes(node)) == 1
        bots = await welcomed_bots(address, admin)
        match_id = await play_a_match(address, admin, bots)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            record = (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))).record
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert list(record.bot_names) == ["p", "q"]
        # Each bot answered every request it was sent, through the front both ways.
        for bot in bots:
            assert len(bot.messages("action_request")) > 10
            assert bot.error is None
        for bot in bots:
            await bot.stop()


async def test_bots_sharing_a_connection_get_requests_of_every_size_whole_through_the_front(
    front: Path, tmp_path: Path
) -> None:
    """The front gathers what it writes to a connection (its ``Replayed``): a FOOL request is some
    2 KiB, past the size h2 copies into its buffer, and is sent after the buffer, where the small
    ones share it. Four bots of one process share one connection; every request of theirs parses
    and comes in order, and the match ends as normal."""
    with behind_front(tmp_path) as (_, address, admin):
        names = ("f1", "f2", "f3", "f4")
        tokens = {name: await asyncio.to_thread(register_bot, address, name, admin) for name in names}
        bots = [RawBot(address, tokens[name], games=("fool",)).start() for name in names]
        for bot in bots:
            await asyncio.wait_for(bot.welcomed.wait(), 10)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            request = match_pb2.StartMatchRequest(game="fool", bot_names=list(names), seed=3)
            started = await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
        ended = await bots[0].wait_ended(started.match_id, 60)
        assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
        sizes = []
        for bot in bots:
            requests = [r for r in bot.messages("action_request") if r.match_id == started.match_id]
            assert [r.sequence for r in requests] == list(range(1, len(requests) + 1))
            assert bot.error is None
            sizes += [r.ByteSize() for r in requests]
            await bot.stop()
        assert max(sizes) > 1024 > min(sizes), "requests on both sides of the size h2 copies"


def test_the_fronts_own_tests_pass(front: Path) -> None:
    """``make front-test`` (``cargo test`` of ``front/src``): how a connection's writes are gathered."""
    done = make_front("front-test")
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert re.search(r"test result: ok\. [1-9]\d* passed", done.stdout), done.stdout[-2000:]


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


def in_a_session(command: list[str], log: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``command`` in a session of its own, as a shell starts a job; its first line."""
    with open(log, "ab") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


async def test_ctrl_c_in_a_terminal_tells_the_bots_the_node_is_shutting_down(front: Path, tmp_path: Path) -> None:
    """A terminal's Ctrl-C signals its whole foreground process group. The front was in its node's
    group, so it died of the signal at once and its bots' streams broke, where a shutdown tells them
    the node is shutting down. The front is the node's to stop."""
    data = tmp_path / "data"
    command = [sys.executable, "-m", "arena.cli", "serve", "--address", "127.0.0.1:0", "--data-dir", str(data)]
    command += ["--front", "--log-format", "text", "--shutdown-grace", "0.5", "--metrics-address", ""]
    node, line = await asyncio.to_thread(in_a_session, command, tmp_path / "serve.log")
    try:
        address = line.removeprefix(READY)
        token = await asyncio.to_thread(register_bot, address, "p", (data / "admin-token").read_text().strip())
        bot = RawBot(address, token).start()
        await asyncio.wait_for(bot.welcomed.wait(), 10)
        os.killpg(node.pid, signal.SIGINT)
        assert await asyncio.to_thread(node.wait, 20) == 0
        await stream_ended(bot)
        assert bot.error is not None
        assert bot.error.code() == grpc.StatusCode.UNAVAILABLE
        assert "shutting down" in (bot.error.details() or "")
    finally:
        if node.poll() is None:
            os.killpg(node.pid, signal.SIGKILL)
            node.wait()


async def test_a_connection_that_sends_nothing_is_closed_after_the_handshake_timeout_and_frees_its_slot(
    front: Path, tmp_path: Path
) -> None:
    with behind_front(tmp_path, *TIMEOUTS, "--max-connections", "1") as (_, address, _):
        received, seconds = await read_until_closed(address, b"")
        assert received == b""
        assert seconds > 0.5
        # The one connection allowed is free again.
        async with grpc.aio.insecure_channel(address) as channel:
            await check_health(channel)


async def test_a_connection_that_sends_part_of_the_preface_or_something_else_is_closed(
    front: Path, tmp_path: Path
) -> None:
    with behind_front(tmp_path, *TIMEOUTS) as (_, address, _):
        sent = (PREFACE[:16], PREFACE[:-1], b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        for received, _ in await asyncio.gather(*(read_until_closed(address, each) for each in sent)):
            assert received == b""


async def test_a_connection_with_no_call_open_is_sent_a_goaway_and_closed_after_the_idle_timeout(
    front: Path, tmp_path: Path
) -> None:
    with behind_front(tmp_path, *TIMEOUTS) as (_, address, _):
        # Past the handshake, no call: the server's SETTINGS, then its GOAWAY, then the close.
        received, seconds = await read_until_closed(address, PREFACE + SETTINGS)
        types = frame_types(received)
        assert types[0] == 4
        assert GOAWAY in types
        assert seconds > 0.5
        # A client that made a call and then none: its channel sees the connection go.
        async with grpc.aio.insecure_channel(address) as channel:
            await check_health(channel)
            assert channel.get_state() == grpc.ChannelConnectivity.READY
            await asyncio.wait_for(channel.wait_for_state_change(grpc.ChannelConnectivity.READY), 5)
            assert channel.get_state() != grpc.ChannelConnectivity.READY


async def test_a_quiet_bot_stream_keeps_its_connection_past_the_idle_timeout_and_plays(
    front: Path, tmp_path: Path
) -> None:
    with behind_front(tmp_path, *TIMEOUTS) as (_, address, admin):
        bots = await welcomed_bots(address, admin)
        await asyncio.sleep(2.5)
        for bot in bots:
            assert bot.channel is not None
            assert bot.channel.get_state() == grpc.ChannelConnectivity.READY
            assert bot._task is not None and not bot._task.done()
        await play_a_match(address, admin, bots)
        for bot in bots:
            assert bot.error is None
            await bot.stop()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--front", "/nonexistent/arena-front"], "arena serve: --front: no arena-front program at /nonexistent"),
    ],
)
def test_serve_refuses_a_front_it_cannot_start_in_one_line(tmp_path: Path, flags: list[str], said: str) -> None:
    command = [sys.executable, "-m", "arena.cli", "serve", "--data-dir", str(tmp_path), *flags]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(said)
    assert len(done.stderr.strip().splitlines()) == 1


def test_front_without_a_path_is_the_checkouts_build_else_the_one_on_path(front: Path, tmp_path: Path) -> None:
    """An installed arena (the image of deploy/) has no checkout: ``--front`` then runs the
    ``arena-front`` on PATH. A checkout's own build comes first: a front speaks its own checkout's link."""
    built, found, empty = tmp_path / "checkout" / FRONT_PROGRAM, tmp_path / "bin", tmp_path / "empty"
    found.mkdir()
    empty.mkdir()
    (found / FRONT_PROGRAM).symlink_to(front)
    assert default_front(built, str(found)) == found / FRONT_PROGRAM
    assert default_front(built, str(empty)) == built  # neither: the checkout's, for the refusal to name
    built.parent.mkdir()
    built.symlink_to(front)
    assert default_front(built, str(found)) == built
    assert default_front() == FRONT


def test_an_installed_arena_serves_through_the_front_on_its_path(front: Path, tmp_path: Path) -> None:
    """What the image's ``arena serve --front`` does: no checkout build, ``arena-front`` on PATH; the
    image's health check passes through it."""
    found = tmp_path / "bin"
    found.mkdir()
    (found / FRONT_PROGRAM).symlink_to(front)
    installed = "import sys, pathlib, arena.cli.main as m; m.built_front = lambda: pathlib.Path(sys.argv[1]); "
    installed += "sys.exit(m.main(sys.argv[2:]))"
    command = [sys.executable, "-c", installed, str(tmp_path / "no-checkout" / FRONT_PROGRAM), "serve", "--front"]
    command += ["--address", "127.0.0.1:0", "--data-dir", str(tmp_path / "data"), "--metrics-address", ""]
    command += ["--web-port", "0", "--shutdown-grace", "0.5"]
    env = {**os.environ, "PATH": f"{found}{os.pathsep}{os.environ.get('PATH', '')}"}
    node = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        assert node.stdout is not None
        line = node.stdout.readline().strip()
        assert line.startswith(READY), line
        fronts = [Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0] for pid in front_processes(node)]
        assert fronts == [str(found / FRONT_PROGRAM).encode()]
        check = [sys.executable, str(Path(__file__).parents[1] / "deploy" / "healthcheck.py"), line.removeprefix(READY)]
        assert subprocess.run(check, capture_output=True, timeout=30, check=False).returncode == 0
    finally:
        stop(node)


def test_a_front_that_refuses_its_tls_files_is_reported_as_the_front_not_the_address(
    front: Path, tmp_path: Path
) -> None:
    """The front's own refusal (here: a certificate that is not there) was reported as "cannot listen
    on ADDRESS: ...: check --address", which sent the operator to the wrong flag."""
    missing = tmp_path / "missing.pem"
    command = [sys.executable, "-m", "arena.cli", "serve", "--data-dir", str(tmp_path / "data"), "--front"]
    command += ["--address", "127.0.0.1:0", "--web-port", "0", "--metrics-address", ""]
    command += ["--tls-cert", str(missing), "--tls-key", str(missing)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    [line] = [line for line in done.stderr.strip().splitlines() if not line.startswith("{")]  # the logs are JSON
    assert "front" in line
    assert str(missing) in line
    assert "--address" not in line


def test_a_front_of_another_link_version_refuses_to_start_and_says_to_rebuild_it(front: Path, tmp_path: Path) -> None:
    """A node and a front built from different checkouts may frame the link differently (a front
    that dropped the node's CONFIRM frames would lose match ends): the front refuses to start."""
    command = [str(front), "--listen", "127.0.0.1:0", "--node", str(tmp_path / "link.sock")]
    command += ["--backend", str(tmp_path / "grpc.sock"), "--link-version", str(LINK_VERSION + 1)]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f'arena-front: --link-version: the node speaks version "{LINK_VERSION + 1}" of the link, this front '
        f'"{LINK_VERSION}": build the front of the node\'s checkout (make front)'
    )
    assert "--link-version" in front_command(front, "127.0.0.1:0", tmp_path, Limits(), False)[0]
