"""Every core, and across nodes: decisions/s of ``arena serve --workers 2`` against ``--workers 1``,
and of matches whose bots are on two nodes against matches on one node, all in one run.

Everything runs in its own process: a Redis 7 (Debian's), the arena's node or worker processes, and
two bot processes of lightweight simulated bots answering a random legal action, each bot on its own
connection, as real bots are: the Go kit's ``bin/loadbots`` (``--bots go``, the default when
``make -C clients/go build`` builds it) or ``arena.cli.loadtest_bots`` (``--bots python``), which have
one command line and one output. Python bots cost about as much CPU per decision as the arena does,
so on 2 cores they take the core a second worker needs; each figure prints the bots' CPU per decision
beside the arena's. This process only starts the matches: C 2-player pairs, each always playing one
match (a new one as soon as one ends), counted over the same window. Where each bot landed is read
from the arena's bot directory in Redis, so the 2-worker figure is split into matches whose two bots
are on the same worker and matches across workers.

Each figure also prints the machine's busy cores over its window (``/proc/stat``: every process,
the benchmark's own included). At the same CPU a decision, two workers can do at most (cores ÷ the
cores busy at one worker) times what one does, however well they share the work: one worker already
keeps its own core busy, and the bots, the fronts and Redis take part of the other. The benchmark
prints that bound and the share of it that two workers reached.

Figures (goals of issue 17): (2) 2 workers / 1 worker >= 1.6; (3) bots on two nodes / one node >= 0.5.
Run: ``python benchmarks/bench_workers.py [--concurrency 64] [--seconds 8] [--bots go|python] [--front]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import enum
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
from bench_stack import keep_playing

from arena.serve.launch import start_serve, stop
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.redis_stores import connect, text
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from arena.wire.common import duration_to_proto

ADMIN = "bench-workers-admin"
METADATA = (("authorization", f"Bearer {ADMIN}"),)
WORKERS_GOAL = 1.6
CROSS_NODE_GOAL = 0.5
GO_KIT = Path(__file__).resolve().parents[1] / "clients" / "go"


class BotsKind(enum.Enum):
    """Which load-test bot program plays."""

    GO = "go"
    PYTHON = "python"


def bots_command(kind: BotsKind) -> list[str]:
    """The load-test bot program, to which ``TOKENS_FILE --server ... --capacity ...`` are appended."""
    if kind is BotsKind.GO:
        return [str(GO_KIT / "bin" / "loadbots")]
    return [sys.executable, "-m", "arena.cli.loadtest_bots"]


def build_go_bots() -> str | None:
    """``make -C clients/go build`` (incremental): None when it built, else why not (one line)."""
    try:
        command = ["make", "-C", str(GO_KIT), "build"]
        done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"make -C {GO_KIT} build: {error}"
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "failed").splitlines()[-1]
        return f"make -C {GO_KIT} build exited {done.returncode}: {last[:200]}"
    return None


@dataclasses.dataclass
class Figure:
    """Decisions/s over the window, and the same split by a label of each pair."""

    rate: float
    by_kind: dict[str, float]
    pairs_by_kind: Counter[str]
    cpu_us: float
    """CPU of the arena's processes (nodes, workers, their supervisor, Redis) per decision."""
    bots_cpu_us: float
    """CPU of the two bot processes per decision, over the same window."""
    busy_cores: float
    """The machine's busy cores over the window, whatever ran (from /proc/stat)."""


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes and all their descendants, from /proc."""
    total = 0.0
    for pid in descendants(pids):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def busy_seconds() -> float:
    """The seconds of CPU the machine's cores have spent busy since boot: user, nice, system, IRQ and
    soft IRQ time (the first line of /proc/stat), not idle, IO wait or a hypervisor's steal."""
    user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in Path("/proc/stat").read_text().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def descendants(pids: list[int]) -> list[int]:
    """The processes and their descendants (read from /proc/PID/task/*/children)."""
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        for task in Path(f"/proc/{pid}/task").glob("*/children") if Path(f"/proc/{pid}").exists() else ():
            with contextlib.suppress(OSError):
                todo.extend(int(child) for child in task.read_text().split())
    return found


