"""Memory per connected idle bot: an arena node's resident memory with 0, 1,000 and 10,000 bots connected
(goal of issue 17: under 20 KiB each with 10,000).

The bots are lightweight simulated ones (``arena.loadtest_bots``: one stream each, 50 streams per
channel) in a separate process; they connect, say Hello and wait. Run: ``python benchmarks/bench_memory.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.loadtest import _register, local_arena

GOAL_KIB = 20


def rss_bytes(pid: int) -> int:
    """Resident memory of a process."""
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    print(f"{'bots':>6}  {'node RSS MiB':>12}  {'KiB per bot':>11}")
    with tempfile.TemporaryDirectory() as folder, local_arena(Path(folder) / "data") as (address, _, server, admin):
        base = settle(server.pid)
        print(f"{0:>6}  {base / 2**20:>12.1f}  {'-':>11}", flush=True)
        for count in args.bots:
            tokens = asyncio.run(_register(address, count, admin))
            path = Path(folder) / f"tokens-{count}.txt"
            path.write_text("".join(f"{n} {t}\n" for n, t in tokens))
            bots = subprocess.Popen(
                [sys.executable, "-m", "arena.loadtest_bots", str(path), "--server", address],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            try:
                assert bots.stdout is not None
                if bots.stdout.readline().strip() != "ready":
                    raise RuntimeError("the bots did not connect")
                rss = settle(server.pid)
                per_bot = (rss - base) / count / 1024
                verdict = (
                    f"  (goal < {GOAL_KIB} KiB: {'met' if per_bot < GOAL_KIB else 'NOT met'})"
                    if count >= 10_000
                    else ""
                )
                print(f"{count:>6}  {rss / 2**20:>12.1f}  {per_bot:>11.1f}{verdict}", flush=True)
            finally:
                assert bots.stdin is not None
                bots.stdin.close()
                bots.wait(60)
            base = settle(server.pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
