"""Full-stack throughput: decisions/s through arena server + gRPC + Python SDK bots, against a raw
grpc.aio bidirectional ping-pong measured in the same run at the same concurrency.

- arena: an ``arena serve`` process; in this process P·C SDK bots (an async random policy), grouped
  into C P-player matches kept in flight (a new match starts as soon as one ends); the bots'
  decisions are counted over a fixed window (a simultaneous turn of 4 players is 4 decisions).
  Each decision is one message each way on a bot's stream, as each raw round trip is one message
  each way on a stream.
- raw: a bare grpc.aio echo server process; in this process C streams, each doing sequential
  request/response round trips of a 64-byte message, counted over a window as long, once just before
  the arena's window and once just after: their mean is the baseline, so a machine whose speed drifts
  over the minute moves both sides of the ratio alike.

The ratio is arena decisions/s over raw round trips/s (goal: at least 0.5 at 64). It also reads the
node's ``arena_referee_overhead_seconds`` histogram over the window: the referee's own time from the
answer that completed a turn to the write of the next request, at p50 and p99; and how many matches
were in play on average (the seconds of play of the matches that ended in the window, over its
length), which shows that the C matches were kept in flight.
Run: ``python benchmarks/bench_stack.py [--players 2 4] [--concurrency 1 64]``.
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
import urllib.request
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import grpc
from arena_bot import Bot, Turn
from prometheus_client.parser import text_string_to_metric_families

from arena.cli.admin import register_bot
from arena.cli.loadtest import local_arena
from arena.store.embedded import dies_with_parent
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.wire.common import duration_to_proto

HERE = Path(__file__).resolve().parent
GOAL = 0.5
"""Arena decisions/s over raw round trips/s at 64 concurrent matches (issue 17)."""
OVERHEAD = "arena_referee_overhead_seconds"
PLAYED = "arena_match_duration_seconds_sum"
"""The seconds of play of the matches ended so far: their growth over a window, divided by its length,
is how many matches were in play on average."""
ACTIVE = "arena_active_matches"
SETTLE_SECONDS = 60.0
"""How long the matches still in play after a window may take to end (a 5211 match takes about a second)."""


@dataclasses.dataclass
class Reading:
    """What the node's /metrics said at one moment: the overhead histogram's cumulative bucket counts
    (upper bound -> count), the seconds its ended matches played and the matches it referees."""

    overhead: dict[float, float]
    played: float
    active: float

    @classmethod
    def of(cls, metrics_url: str) -> Reading:
        text = urllib.request.urlopen(metrics_url, timeout=10).read().decode()
        overhead: dict[float, float] = {}
        played = active = 0.0
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == f"{OVERHEAD}_bucket":
                    bound = float(sample.labels["le"])
                    overhead[bound] = overhead.get(bound, 0.0) + sample.value
                elif sample.name == PLAYED:
                    played += sample.value
                elif sample.name == ACTIVE:
                    active += sample.value
        return cls(overhead, played, active)


def settle(metrics_url: str) -> None:
    """Wait until the node referees no match: the matches started before a window ended play out
    while their bots still run, so none ends in the next window (with a forfeit, its duration counted)."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while Reading.of(metrics_url).active and time.monotonic() < deadline:
        time.sleep(0.05)