async def register(address: str, prefix: str, count: int) -> list[tuple[str, str]]:
    """``count`` new bots named ``prefix-i``, with their tokens."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = registry_pb2_grpc.RegistryServiceStub(channel)
        names = [f"{prefix}-{i:04d}" for i in range(count)]
        answers = await asyncio.gather(
            *(stub.RegisterBot(registry_pb2.RegisterBotRequest(name=n), metadata=METADATA) for n in names)
        )
        return [(name, answer.token) for name, answer in zip(names, answers, strict=True)]


@contextlib.contextmanager
def serving(
    redis_url: str, port: int, node_id: str, data: Path, workers: int, front: bool = False
) -> Iterator[subprocess.Popen[str]]:
    args = ["--address", f"127.0.0.1:{port}", "--redis", redis_url, "--node-id", node_id, "--workers", str(workers)]
    args += ["--admin-token", ADMIN, "--data-dir", str(data), "--metrics-address", "", "--log-level", "warning"]
    args += ["--max-pending-hellos-per-peer", "1024", "--shutdown-grace", "2", "--web-port", "0"]
    args += ["--front"] if front else []
    process = start_serve(args, log=data.with_suffix(".log"))[0]
    try:
        yield process
    finally:
        stop(process, 30)


async def measure(
    redis_url: str,
    bot_servers: tuple[str, str],
    arena_pids: list[int],
    concurrency: int,
    warmup: float,
    window: float,
    folder: Path,
    redis_pid: int,
    command: list[str],
) -> Figure:
    """Play C pairs (first bot of each pair in bot process 0 on ``bot_servers[0]``, second in bot
    process 1 on ``bot_servers[1]``; each a ``command`` process), each match started through the first
    bot's server. Returns decisions/s, split by where the pair's bots are, and the CPU of ``arena_pids``
    (and Redis) and of the bot processes per decision."""
    stamp = time.time_ns()
    first = await register(bot_servers[0], f"p{stamp}", concurrency)
    second = await register(bot_servers[1], f"q{stamp}", concurrency)
    bots = []
    for index, (tokens, server) in enumerate(((first, bot_servers[0]), (second, bot_servers[1]))):
        path = folder / f"tokens-{index}-{time.time_ns()}.txt"
        path.write_text("".join(f"{n} {t}\n" for n, t in tokens))
        bots.append(
            await asyncio.create_subprocess_exec(
                *command, str(path), "--server", server,
                "--capacity", "2", "--per-channel", "1",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 20,
            )
        )  # fmt: skip
    for process in bots:
        assert process.stdout is not None
        if (await asyncio.wait_for(process.stdout.readline(), 120)).decode().strip() != "ready":
            raise RuntimeError("a bot process did not get ready")
    pairs = [[first[i][0], second[i][0]] for i in range(concurrency)]
    client = connect(redis_url)
    homes: dict[str, str] = {}
    for _ in range(600):
        found = await client.mget([f"arena:botat:{name}" for pair in pairs for name in pair])
        if all(found):
            names = [name for pair in pairs for name in pair]
            homes = {name: text(node) for name, node in zip(names, found, strict=True)}
            break
        await asyncio.sleep(0.05)
    await client.aclose()
    if not homes:
        raise RuntimeError("the bots never showed up in the directory")
    kinds = ["same node" if homes[a] == homes[b] else "two nodes" for a, b in pairs]
    ended_by_kind: Counter[str] = Counter()
    pair_of: dict[str, int] = {}
    restart: asyncio.Queue[int] = asyncio.Queue()
    counting = False

    async def read(process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            text = line.decode().split()
            if text and text[0] == "ended" and (pair := pair_of.pop(text[1], None)) is not None:
                if counting:
                    ended_by_kind[kinds[pair]] += 1
                restart.put_nowait(pair)
            elif text and text[0] == "stats":
                stats.append(text[1])

    stats: list[str] = []
    readers = [asyncio.ensure_future(read(p)) for p in bots]
    tc = common_pb2.TimeControl(decision_allowance=duration_to_proto(30.0), time_bank=duration_to_proto(30.0))
    channels = {address: grpc.aio.insecure_channel(address) for address in bot_servers}
    seeds = iter(range(1, 1 << 30))

    async def start(pair: int) -> None:
        stub = match_pb2_grpc.MatchServiceStub(channels[bot_servers[0]])
        request = match_pb2.StartMatchRequest(game="5211", bot_names=pairs[pair], seed=next(seeds), time_control=tc)
        for _ in range(200):
            try:
                pair_of[(await stub.StartMatch(request, metadata=METADATA, timeout=30)).match_id] = pair
                return
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.05)
        raise RuntimeError("a pair never became available")

    driver = asyncio.ensure_future(keep_playing(concurrency, start, restart))
    await asyncio.sleep(warmup)
    watched, bot_pids = [*arena_pids, redis_pid], [process.pid for process in bots]
    counting, began = True, time.perf_counter()
    cpu, bots_cpu, busy = cpu_seconds(watched), cpu_seconds(bot_pids), busy_seconds()
    await asyncio.sleep(window)
    counting, elapsed = False, time.perf_counter() - began
    cpu, bots_cpu, busy = cpu_seconds(watched) - cpu, cpu_seconds(bot_pids) - bots_cpu, busy_seconds() - busy
    driver.cancel()
    await asyncio.gather(driver, return_exceptions=True)
    for process in bots:
        assert process.stdin is not None
        process.stdin.close()
    await asyncio.wait_for(asyncio.gather(*readers), 60)
    for process in bots:
        await process.wait()
    for channel in channels.values():
        await channel.close()
    per_match = 66  # a 2-player 5211 match: 33 turns of 2 decisions
    by_kind = {kind: count * per_match / elapsed for kind, count in ended_by_kind.items()}
    decisions = max(1, sum(ended_by_kind.values()) * per_match)
    per_decision = 1e6 / decisions
    return Figure(
        sum(by_kind.values()), by_kind, Counter(kinds), cpu * per_decision, bots_cpu * per_decision, busy / elapsed
    )


def describe(figure: Figure, unit: str = "node") -> str:
    split = ", ".join(
        f"{kind.replace('node', unit)}: {figure.by_kind.get(kind, 0.0):,.0f}/s over {figure.pairs_by_kind[kind]} pairs"
        for kind in sorted(figure.pairs_by_kind)
    )
    cpu = f"arena CPU {figure.cpu_us:>4.0f} us/decision, bots' CPU {figure.bots_cpu_us:>4.0f} us/decision"
    cpu += f", {figure.busy_cores:.2f} cores busy"
    return f"{figure.rate:>7,.0f} decisions/s, {cpu}  ({split})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=64, help="matches in flight")
    parser.add_argument("--seconds", type=float, default=8.0, help="measurement window per figure")
    parser.add_argument(
        "--bots",
        choices=[kind.value for kind in BotsKind],
        help="the load-test bots: the Go kit's bin/loadbots (default, when it builds) or arena.cli.loadtest_bots",
    )
    parser.add_argument(
        "--front",
        action="store_true",
        help="each node or worker behind its front (arena serve --front), counted with it",
    )
    args = parser.parse_args()
    kind = BotsKind(args.bots) if args.bots else None
    if kind is not BotsKind.PYTHON:
        if (why := build_go_bots()) is not None:
            if kind is BotsKind.GO:
                print(f"bench_workers: --bots go: the Go load bots do not build ({why})", file=sys.stderr)
                return 2
            print(f"note: the Go load bots do not build, so the Python ones play ({why})")
        kind = BotsKind.GO if why is None else BotsKind.PYTHON
    command = bots_command(kind)
    warmup = 2.0
    binary = shutil.which("redis-server") or "redis-server"
    cores = len(os.sched_getaffinity(0))
    print(f"cores available: {cores}; {args.concurrency} 2-player matches in flight; bots: {kind.value}")
    with tempfile.TemporaryDirectory() as temp, EmbeddedRedis(Path(temp) / "redis", binary=binary) as redis:
        folder = Path(temp)
        assert redis.process is not None
        redis_pid = redis.process.pid
        rates: dict[int, Figure] = {}
        for workers in (1, 2):
            port = free_port()
            address = f"127.0.0.1:{port}"
            with serving(redis.url, port, f"w{workers}", folder / f"w{workers}", workers, args.front) as server:
                rates[workers] = asyncio.run(
                    measure(
                        redis.url,
                        (address, address),
                        [server.pid],
                        args.concurrency,
                        warmup,
                        args.seconds,
                        folder,
                        redis_pid,
                        command,
                    )
                )
            print(f"--workers {workers}: {describe(rates[workers], 'worker')}", flush=True)
        ratio = rates[2].rate / rates[1].rate
        verdict = "met" if ratio >= WORKERS_GOAL else "NOT met"
        print(f"(2) 2 workers / 1 worker: {ratio:.2f}  (goal >= {WORKERS_GOAL}: {verdict})", flush=True)
        allowed = cores / rates[1].busy_cores
        print(
            f"    what {cores} cores allow: {cores} / {rates[1].busy_cores:.2f} cores busy at 1 worker = {allowed:.2f};"
            f" 2 workers reached {ratio / allowed:.0%} of it",
            flush=True,
        )
        ports = [free_port(), free_port()]
        a, b = (f"127.0.0.1:{p}" for p in ports)
        with (
            serving(redis.url, ports[0], "na", folder / "na", 1, args.front) as first,
            serving(redis.url, ports[1], "nb", folder / "nb", 1, args.front) as second,
        ):
            pids = [first.pid, second.pid]
            one = asyncio.run(
                measure(redis.url, (a, a), pids, args.concurrency, warmup, args.seconds, folder, redis_pid, command)
            )
            two = asyncio.run(
                measure(redis.url, (a, b), pids, args.concurrency, warmup, args.seconds, folder, redis_pid, command)
            )
        print(f"bots on one node : {describe(one)}")
        print(f"bots on two nodes: {describe(two)}  (refereed where the first bot is, the other seat relayed)")
        ratio = two.rate / one.rate
        verdict = "met" if ratio >= CROSS_NODE_GOAL else "NOT met"
        print(f"(3) two nodes / one node: {ratio:.2f}  (goal >= {CROSS_NODE_GOAL}: {verdict})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
