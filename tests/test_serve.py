"""``arena serve`` as a real process: embedded Redis, persistence across restarts, graceful SIGTERM."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc

from arena.cli.admin import register_bot
from arena.serve.launch import serving
from arena.store.embedded import free_port
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from tests.grpc.rawbot import RawBot


@contextmanager
def arena_process(data_dir: Path, port: int) -> Iterator[subprocess.Popen[str]]:
    args = ["--address", f"127.0.0.1:{port}", "--data-dir", str(data_dir), "--log-format", "text"]
    args += ["--shutdown-grace", "0.5", "--metrics-address", f"127.0.0.1:{free_port()}", "--web-port", "0"]
    with serving(args, log=data_dir.parent / f"serve-{port}.log") as (process, _):
        yield process


async def test_sigterm_aborts_running_matches_and_a_restart_keeps_everything(tmp_path: Path) -> None:
    port = free_port()
    address = f"127.0.0.1:{port}"
    with arena_process(tmp_path, port) as process:
        admin = (tmp_path / "admin-token").read_text().strip()
        tokens = {name: await asyncio.to_thread(register_bot, address, name, admin) for name in ("p", "q")}
        bots = [RawBot(address, tokens[name], chooser=lambda request: None).start() for name in tokens]
        for bot in bots:
            await asyncio.wait_for(bot.welcomed.wait(), 10)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            request = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "q"], seed=5)
            request.time_control.decision_allowance.FromSeconds(60)
            started = await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
        await asyncio.wait_for(_first_request(bots[0]), 10)
        process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(process.wait, 20) == 0
        for bot in bots:
            await bot.stop()
    with arena_process(tmp_path, port):
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            record = (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))).record
            assert record.outcome.termination == common_pb2.TERMINATION_ABORTED
            assert list(record.bot_names) == ["p", "q"]
        again = RawBot(address, tokens["p"]).start()
        await asyncio.wait_for(again.welcomed.wait(), 10)
        assert again.error is None
        await again.stop()


def test_ctrl_c_in_a_terminal_stops_the_node_before_its_embedded_redis(tmp_path: Path) -> None:
    """A terminal's Ctrl-C signals its whole foreground process group. The embedded Redis was in
    the node's group, so it got the signal too and exited at once. The node's watchdog then said
    "embedded redis exited with 0; restarting" and started it again, in the middle of the shutdown
    that stores the last records. Redis is the node's to stop, after the node has finished.

    The signal is sent as soon as the node says it serves: it said so before it took SIGTERM and
    SIGINT over, and a signal on that line killed it without a shutdown (exit 130)."""
    import os
    import sys

    log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "arena.cli", "serve", "--address", f"127.0.0.1:{free_port()}"]
    command += ["--data-dir", str(tmp_path / "data"), "--log-format", "text", "--web-port", "0"]
    command += ["--metrics-address", f"127.0.0.1:{free_port()}", "--shutdown-grace", "0.5"]
    with open(log, "ab") as stderr:  # a session of its own, as a shell gives a job
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("arena serving on "), log.read_text()
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(30) == 0, log.read_text()[-2000:]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    said = log.read_text()
    assert "embedded redis exited" not in said
    assert "stopped" in said


async def _first_request(bot: RawBot) -> None:
    while not bot.messages("action_request"):  # noqa: ASYNC110 - polling a plain list
        await asyncio.sleep(0.01)


def test_serve_raises_its_open_files_limit_and_refuses_a_connection_cap_above_it(tmp_path: Path) -> None:
    import resource
    import sys

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    limit = hard if hard != resource.RLIM_INFINITY else 1 << 20

    def serve(*flags: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "arena.cli", "serve", "--data-dir", str(tmp_path), *flags]
        # The child starts with a low soft limit: serve raises it to the hard limit before it checks.
        # The shell lowers it (Python in the forked child, preexec_fn, once aborted in gRPC's poller:
        # this process has gRPC's threads).
        lowered = ["sh", "-c", 'ulimit -Sn 256 && exec "$@"', "sh", *command]
        return subprocess.run(lowered, check=False, capture_output=True, text=True, timeout=30)

    refused = serve("--max-connections", str(limit * 2))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"arena serve: --max-connections {limit * 2} does not fit the open-files limit ({limit}, keeping 256 "
        f"spare): lower it to {limit - 256} or raise 'ulimit -n'"
    ]
    zero = serve("--hello-timeout-seconds", "0")
    assert zero.returncode == 2
    assert zero.stderr.strip() == "arena serve: --hello-timeout-seconds must be positive, not 0.0"


def test_the_open_files_soft_limit_is_raised_to_the_hard_one() -> None:
    import resource

    from arena.service.limits import raise_open_files_limit

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
    try:
        raised = raise_open_files_limit(1000)  # does not fit 512: fits once raised
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == raised >= 1256
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_an_admin_network_that_is_none_is_one_line(tmp_path: Path) -> None:
    import sys

    command = [sys.executable, "-m", "arena.cli", "serve", "--data-dir", str(tmp_path), "--admin-network", "10.0.0/8"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "arena serve: --admin-network '10.0.0/8' is not an address or a network (such as 10.0.0.0/8 or fd00::/8)"
    )