def quantile(before: dict[float, float], after: dict[float, float], q: float) -> float | None:
    """The ``q`` quantile of what a histogram gained between two readings (linear within a bucket)."""
    ordered = sorted((bound, count - before.get(bound, 0.0)) for bound, count in after.items())
    if not ordered or ordered[-1][1] <= 0:
        return None
    rank, lower, below = q * ordered[-1][1], 0.0, 0.0
    for bound, count in ordered:
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * ((rank - below) / (count - below) if count > below else 0.0)
        lower, below = bound, count
    return lower


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU time of a process (this one by default), from /proc."""
    return sum(cpu_split(pid))


def front_of(pid: int) -> int | None:
    """The ``arena-front`` child of node ``pid`` (``arena serve --front``), if it has one."""
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        if Path(f"/proc/{child}/exe").resolve().name == "arena-front":
            return int(child)
    return None


def cpu_split(pid: int | None = None) -> tuple[float, float]:
    """User and system CPU time of a process (this one by default), from /proc; a node's with its
    front's (``arena serve --front``: the front does the node's transport work)."""
    if pid is None:
        times = os.times()
        return times.user, times.system
    user, system = _cpu_split(pid)
    front = front_of(pid)
    if front is not None:
        front_user, front_system = _cpu_split(front)
        user, system = user + front_user, system + front_system
    return user, system


def _cpu_split(pid: int) -> tuple[float, float]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


@dataclasses.dataclass
class Measure:
    """A rate and the CPU each side spent per unit, over one window; the referee's overhead (p50, p99 s)."""

    rate: float
    server_cpu_us: float
    client_cpu_us: float
    overhead: tuple[float | None, float | None] = (None, None)
    window: float = 0.0
    """Seconds measured."""
    server_system_us: float = 0.0
    """The part of ``server_cpu_us`` spent in the kernel (system time)."""
    in_play: float | None = None
    """Matches in play on average over the window (from the node's metrics)."""

    @staticmethod
    def mean(first: Measure, second: Measure) -> Measure:
        """The mean of two windows of the same load (the raw echo's, before and after the arena's)."""
        return Measure(
            (first.rate + second.rate) / 2,
            (first.server_cpu_us + second.server_cpu_us) / 2,
            (first.client_cpu_us + second.client_cpu_us) / 2,
            window=first.window + second.window,
            server_system_us=(first.server_system_us + second.server_system_us) / 2,
        )


class Window:
    """Counts units and CPU (and the node's overhead histogram, given its URL) between ``begin`` and ``end``."""

    def __init__(self, server_pid: int, metrics_url: str | None = None) -> None:
        self.server_pid = server_pid
        self.metrics_url = metrics_url

    def begin(self, count: int) -> None:
        self.reading = Reading.of(self.metrics_url) if self.metrics_url else None
        self.count, self.time = count, time.perf_counter()
        self.server, self.client = cpu_split(self.server_pid), cpu_seconds()

    def end(self, count: int) -> Measure:
        units = max(1, count - self.count)
        elapsed = time.perf_counter() - self.time
        user, system = (after - before for after, before in zip(cpu_split(self.server_pid), self.server, strict=True))
        server = user + system
        client = cpu_seconds() - self.client
        overhead: tuple[float | None, float | None] = (None, None)
        in_play = None
        if self.metrics_url and self.reading is not None:
            before, after = self.reading, Reading.of(self.metrics_url)
            overhead = (quantile(before.overhead, after.overhead, 0.5), quantile(before.overhead, after.overhead, 0.99))
            in_play = (after.played - before.played) / elapsed
        return Measure(
            units / elapsed,
            server / units * 1e6,
            client / units * 1e6,
            overhead,
            elapsed,
            system / units * 1e6,
            in_play,
        )


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


async def keep_playing(
    concurrency: int, start: Callable[[int], Coroutine[Any, Any, None]], ended: asyncio.Queue[int]
) -> None:
    """Start a match for each of ``concurrency`` groups, then each group's next one as soon as ``ended``
    names it, whatever the others do (one start after another would hold the matches in flight well
    under ``concurrency``); until cancelled."""
    async with asyncio.TaskGroup() as starting:
        for group in range(concurrency):
            starting.create_task(start(group))
        while True:
            starting.create_task(start(await ended.get()))


