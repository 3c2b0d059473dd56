"""Instructions per decision: the full-stack figure without the noise of a shared machine.

The node (``arena serve``) and the bare ``grpc.aio`` echo server each run under Valgrind's callgrind;
once they are warm, their counts are zeroed, then dumped after a window in which this process
plays 2-player matches with SDK bots (``bench_stack``'s) or does 64-byte echo round trips at the same
concurrency, then the count is dumped. Instructions (Ir) per decision against Ir per round trip is
the CPU ratio of ``bench_stack`` counted exactly: it does not move when other jobs share the cores
(Valgrind slows both servers about fifty times alike). Run: ``python benchmarks/bench_instructions.py``
(needs valgrind; about 3 minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_stack import HERE, arena_rate, raw_rate

from arena.serve.launch import READY
from arena.store.embedded import dies_with_parent, free_port


def under_callgrind(command: list[str], out: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("bench_instructions needs valgrind (apt-get install valgrind)")
    return subprocess.Popen(
        [*dies_with_parent(), valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def control(pid: int, *args: str) -> None:
    subprocess.run(
        ["callgrind_control", *args, str(pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def instructions(out: Path, seconds: float = 120.0) -> int:
    """The Ir total of the dump callgrind writes for ``out`` (waiting for it: Valgrind writes it
    when the process next runs, which on a busy machine takes a while)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for dump in sorted(out.parent.glob(out.name + ".*")):
            match = re.search(r"^totals: (\d+)", dump.read_text(errors="replace"), re.MULTILINE)
            if match:
                return int(match.group(1))
        time.sleep(0.5)
    raise RuntimeError(f"callgrind wrote no dump for {out.name}")


class Counting:
    """Zeroes a callgrind process's counts at ``begin`` and dumps them at ``end``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def begin(self) -> None:
        control(self.pid, "--zero")

    def end(self) -> None:
        control(self.pid, "--dump")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0, help="counted window (under valgrind)")
    parser.add_argument(
        "--front", action="store_true", help="the node behind its front (arena serve --front); the front not counted"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        admin = secrets.token_urlsafe(24)
        port = free_port()
        serve = [sys.executable, "-m", "arena.cli", "serve", "--address", f"127.0.0.1:{port}"]
        serve += ["--data-dir", str(folder / "data"), "--metrics-address", "", "--log-level", "warning"]
        serve += ["--max-pending-hellos-per-peer", "1024", "--shutdown-grace", "2", "--hello-timeout-seconds", "120"]
        if (
            importlib.util.find_spec("arena.web") is not None
        ):  # (an older checkout, measured for comparison, has no site)
            serve += ["--web-port", "0"]
        if args.front:
            serve += ["--front"]
        node = under_callgrind(serve, folder / "node.cg", env={**os.environ, "ARENA_ADMIN_TOKEN": admin})
        echo = under_callgrind([sys.executable, str(HERE / "pingpong_server.py")], folder / "echo.cg")
        try:
            assert node.stdout is not None
            assert echo.stdout is not None
            line = node.stdout.readline().strip()
            if not line.startswith(READY):
                raise RuntimeError(f"arena serve did not start under valgrind: {line!r}")
            echo_port = int(echo.stdout.readline())
            decisions = asyncio.run(counted_arena(f"127.0.0.1:{port}", admin, node.pid, args.concurrency, args.seconds))
            node_ir = instructions(folder / "node.cg")
            trips = asyncio.run(counted_echo(echo_port, echo.pid, args.concurrency, args.seconds))
            echo_ir = instructions(folder / "echo.cg")
        finally:
            for process in (node, echo):
                process.terminate()
            for process in (node, echo):
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    per_decision, per_trip = node_ir / max(1, decisions), echo_ir / max(1, trips)
    print(f"node: {per_decision / 1e6:.3f} M instructions per decision ({decisions} decisions counted)")
    print(f"echo: {per_trip / 1e6:.2f} M instructions per round trip ({trips} round trips counted)")
    print(f"echo/node instructions: {per_trip / per_decision:.2f}  (the CPU-bound throughput ratio; goal >= 0.5)")
    return 0


async def counted_arena(address: str, admin: str, pid: int, concurrency: int, seconds: float) -> int:
    counting = Counting(pid)
    measure = await arena_rate(address, admin, pid, concurrency, 60.0, seconds, 2, None, None, counting)
    return round(measure.rate * measure.window)


async def counted_echo(port: int, pid: int, concurrency: int, seconds: float) -> int:
    counting = Counting(pid)
    measure = await raw_rate(port, pid, concurrency, 30.0, seconds, counting)
    return round(measure.rate * measure.window)


if __name__ == "__main__":
    sys.exit(main())
