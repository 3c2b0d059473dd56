"""Full-stack throughput: decisions/s through arena server + gRPC + Python SDK bots, against a raw
grpc.aio bidirectional ping-pong measured in the same run at the same concurrency.

- arena: an ``arena serve`` process; in this process 2C SDK bots (an async random policy), paired
  into C 2-player matches kept in flight (a new match starts as soon as one ends); the bots'
  decisions are counted over a fixed window. Each decision is one message each way on a bot's
  stream, as each raw round trip is one message each way on a stream.
- raw: a bare grpc.aio echo server process; in this process C streams, each doing sequential
  request/response round trips of a 64-byte message, counted over the same window.

The ratio is arena decisions/s over raw round trips/s. Run: ``python benchmarks/bench_stack.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from arena_bot import Bot, Turn

from arena.admin import register_bot
from arena.loadtest import local_arena
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.wire.common import duration_to_proto

HERE = Path(__file__).resolve().parent


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU time of a process (this one by default), from /proc."""
    if pid is None:
        times = os.times()
        return times.user + times.system
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclasses.dataclass
class Measure:
    """A rate and the CPU each side spent per unit, over one window."""

    rate: float
    server_cpu_us: float
    client_cpu_us: float


class Window:
    """Counts units and CPU between ``begin`` and ``end``."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid

    def begin(self, count: int) -> None:
        self.count, self.time = count, time.perf_counter()
        self.server, self.client = cpu_seconds(self.server_pid), cpu_seconds()

    def end(self, count: int) -> Measure:
        units = max(1, count - self.count)
        elapsed = time.perf_counter() - self.time
        server = cpu_seconds(self.server_pid) - self.server
        client = cpu_seconds() - self.client
        return Measure(units / elapsed, server / units * 1e6, client / units * 1e6)


class CountingRandomBot(Bot):
    """A uniformly random legal action, answered on the event loop; counts its decisions."""

    games = ("5211",)

    def __init__(self, capacity: int, ended: asyncio.Queue[int] | None, pair: int) -> None:
        self.max_concurrent_matches = capacity
        self.decisions = 0
        self.ended = ended
        self.pair = pair
        self._rng = random.Random(7)

    async def act(self, turn: Turn) -> str:
        self.decisions += 1
        return self._rng.choice(turn.legal_actions)

    def on_match_end(self, result: Any) -> None:
        if self.ended is not None:
            self.ended.put_nowait(self.pair)


async def arena_rate(
    address: str, admin: str, server_pid: int, concurrency: int, warmup: float, window: float
) -> Measure:
    """Decisions/s of ``concurrency`` pairs of SDK bots, each pair always playing one match."""
    stamp = time.time_ns()
    pairs = [[f"bench-{concurrency}-{p}-{i}-{stamp}" for i in range(2)] for p in range(concurrency)]
    names = [name for pair in pairs for name in pair]
    tokens = await asyncio.gather(*(asyncio.to_thread(register_bot, address, name, admin) for name in names))
    ended: asyncio.Queue[int] = asyncio.Queue()
    bots = [CountingRandomBot(1, ended, index // 2) if index % 2 == 0 else CountingRandomBot(1, None, 0)
            for index in range(len(names))]  # fmt: skip
    runs = [asyncio.ensure_future(bot.run_async(address, token)) for bot, token in zip(bots, tokens, strict=True)]
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        tc = common_pb2.TimeControl(decision_allowance=duration_to_proto(30.0), time_bank=duration_to_proto(30.0))
        seeds = iter(range(1, 1 << 30))

        async def start(pair: int) -> None:
            request = match_pb2.StartMatchRequest(game="5211", bot_names=pairs[pair], seed=next(seeds), time_control=tc)
            for _ in range(400):  # the bots may still be connecting
                try:
                    await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
                    return
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
            raise RuntimeError("the bots never became available")

        async def keep_going() -> None:
            await asyncio.gather(*(start(pair) for pair in range(concurrency)))
            while True:
                await start(await ended.get())

        driver = asyncio.ensure_future(keep_going())
        await asyncio.sleep(warmup)
        meter = Window(server_pid)
        meter.begin(sum(b.decisions for b in bots))
        await asyncio.sleep(window)
        rate = meter.end(sum(b.decisions for b in bots))
        driver.cancel()
        await asyncio.gather(driver, return_exceptions=True)
    for bot in bots:
        bot.stop()
    await asyncio.gather(*runs, return_exceptions=True)
    return rate


async def raw_rate(port: int, server_pid: int, concurrency: int, warmup: float, window: float) -> Measure:
    count = 0
    stop = False
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        ping = channel.stream_stream("/bench.Echo/Ping")

        async def one() -> None:
            nonlocal count
            queue: asyncio.Queue[bytes | None] = asyncio.Queue()

            async def requests() -> AsyncIterator[bytes]:
                while (item := await queue.get()) is not None:
                    yield item

            call = ping(requests())
            payload = b"x" * 64
            while not stop:
                queue.put_nowait(payload)
                await call.read()
                count += 1
            queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await call.read()

        tasks = [asyncio.ensure_future(one()) for _ in range(concurrency)]
        await asyncio.sleep(warmup)
        meter = Window(server_pid)
        meter.begin(count)
        await asyncio.sleep(window)
        rate = meter.end(count)
        stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
    return rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--seconds", type=float, default=5.0, help="measurement window per figure")
    args = parser.parse_args()
    warmup = 1.5
    pingpong = subprocess.Popen([sys.executable, str(HERE / "pingpong_server.py")], stdout=subprocess.PIPE, text=True)
    try:
        assert pingpong.stdout is not None
        port = int(pingpong.stdout.readline())
        with tempfile.TemporaryDirectory() as data, local_arena(Path(data)) as (address, _metrics, server, admin):
            print(
                f"{'concurrency':>11}  {'arena decisions/s':>17}  {'raw round trips/s':>17}  {'ratio':>5}  "
                f"{'CPU us/unit: arena server':>25} {'client':>6}  {'raw server':>10} {'client':>6}"
            )
            for concurrency in args.concurrency:
                arena = asyncio.run(arena_rate(address, admin, server.pid, concurrency, warmup, args.seconds))
                raw = asyncio.run(raw_rate(port, pingpong.pid, concurrency, warmup, args.seconds))
                print(
                    f"{concurrency:>11}  {arena.rate:>17,.0f}  {raw.rate:>17,.0f}  {arena.rate / raw.rate:>5.2f}  "
                    f"{arena.server_cpu_us:>25.0f} {arena.client_cpu_us:>6.0f}  "
                    f"{raw.server_cpu_us:>10.0f} {raw.client_cpu_us:>6.0f}",
                    flush=True,
                )
    finally:
        pingpong.kill()
        pingpong.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
