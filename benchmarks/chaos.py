"""The long fault-injection trial (``make chaos``): three nodes on one Redis 7, random bots connected to
all of them, one league, and faults every few seconds while it plays — a node SIGKILLed (and a new one
started), or the store's host crashing (Redis SIGKILLed, the last second of its append-only file cut,
Redis restarted). At the end it checks what the suite checks in small: every scheduled match has
exactly one stored result, all of them ended normally, and the league finished by itself.

Run: ``python benchmarks/chaos.py [--matches 600] [--faults 12] [--seconds 600]``; it prints the
figures for ``BENCHMARKS.md`` and exits 1 if any check fails. Everything runs on 127.0.0.1 and stops
by itself within ``--seconds``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import redis

from arena.cli.admin import create_league, register_bot
from arena.serve.launch import start_serve
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.redis_stores import text


def aof_file(server: EmbeddedRedis) -> Path:
    """The append-only file Redis 7 is writing now."""
    parts = sorted((server.data_dir / "appendonlydir").glob("*.incr.aof"), key=lambda p: int(p.name.split(".")[-3]))
    return parts[-1]


def crash_host(server: EmbeddedRedis, size_a_second_ago: int) -> EmbeddedRedis:
    """Redis dies with the machine; the last second of writes never reached the disk."""
    server._stopping.set()  # its watchdog must not restart it before the cut
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    server.stop()  # the machine is gone: so is the folder's lock
    os.truncate(aof_file(server), size_a_second_ago)
    return EmbeddedRedis(server.data_dir, port=server.port, binary=server.binary).start()


ADMIN = secrets.token_urlsafe(16)


def node(url: str, node_id: str, port: int, data: Path) -> subprocess.Popen[str]:
    """An arena node on the shared Redis (2 s lease)."""
    args = ["--address", f"127.0.0.1:{port}", "--redis", url, "--node-id", node_id, "--lease-seconds", "2"]
    args += ["--data-dir", str(data), "--metrics-address", "", "--web-port", "0", "--log-level", "warning"]
    return start_serve(args, log=data.with_suffix(".log"), env={"ARENA_ADMIN_TOKEN": ADMIN})[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=600, help="about how many matches the league has")
    parser.add_argument("--faults", type=int, default=12, help="faults to inject while it plays")
    parser.add_argument("--seconds", type=float, default=600, help="give up after this long")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="arena-chaos-"))
    store = EmbeddedRedis(work / "redis", binary="/usr/bin/redis-server").start()
    ports = [free_port() for _ in range(3)]
    addresses = [f"127.0.0.1:{p}" for p in ports]
    generation = [0, 0, 0]
    nodes = [node(store.url, f"n{i}-0", p, work / f"n{i}-0") for i, p in enumerate(ports)]
    bots: list[subprocess.Popen[bytes]] = []
    client = redis.Redis.from_url(store.url)
    faults: Counter[str] = Counter()
    started = time.monotonic()
    try:
        names = [f"chaos{i}" for i in range(6)]
        for name in names:
            token = register_bot(addresses[0], name, ADMIN)
            command = [sys.executable, "-m", "arena_bot", "random", "--concurrency", "4"]
            command += [arg for address in addresses for arg in ("--server", address)]
            with (work / f"{name}.log").open("wb") as log:
                env = {**os.environ, "ARENA_BOT_TOKEN": token}
                bots.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, env=env))
        games = max(1, args.matches // 15)  # 15 pairs of 6 bots
        league = create_league(addresses[0], ADMIN, bots=names, players=2, games=games, decision_seconds=5.0)
        total = league.progress.total
        lid = league.league_id
        sizes: list[tuple[float, int]] = []
        next_fault = time.monotonic() + 3
        while time.monotonic() - started < args.seconds:
            try:
                done = client.llen(f"arena:league:{lid}:results")
                sizes.append((time.monotonic(), aof_file(store).stat().st_size))
            except (redis.RedisError, OSError):
                done = -1
            if done == total:
                break
            if faults.total() < args.faults and time.monotonic() >= next_fault:
                if rng.random() < 0.25:
                    cutoff = time.monotonic() - 1.0
                    store = crash_host(store, max((s for at, s in sizes if at <= cutoff), default=0))
                    client = redis.Redis.from_url(store.url)
                    sizes.clear()
                    faults["store host crash"] += 1
                else:
                    i = rng.randrange(3)
                    nodes[i].send_signal(signal.SIGKILL)
                    nodes[i].wait(10)
                    generation[i] += 1
                    nodes[i] = node(store.url, f"n{i}-{generation[i]}", ports[i], work / f"n{i}-{generation[i]}")
                    faults["node SIGKILL"] += 1
                next_fault = time.monotonic() + rng.uniform(3, 6)
            time.sleep(0.1)
        elapsed = time.monotonic() - started
        ids = [text(m) for m in client.lrange(f"arena:league:{lid}:results", 0, -1)]
        terminations: Counter[str] = Counter()
        for raw in client.mget([f"arena:result:{lid}:{m}" for m in ids]) if ids else []:
            terminations[json.loads(raw)["termination"] if raw else "missing"] += 1
        duplicates = len(ids) - len(set(ids))
        print(f"league {lid}: {total} matches scheduled, {len(set(ids))} stored, {duplicates} stored twice")
        print(f"faults: {dict(faults)}; results by termination: {dict(terminations)}; {elapsed:.0f} s")
        ok = len(set(ids)) == total and duplicates == 0 and set(terminations) <= {"normal"}
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        processes: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = [*bots, *nodes]
        for process in processes:
            process.kill()
            process.wait()
        store.stop()


if __name__ == "__main__":
    sys.exit(main())
