"""``arena loadtest``: many simulated bots in several processes, many matches, figures at the end.

It starts an arena (or targets one with ``--server``), registers the bots, spreads them over
bot processes (``arena.cli.loadtest_bots``), keeps ``concurrency`` matches in flight until ``matches``
have ended, then reports matches/s, decisions/s, the server's decision-latency percentiles and every
error, as a table and as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import grpc
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.catalogue import DEFAULT_GAME
from arena.serve.launch import serving
from arena.store.embedded import free_port
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from arena.wire.common import duration_to_proto


@dataclasses.dataclass
class LoadConfig:
    """What to run."""

    bots: int = 100
    matches: int = 1000
    concurrency: int = 64
    game: str = DEFAULT_GAME
    players: int = 2
    processes: int = 2
    server: str | None = None
    admin_token: str | None = None
    decision_seconds: float = 5.0
    seed: int = 1
    deadline_seconds: float = 3600.0


@dataclasses.dataclass
class LoadResult:
    """What happened."""

    bots: int
    matches: int
    concurrency: int
    players: int
    seconds: float
    matches_per_second: float
    decisions: int
    decisions_per_second: float
    latency_p50: float | None
    latency_p95: float | None
    latency_p99: float | None
    abnormal_matches: int
    start_errors: int
    bot_errors: dict[str, int]
    server_grpc_errors: int

    @property
    def errors(self) -> int:
        """Every error of any kind."""
        return self.abnormal_matches + self.start_errors + sum(self.bot_errors.values()) + self.server_grpc_errors


class LocalArena(NamedTuple):
    """A started local ``arena serve``."""

    address: str
    metrics_url: str
    process: subprocess.Popen[str]
    admin_token: str


@contextlib.contextmanager
def local_arena(data_dir: Path, web_port: int = 0, front: bool = False) -> Iterator[LocalArena]:
    """An ``arena serve`` process with a fresh admin token, which its callers register bots and start
    matches with (no rate limit applies to the admin); its web site on ``web_port`` (0: none); behind
    its front with ``front`` (``--front``). It stops if this process is killed (call from the main
    thread)."""
    metrics_port = free_port()
    admin = secrets.token_urlsafe(24)
    args = ["--address", "127.0.0.1:0", "--data-dir", str(data_dir), "--web-port", str(web_port)]
    args += ["--metrics-address", f"127.0.0.1:{metrics_port}", "--log-level", "warning", "--shutdown-grace", "2"]
    # Every simulated bot dials from this one address, all at once: the per-address Hello cap is for strangers.
    args += ["--max-pending-hellos-per-peer", "1024", *(["--front"] if front else [])]
    with serving(args, env={"ARENA_ADMIN_TOKEN": admin}, with_parent=True) as (process, address):
        yield LocalArena(address, f"http://127.0.0.1:{metrics_port}/metrics", process, admin)


def histogram_quantiles(text: str, name: str, quantiles: tuple[float, ...]) -> list[float | None]:
    """Quantiles of a Prometheus histogram (summed over labels), by linear interpolation in buckets."""
    buckets: dict[float, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == f"{name}_bucket":
                bound = float(sample.labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + sample.value
    ordered = sorted(buckets.items())
    if not ordered or ordered[-1][1] == 0:
        return [None for _ in quantiles]
    total = ordered[-1][1]
    result: list[float | None] = []
    for q in quantiles:
        rank = q * total
        lower_bound, lower_count = 0.0, 0.0
        value = None
        for bound, count in ordered:
            if count >= rank:
                if bound == float("inf"):
                    value = lower_bound
                else:
                    span = count - lower_count
                    fraction = (rank - lower_count) / span if span else 0.0
                    value = lower_bound + (bound - lower_bound) * fraction
                break
            lower_bound, lower_count = bound, count
        result.append(value)
    return result


def counter_total(text: str, name: str) -> float:
    """The sum of a counter over its labels."""
    return sum(s.value for f in text_string_to_metric_families(text) for s in f.samples if s.name == name)


async def _register(address: str, count: int, admin_token: str | None) -> list[tuple[str, str]]:
    metadata = (("authorization", f"Bearer {admin_token}"),) if admin_token else ()
    stamp = f"{os.getpid()}-{int(time.time()) % 100000:05d}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub = registry_pb2_grpc.RegistryServiceStub(channel)
        names = [f"load{stamp}-{i:05d}" for i in range(count)]
        tokens: list[tuple[str, str]] = []
        for start in range(0, count, 100):
            chunk = names[start : start + 100]
            responses = await asyncio.gather(
                *(stub.RegisterBot(registry_pb2.RegisterBotRequest(name=n), metadata=metadata) for n in chunk)
            )
            tokens += [(n, r.token) for n, r in zip(chunk, responses, strict=True)]
        return tokens


async def drive(config: LoadConfig, address: str, metrics_url: str | None, console: Console) -> LoadResult:
    """Register, connect, play, measure."""
    tokens = await _register(address, config.bots, config.admin_token)
    capacity = max(2, (config.concurrency * config.players) // max(1, config.bots) + 2)
    processes: list[asyncio.subprocess.Process] = []
    with tempfile.TemporaryDirectory(prefix="arena-load-") as workdir:  # the tokens: gone once read
        for index in range(config.processes):
            part = tokens[index :: config.processes]
            if not part:
                continue
            path = Path(workdir) / f"tokens-{index}.txt"
            path.write_text("".join(f"{n} {t}\n" for n, t in part))
            processes.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "arena.cli.loadtest_bots",
                    str(path),
                    "--server",
                    address,
                    "--capacity",
                    str(capacity),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=1 << 20,
                )
            )
        for process in processes:
            assert process.stdout is not None
            line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode().strip()
            if line != "ready":
                raise RuntimeError(f"a bot process did not get ready: {line!r}")
    ended: dict[str, str] = {}
    done = asyncio.Event()
    bot_stats: list[dict[str, int]] = []
    slot_free = asyncio.Condition()
    names = [n for n, _ in tokens]
    busy: dict[str, int] = dict.fromkeys(names, 0)
    seats_of: dict[str, list[str]] = {}
    in_flight = 0

    async def read(process: asyncio.subprocess.Process) -> None:
        nonlocal in_flight
        assert process.stdout is not None
        while line := await process.stdout.readline():
            text = line.decode().strip()
            if text.startswith("ended "):
                _, match_id, termination = text.split()
                if match_id in ended:
                    continue
                ended[match_id] = termination
                for name in seats_of.pop(match_id, []):
                    busy[name] -= 1
                async with slot_free:
                    in_flight -= 1
                    slot_free.notify_all()
                if len(ended) >= config.matches:
                    done.set()
            elif text.startswith("stats "):
                bot_stats.append(json.loads(text[len("stats ") :]))

    readers = [asyncio.ensure_future(read(p)) for p in processes]
    rng = random.Random(config.seed)
    start_errors = 0
    started = time.monotonic()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        metadata = (("authorization", f"Bearer {config.admin_token}"),) if config.admin_token else ()
        tc = common_pb2.TimeControl(
            decision_allowance=duration_to_proto(config.decision_seconds), time_bank=duration_to_proto(5.0)
        )
        with Progress(
            TextColumn("[bold]matches"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TextColumn("{task.fields[rate]}"), console=console, transient=False,
        ) as progress:  # fmt: skip
            bar = progress.add_task("matches", total=config.matches, rate="")
            launched = 0
            while launched < config.matches:
                async with slot_free:
                    await slot_free.wait_for(lambda: in_flight < config.concurrency)  # noqa: B023
                free = [n for n in names if busy[n] < capacity]
                seated = rng.sample(free, config.players)
                for name in seated:
                    busy[name] += 1
                request = match_pb2.StartMatchRequest(
                    game=config.game, bot_names=seated, seed=rng.getrandbits(32), time_control=tc
                )
                try:
                    response = await stub.StartMatch(request, metadata=metadata, timeout=30)
                except grpc.aio.AioRpcError:
                    start_errors += 1
                    for name in seated:
                        busy[name] -= 1
                    await asyncio.sleep(0.05)
                    if start_errors > 100:
                        raise
                    continue
                seats_of[response.match_id] = seated
                in_flight += 1
                launched += 1
                elapsed = time.monotonic() - started
                progress.update(bar, completed=len(ended), rate=f"{len(ended) / max(elapsed, 1e-9):.0f} matches/s")
            while not done.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), 0.2)
                elapsed = time.monotonic() - started
                progress.update(bar, completed=len(ended), rate=f"{len(ended) / max(elapsed, 1e-9):.0f} matches/s")
                if elapsed > config.deadline_seconds:
                    raise TimeoutError(f"only {len(ended)} of {config.matches} matches ended in time")
            progress.update(bar, completed=len(ended))
    seconds = time.monotonic() - started
    for process in processes:
        assert process.stdin is not None
        process.stdin.close()
    await asyncio.wait_for(asyncio.gather(*readers), 60)
    for process in processes:
        await process.wait()
    decisions = sum(s["decisions"] for s in bot_stats)
    errors = {key: sum(s[key] for s in bot_stats) for key in ("rejections", "protocol_errors", "stream_errors")}
    latency: list[float | None] = [None, None, None]
    grpc_errors = 0
    if metrics_url:
        text = await asyncio.to_thread(lambda: urllib.request.urlopen(metrics_url, timeout=10).read().decode())
        latency = histogram_quantiles(text, "arena_decision_latency_seconds", (0.5, 0.95, 0.99))
        grpc_errors = int(counter_total(text, "arena_grpc_errors_total"))
    return LoadResult(
        bots=config.bots,
        matches=len(ended),
        concurrency=config.concurrency,
        players=config.players,
        seconds=seconds,
        matches_per_second=len(ended) / seconds,
        decisions=decisions,
        decisions_per_second=decisions / seconds,
        latency_p50=latency[0],
        latency_p95=latency[1],
        latency_p99=latency[2],
        abnormal_matches=sum(1 for t in ended.values() if t != "TERMINATION_NORMAL"),
        start_errors=start_errors,
        bot_errors=errors,
        server_grpc_errors=grpc_errors,
    )


def run(config: LoadConfig, console: Console | None = None, json_path: str | None = None) -> LoadResult:
    """Run a load test (starting a local arena unless ``config.server`` is set) and print its figures."""
    console = console or Console(stderr=True)

    async def go(address: str, metrics_url: str | None) -> LoadResult:
        return await drive(config, address, metrics_url, console)

    if config.server:
        result = asyncio.run(go(config.server, None))
    else:
        with (
            tempfile.TemporaryDirectory(prefix="arena-load-") as data,
            local_arena(Path(data)) as (address, url, _, admin),
        ):
            config = dataclasses.replace(config, admin_token=admin)
            result = asyncio.run(go(address, url))
    summary: dict[str, Any] = dataclasses.asdict(result) | {"errors": result.errors}

    def ms(seconds: float | None) -> str:
        return "-" if seconds is None else f"{seconds * 1000:.2f} ms"

    console.print(
        f"{result.matches} matches ({result.players} players) by {result.bots} bots, {result.concurrency} at once, "
        f"in {result.seconds:.1f} s: {result.matches_per_second:.1f} matches/s, "
        f"{result.decisions_per_second:.0f} decisions/s; decision latency p50 {ms(result.latency_p50)}, "
        f"p95 {ms(result.latency_p95)}, p99 {ms(result.latency_p99)}; errors: {result.errors}"
    )
    text = json.dumps(summary, indent=2)
    if json_path:
        Path(json_path).write_text(text + "\n")
    print(text)
    return result
