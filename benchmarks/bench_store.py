"""What durability costs: league results stored per second with ``appendfsync always`` (the arena's
default: an acknowledged result survives a power cut) against ``everysec`` (a host crash loses up to
a second, which the reconciler then replays), measured in the same run on two fresh Redis 7 servers.

Each stored result is the real ``LeagueStore.record_result`` script (result, league lists, open set,
queue acknowledgement) on a league created with ``LeagueStore.create``, from ``--clients`` concurrent
writers. Run: ``python benchmarks/bench_store.py [--results 20000] [--clients 64]``.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from arena.league.schedule import SECRET_BYTES, LeagueSpec, schedule_league
from arena.store.embedded import EmbeddedRedis
from arena.store.leagues import LeagueStore
from arena.store.redis_stores import connect


async def results_per_second(server: EmbeddedRedis, results: int, clients: int) -> float:
    """Store ``results`` results of one league from ``clients`` writers; results per second."""
    client = connect(server.url, max_connections=clients)
    store = LeagueStore(client)
    bots = tuple(f"b{i}" for i in range(8))
    spec = LeagueSpec("LB", "5211", 2, bots, games_per_pairing=max(1, results // 28 + 1))
    matches = [m.to_dict() for m in schedule_league(spec)][:results]
    await client.xgroup_create(store.stream, store.group, id="0", mkstream=True)
    await store.create("LB", spec.to_dict(), matches, secrets.token_bytes(SECRET_BYTES))
    result = {"termination": "normal", "scores": [30, 20], "placings": [1, 2], "note": "x" * 300}
    todo = iter(matches)

    async def writer() -> None:
        for match in todo:
            await store.record_result(
                "LB",
                match["match_id"],
                match["deal_id"],
                result | {"match_id": match["match_id"], "bots": match["bots"]},
            )

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(clients)))
    elapsed = time.perf_counter() - started
    await client.aclose()
    return len(matches) / elapsed


def redis_with(fsync: str, folder: Path) -> EmbeddedRedis:
    """A Redis 7 whose append-only file is fsynced as ``fsync`` says."""
    server = EmbeddedRedis(folder, binary=shutil.which("redis-server") or "/usr/bin/redis-server").start()
    subprocess.run(
        [
            "redis-cli",
            "-p",
            str(server.port),
            "-a",
            server.password,
            "--no-auth-warning",
            "config",
            "set",
            "appendfsync",
            fsync,
        ],
        check=True,
        capture_output=True,
    )
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=64)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="arena-bench-store-"))
    figures = {}
    for fsync in ("everysec", "always"):
        server = redis_with(fsync, work / fsync)
        try:
            figures[fsync] = asyncio.run(results_per_second(server, args.results, args.clients))
        finally:
            server.stop()
    shutil.rmtree(work, ignore_errors=True)
    for fsync, rate in figures.items():
        print(f"appendfsync {fsync:8}: {rate:8,.0f} results stored/s ({args.clients} writers)")
    print(f"ratio always/everysec: {figures['always'] / figures['everysec']:.2f}")


if __name__ == "__main__":
    main()