async def arena_rate(
    address: str,
    admin: str,
    server_pid: int,
    concurrency: int,
    warmup: float,
    window: float,
    players: int = 2,
    metrics_url: str | None = None,
    start_address: str | None = None,
    counting: Any = None,
) -> Measure:
    """Decisions/s of ``concurrency`` groups of ``players`` SDK bots, each group always playing one
    match. The bots connect to ``address``; matches are started through ``start_address`` (the same
    by default; another node of the arena refers them across nodes)."""
    stamp = time.time_ns()
    pairs = [[f"bench-{concurrency}-{p}-{i}-{stamp}" for i in range(players)] for p in range(concurrency)]
    names = [name for pair in pairs for name in pair]
    tokens = await asyncio.gather(*(asyncio.to_thread(register_bot, address, name, admin) for name in names))
    ended: asyncio.Queue[int] = asyncio.Queue()
    bots = [CountingRandomBot(1, ended, index // players) if index % players == 0 else CountingRandomBot(1, None, 0)
            for index in range(len(names))]  # fmt: skip
    runs = [asyncio.ensure_future(bot.run_async(address, token)) for bot, token in zip(bots, tokens, strict=True)]
    async with grpc.aio.insecure_channel(start_address or address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        tc = common_pb2.TimeControl(decision_allowance=duration_to_proto(30.0), time_bank=duration_to_proto(30.0))
        seeds = iter(range(1, 1 << 30))

        async def start(pair: int) -> None:
            request = match_pb2.StartMatchRequest(game="5211", bot_names=pairs[pair], seed=next(seeds), time_control=tc)
            for _ in range(2000):  # the bots may still be connecting
                try:
                    await stub.StartMatch(request, metadata=(("authorization", f"Bearer {admin}"),))
                    return
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.05)
            raise RuntimeError("the bots never became available")

        driver = asyncio.ensure_future(keep_playing(concurrency, start, ended))
        await asyncio.sleep(warmup)
        meter = Window(server_pid, metrics_url)
        if counting is not None:
            counting.begin()
        meter.begin(sum(b.decisions for b in bots))
        await asyncio.sleep(window)
        rate = meter.end(sum(b.decisions for b in bots))
        if counting is not None:
            counting.end()
        driver.cancel()
        await asyncio.gather(driver, return_exceptions=True)
    if metrics_url is not None:
        await asyncio.to_thread(settle, metrics_url)
    for bot in bots:
        bot.stop()
    await asyncio.gather(*runs, return_exceptions=True)
    return rate


async def raw_rate(
    port: int, server_pid: int, concurrency: int, warmup: float, window: float, counting: Any = None
) -> Measure:
    count = 0
    stop = False
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        ping: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream("/bench.Echo/Ping")

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
        if counting is not None:
            counting.begin()
        meter.begin(count)
        await asyncio.sleep(window)
        rate = meter.end(count)
        if counting is not None:
            counting.end()
        stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
    return rate


def with_system(measure: Measure) -> str:
    """The server's CPU per unit, and in brackets the part of it in the kernel."""
    return f"{measure.server_cpu_us:.0f} ({measure.server_system_us:.0f})"


def count(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.3f}"


def start_echo(*args: str) -> subprocess.Popen[str]:
    """The bare ``grpc.aio`` echo server (``pingpong_server.py ARGS``), which prints its port first.
    It stops if this process is killed (call from the main thread): a benchmark stopped with a
    signal used to leave it running."""
    command = [*dies_with_parent(), sys.executable, str(HERE / "pingpong_server.py"), *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seconds", type=float, default=5.0, help="measurement window per figure")
    parser.add_argument("--front", action="store_true", help="the node behind its front (arena serve --front)")
    args = parser.parse_args()
    warmup = 1.5
    pingpong = start_echo()
    try:
        assert pingpong.stdout is not None
        port = int(pingpong.stdout.readline())
        with (
            tempfile.TemporaryDirectory() as data,
            local_arena(Path(data), front=args.front) as (address, metrics, server, admin),
        ):
            print(
                f"{'players':>7} {'concurrency':>11}  {'arena decisions/s':>17}  {'raw round trips/s':>17}  "
                f"{'ratio':>5}  {'CPU us/unit: arena server (system)':>34} {'client':>6}  {'raw server (system)':>19} "
                f"{'client':>6}  "
                f"{'referee overhead p50 ms':>23} {'p99 ms':>7}  {'matches in play':>15}"
            )
            for players in args.players:
                for concurrency in args.concurrency:
                    before = asyncio.run(raw_rate(port, pingpong.pid, concurrency, warmup, args.seconds))
                    arena = asyncio.run(
                        arena_rate(address, admin, server.pid, concurrency, warmup, args.seconds, players, metrics)
                    )
                    after = asyncio.run(raw_rate(port, pingpong.pid, concurrency, warmup, args.seconds))
                    raw = Measure.mean(before, after)
                    ratio = arena.rate / raw.rate
                    goal = f"  (goal >= {GOAL}: {'met' if ratio >= GOAL else 'NOT met'})" if concurrency == 64 else ""
                    print(
                        f"{players:>7} {concurrency:>11}  {arena.rate:>17,.0f}  {raw.rate:>17,.0f}  {ratio:>5.2f}  "
                        f"{with_system(arena):>34} {arena.client_cpu_us:>6.0f}  "
                        f"{with_system(raw):>19} {raw.client_cpu_us:>6.0f}  "
                        f"{ms(arena.overhead[0]):>23} {ms(arena.overhead[1]):>7}  {count(arena.in_play):>15}{goal}"
                        f"  (raw {before.rate:,.0f} before, {after.rate:,.0f} after)",
                        flush=True,
                    )
    finally:
        pingpong.kill()
        pingpong.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
