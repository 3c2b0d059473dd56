"""What a front outside Python would save the node: the gateway trial against the node as it is.

Issue 17's figures 1 and 5 are not met by the node as it is (BENCHMARKS.md says why). This trial
measures the design those sections point to before anyone builds it: a compiled front holds the
bots' gRPC streams and relays their messages to the node over one Unix socket, batched, to the
node's own ``BotServicer.Connect`` (``gateway_trial_node.py``). The front is in Rust (tonic,
``benchmarks/gateway_trial_rs/``) or, with ``--front go``, in Go (grpc-go,
``benchmarks/gateway_trial/``). In the same run, on the same node process:

- **stack**: 64 2-player matches of SDK bots connected to the node's gRPC port, then the same
  through the gateway; the node's CPU a decision and the gateway's, beside bare echo servers'
  CPU a round trip (``grpc.aio``, as figure 1's, and the front's library's);
- **memory**: idle bots (``arena.cli.loadtest_bots``, 50 streams a connection) through the gateway:
  the node's and the gateway's resident memory a bot, beside the bare echo servers' a stream.

Needs Rust (``cargo build --release``; the first build takes a few minutes) or Go. Not part of
``make bench``: a trial. Run: ``python benchmarks/bench_gateway_trial.py [--front rust|go]
[--rounds 2] [--bots 4000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_memory import connected_bots, echo_floor, idle_bots, settle
from bench_stack import HERE, Measure, arena_rate, cpu_seconds, raw_rate

from arena.cli.loadtest import _register
from arena.serve.launch import READY, stop
from arena.store.embedded import dies_with_parent, free_port

WARMUP, WINDOW, CONCURRENCY = 1.5, 5.0, 64
FRONTS = {"rust": ("tonic", "gateway_trial_rs"), "go": ("grpc-go", "gateway_trial")}
"""Each front: its gRPC library, and its folder under benchmarks/."""


class Node:
    """The trial node (``arena serve`` with the gateway's socket beside its gRPC port)."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / "gateway.sock")
        self.admin = secrets.token_urlsafe(24)
        self.metrics = f"http://127.0.0.1:{(port := free_port())}/metrics"
        serve = ["--address", "127.0.0.1:0", "--data-dir", str(folder / "data"), "--web-port", "0"]
        serve += ["--metrics-address", f"127.0.0.1:{port}", "--log-level", "warning", "--shutdown-grace", "2"]
        serve += ["--max-pending-hellos-per-peer", "1024"]
        command = [*dies_with_parent(), sys.executable, str(HERE / "gateway_trial_node.py"), self.socket, "--", *serve]
        environment = {**os.environ, "ARENA_ADMIN_TOKEN": self.admin}
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith(READY):
            stop(self.process, 5)
            raise RuntimeError(f"the trial node did not start: {line!r}")
        self.address = line.removeprefix(READY)


@contextmanager
def running(command: list[str]) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A server that prints its port first, killed at the end."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process, int(process.stdout.readline())
    finally:
        process.kill()
        process.wait()


class GatewayCpu:
    """The gateway's CPU over a measuring window (``arena_rate``'s ``counting`` hook)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seconds = 0.0

    def begin(self) -> None:
        self.seconds = -cpu_seconds(self.pid)

    def end(self) -> None:
        self.seconds += cpu_seconds(self.pid)


def stack(node: Node, gateway: list[str], library: str, rounds: int) -> None:
    print(
        f"{'64 matches, 2 players':<30} {'decisions/s':>11}  {'node CPU us':>11}  {'gateway us':>10}  "
        f"{'node + gateway':>14}  {'SDK bots us':>11}"
    )
    for _ in range(rounds):
        direct = asyncio.run(
            arena_rate(node.address, node.admin, node.process.pid, CONCURRENCY, WARMUP, WINDOW, 2, node.metrics)
        )
        row("bots on the node's gRPC port", direct, 0.0)
        with running([*gateway, "-node", node.socket]) as (front, port):
            cpu = GatewayCpu(front.pid)
            relayed = asyncio.run(
                arena_rate(
                    f"127.0.0.1:{port}",
                    node.admin,
                    node.process.pid,
                    CONCURRENCY,
                    WARMUP,
                    WINDOW,
                    2,
                    counting=cpu,
                    start_address=node.address,
                    node_address=node.address,
                )
            )
        row("bots through the gateway", relayed, cpu.seconds / (relayed.rate * relayed.window) * 1e6)
        echoes = (("grpc.aio", [sys.executable, str(HERE / "pingpong_server.py")]), (library, [*gateway, "-echo"]))
        for name, command in echoes:
            with running(command) as (echo, port):
                raw = asyncio.run(raw_rate(port, echo.pid, CONCURRENCY, WARMUP, WINDOW))
            print(
                f"{'bare ' + name + ' echo, 64 streams':<30} {raw.rate:>11,.0f}  {raw.server_cpu_us:>11.0f}  "
                f"{'':>10}  {'':>14}  {raw.client_cpu_us:>11.0f}  (a round trip)",
                flush=True,
            )


def row(label: str, measure: Measure, gateway_us: float) -> None:
    print(
        f"{label:<30} {measure.rate:>11,.0f}  {measure.server_cpu_us:>11.0f}  {gateway_us:>10.0f}  "
        f"{measure.server_cpu_us + gateway_us:>14.0f}  {measure.client_cpu_us:>11.0f}",
        flush=True,
    )


def memory(node: Node, gateway: list[str], library: str, count: int, folder: Path) -> None:
    with running([*gateway, "-node", node.socket]) as (front, port):
        base, front_base = settle(node.process.pid), settle(front.pid)
        tokens = asyncio.run(_register(node.address, count, node.admin))
        with idle_bots(tokens, f"127.0.0.1:{port}", folder):
            rss, front_rss = settle(node.process.pid), settle(front.pid)
            connected = connected_bots(node.metrics)
            node_kib = (rss - base) / max(1, connected) / 1024
            front_kib = (front_rss - front_base) / max(1, connected) / 1024
            print(
                f"{connected} idle bots through the gateway: node {node_kib:.1f} KiB a bot, gateway "
                f"{front_kib:.1f}, together {node_kib + front_kib:.1f} (goal < 20)",
                flush=True,
            )
    echo_floor(count)
    echo_floor(count, command=[*gateway, "-echo"], name=library)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="stack rounds, each direct then through the gateway")
    parser.add_argument("--bots", type=int, default=4000, help="idle bots for the memory figure (0: none)")
    parser.add_argument("--front", choices=sorted(FRONTS), default="rust", help="the front's language (default rust)")
    args = parser.parse_args()
    library, folder_name = FRONTS[args.front]
    tool = shutil.which("cargo" if args.front == "rust" else "go")
    if tool is None:
        print(
            f"bench_gateway_trial --front {args.front} needs {'cargo' if args.front == 'rust' else 'go'}",
            file=sys.stderr,
        )
        return 2
    source = HERE / folder_name
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.front == "rust":
            subprocess.run([tool, "build", "--release", "--quiet"], cwd=source, check=True)
            binary = source / "target" / "release" / folder_name
        else:
            binary = folder / folder_name
            subprocess.run([tool, "build", "-o", str(binary), "."], cwd=source, check=True)
        node = Node(folder)
        try:
            print(f"the front: {args.front} ({library})")
            stack(node, [str(binary)], library, args.rounds)
            if args.bots:
                time.sleep(1)
                memory(node, [str(binary)], library, args.bots, folder)
        finally:
            stop(node.process, 10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
