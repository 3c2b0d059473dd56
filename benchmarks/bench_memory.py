"""Memory per connected idle bot: an arena node's resident memory with 1,000 and with 10,000 bots
connected, each on a fresh node, over the same node idle (goal of issue 17: under 20 KiB each with 10,000).

The bots are lightweight simulated ones (``arena.cli.loadtest_bots``: one stream each, 50 streams per
channel) in other processes; they connect, say Hello and wait. The node's ``arena_connected_bots``
gauge confirms they are all connected. It also prints the share of a core the node spends while they
idle (its heartbeats re-announce every bot). Run: ``python benchmarks/bench_memory.py``.

``--echo-only --option NAME=VALUE ... --per-channel N`` measures only the bare ``grpc.aio`` floor
with those server channel arguments (how the gRPC options were tried: BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from bench_stack import cpu_seconds, front_of, start_echo

from arena.cli.loadtest import _register, counter_total, local_arena

GOAL_KIB = 20
WAVE = 1000
IDLE_SECONDS = 10.0
"""How long the node's CPU is read with its bots connected and idle (five heartbeats)."""


def rss_bytes(pid: int) -> int:
    """Resident memory of a process; a node's with its front's (``arena serve --front``)."""
    front = front_of(pid)
    return _rss(pid) + (_rss(front) if front is not None else 0)


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def settle(pid: int) -> int:
    """RSS once it stops moving (a few samples apart)."""
    last = rss_bytes(pid)
    for _ in range(20):
        time.sleep(0.5)
        now = rss_bytes(pid)
        if abs(now - last) < 256 * 1024:
            return now
        last = now
    return last


def connected_bots(metrics_url: str) -> int:
    """The node's ``arena_connected_bots`` gauge."""
    text = urllib.request.urlopen(metrics_url, timeout=30).read().decode()
    return int(counter_total(text, "arena_connected_bots"))


@contextmanager
def idle_bots(tokens: list[tuple[str, str]], address: str, folder: Path) -> Iterator[None]:
    """``tokens``' bots connected to ``address`` and idle (``arena.cli.loadtest_bots`` processes of
    at most ``WAVE`` bots, started one after the other: a node lets 1,024 bot streams await their
    Hello at once, and these all say it at once), until the block ends."""
    bots = []
    try:
        for start in range(0, len(tokens), WAVE):
            path = folder / f"tokens-{len(tokens)}-{start}.txt"
            path.write_text("".join(f"{n} {t}\n" for n, t in tokens[start : start + WAVE]))
            bot = subprocess.Popen(
                [sys.executable, "-m", "arena.cli.loadtest_bots", str(path), "--server", address],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            bots.append(bot)
            assert bot.stdout is not None
            if bot.stdout.readline().strip() != "ready":
                raise RuntimeError(f"the bots did not connect to {address}")
        yield
    finally:
        for bot in bots:
            assert bot.stdin is not None
            bot.stdin.close()
        for bot in bots:
            bot.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--echo-only", action="store_true", help="only the bare grpc.aio floor")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a channel argument of the echo server"
    )
    parser.add_argument("--front", action="store_true", help="the node behind its front (arena serve --front)")
    parser.add_argument("--per-channel", type=int, default=50, help="echo streams per connection (default 50)")
    args = parser.parse_args()
    options = [(name, int(value)) for name, value in (option.split("=", 1) for option in args.option)]
    if args.echo_only:
        echo_floor(max(args.bots), options, args.per_channel)
        return 0
    print(f"{'bots':>6}  {'connected':>9}  {'node RSS MiB':>12}  {'KiB per bot':>11}  {'idle CPU %':>10}")
    for count in args.bots:
        # A fresh node for each count: what a node that never held more bots needs for them.
        with (
            tempfile.TemporaryDirectory() as folder,
            local_arena(Path(folder) / "data", front=args.front) as (address, url, server, admin),
        ):
            base = settle(server.pid)
            tokens = asyncio.run(_register(address, count, admin))
            with idle_bots(tokens, address, Path(folder)):
                rss = settle(server.pid)
                before = cpu_seconds(server.pid)
                time.sleep(IDLE_SECONDS)
                busy = (cpu_seconds(server.pid) - before) / IDLE_SECONDS * 100
                connected = connected_bots(url)
                per_bot = (rss - base) / max(1, connected) / 1024
                verdict = (
                    f"  (goal < {GOAL_KIB} KiB: {'met' if per_bot < GOAL_KIB else 'NOT met'})"
                    if count >= 10_000
                    else ""
                )
                idle = f"(idle node {base / 2**20:.1f} MiB)"
                row = f"{count:>6}  {connected:>9}  {rss / 2**20:>12.1f}  {per_bot:>11.1f}  {busy:>10.1f}"
                print(f"{row}  {idle}{verdict}", flush=True)
                if connected < count:  # a Hello refused or timed out under load: counted per connected bot
                    print(f"        ({count - connected} of the {count} bots did not connect)", flush=True)
    echo_floor(max(args.bots))
    return 0


def echo_floor(count: int, options: list[tuple[str, int]] | None = None, per_channel: int = 50) -> None:
    """The same for a bare ``grpc.aio`` echo server holding ``count`` idle streams (``per_channel`` per
    connection), with the channel arguments ``options``: what gRPC itself needs per stream, below
    which no node can go."""
    server = start_echo(json.dumps(options or []))
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = settle(server.pid)

        async def hold() -> int:
            channels = [
                grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range((count + per_channel - 1) // per_channel)
            ]
            queues: list[asyncio.Queue[bytes | None]] = []
            calls: list[grpc.aio.StreamStreamCall[bytes, bytes]] = []
            for index in range(count):
                queue: asyncio.Queue[bytes | None] = asyncio.Queue()

                async def requests(queue: asyncio.Queue[bytes | None] = queue) -> AsyncIterator[bytes]:
                    while (item := await queue.get()) is not None:
                        yield item

                ping: grpc.aio.StreamStreamMultiCallable[bytes, bytes]
                ping = channels[index // per_channel].stream_stream("/bench.Echo/Ping")
                calls.append(ping(requests()))
                queue.put_nowait(b"x" * 64)
                queues.append(queue)
                if len(calls) % 500 == 0 or index == count - 1:
                    await asyncio.gather(*(call.read() for call in calls[-(len(calls) % 500 or 500) :]))
            rss = await asyncio.to_thread(settle, server.pid)
            for queue in queues:
                queue.put_nowait(None)
            for channel in channels:
                await channel.close()
            return rss

        rss = asyncio.run(hold())
        said = f", options {', '.join(f'{n}={v}' for n, v in options)}" if options else ""
        print(
            f"bare grpc.aio echo server, {count} idle streams, {per_channel} per connection{said}: "
            f"{(rss - base) / count / 1024:.1f} KiB per stream"
        )
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
