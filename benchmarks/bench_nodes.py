"""Throughput of one arena made of 1, 2 and 3 nodes on one Redis.

For each node count: a Redis 7 server (the system's), N ``arena serve --redis`` processes, and one
``arena loadtest --server`` per node (its own simulated bots, connected to that node, playing
2-player matches at a fixed concurrency); the figure is the sum of their matches and decisions per
second over the same span. Run: ``python benchmarks/bench_nodes.py [--matches M]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.serve.launch import start_serve, stop
from arena.store.embedded import EmbeddedRedis, free_port

ADMIN = "bench-admin-token"


def node(redis_url: str, port: int, node_id: str, data: Path) -> subprocess.Popen[str]:
    args = ["--address", f"127.0.0.1:{port}", "--redis", redis_url, "--node-id", node_id]
    args += ["--open-registration", "--admin-token", ADMIN, "--data-dir", str(data), "--metrics-address", ""]
    args += ["--web-port", "0"]
    args += ["--log-level", "warning"]
    return start_serve(args)[0]


def run(nodes: int, matches: int, folder: Path) -> tuple[float, float, float]:
    binary = shutil.which("redis-server") or "redis-server"
    with EmbeddedRedis(folder / f"redis-{nodes}", binary=binary) as redis:
        ports = [free_port() for _ in range(nodes)]
        servers = [node(redis.url, p, f"n{i}", folder / f"n{nodes}-{i}") for i, p in enumerate(ports)]
        try:
            started = time.monotonic()
            loads = [
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "arena.cli",
                        "loadtest",
                        "--server",
                        f"127.0.0.1:{p}",
                        "--admin-token",
                        ADMIN,
                        "--bots",
                        "40",
                        "--matches",
                        str(matches),
                        "--concurrency",
                        "32",
                        "--processes",
                        "1",
                        "--json",
                        str(folder / f"load-{nodes}-{i}.json"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for i, p in enumerate(ports)
            ]
            for load in loads:
                load.wait(1800)
            elapsed = time.monotonic() - started
            results = [json.loads((folder / f"load-{nodes}-{i}.json").read_text()) for i in range(nodes)]
            errors = sum(r["errors"] for r in results)
            total = sum(r["matches"] for r in results)
            decisions = sum(r["decisions"] for r in results)
            return total / elapsed, decisions / elapsed, errors
        finally:
            for server in servers:
                stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=600, help="matches per node")
    args = parser.parse_args()
    print(f"{'nodes':>5}  {'matches/s':>9}  {'decisions/s':>11}  {'errors':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for count in (1, 2, 3):
            rate, decisions, errors = run(count, args.matches, Path(folder))
            print(f"{count:>5}  {rate:>9.1f}  {decisions:>11,.0f}  {errors:>6.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
