"""What the ladders' matchmaker pays to read the bots online, with 1,000 and 10,000 of them.

Each pass (every ``PASS_SECONDS`` while a ladder runs, on the node holding the matchmaker's lease)
reads the bots online that play a running ladder's game: their games, capacity and the holds of
their match slots (``LadderStore.online``). This fills a real ``redis-server`` with N bots online,
as the nodes publish them, all of the ladder's game or all of another, and prints the node's CPU
for one read (best of three) and the share of a core it takes at one pass per ``PASS_SECONDS``.
Run: ``python benchmarks/bench_matchmaker.py [--bots 1000 10000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path

from arena.service.ladders import PASS_SECONDS
from arena.store.embedded import EmbeddedRedis
from arena.store.ladders import LadderStore
from arena.store.redis_stores import connect, key

GAME = "5211"


async def read_cost(url: str, bots: int, game: str) -> float:
    """Seconds of this process's CPU for one read of ``bots`` bots online playing ``game`` (best of 3)."""
    client = connect(url)
    try:
        await client.flushall()
        until = time.time() + 3600
        async with client.pipeline(transaction=False) as pipe:  # what a node publishes for its bots
            for i in range(bots):
                bot = f"bot-{i}"
                pipe.zadd(key("online"), {bot: until})
                pipe.set(key("botplays", bot), json.dumps([game]))
                pipe.set(key("botcap", bot), 2)
                pipe.zadd(key("slots", bot), {f"m{i}#1": until})
            await pipe.execute()
        store = LadderStore(client)
        best = float("inf")
        for _ in range(3):
            started = time.process_time()
            found = await store.online({GAME})
            best = min(best, time.process_time() - started)
            assert len(found) == (bots if game == GAME else 0)
        return best
    finally:
        await client.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder), binary=shutil.which("redis-server") or "/usr/bin/redis-server").start()
        try:
            print(f"{'bots online':>11}  {'they play':>15}  {'CPU ms a read':>13}  {'share of a core':>15}")
            for bots in args.bots:
                for game, label in ((GAME, "the ladder's"), ("azul", "another game")):
                    cost = asyncio.run(read_cost(server.url, bots, game))
                    print(f"{bots:>11,}  {label:>15}  {cost * 1000:>13.1f}  {cost / PASS_SECONDS:>14.0%}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
