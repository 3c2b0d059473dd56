"""Measure the C++ heuristic bot against the C++ random bot on a real, in-process arena node (its own Redis).

One `bin/bot --strategy heuristic` and P-1 `bin/bot --strategy random` processes play N matches of
P-player 5211 (the heuristic's seat rotates, seeds 1..N); prints the heuristic's win rate, average
placing and average score against the random seats'. Run from the repository root after
`make -C clients/cpp build`:

    .venv/bin/python clients/cpp/scripts/versus.py --matches 200 --players 2
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.games.base import Termination
from arena.grpc.server import start_server
from arena.serve.process import redis_node
from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect

BOT = Path(__file__).resolve().parents[1] / "bin" / "bot"
ADMIN = "versus-admin"


async def main(matches: int, players: int, parallel: int, redis_url: str) -> None:
    client = connect(redis_url)
    node = redis_node(client, ADMIN)
    server = await start_server(node, "127.0.0.1:0")
    names = ["heuristic"] + [f"random{i}" for i in range(1, players)]
    processes: list[asyncio.subprocess.Process] = []
    try:
        for name in names:
            token = await node.registry.register(name, ADMIN)
            strategy = "heuristic" if name == "heuristic" else "random"
            command = [str(BOT), "--server", f"127.0.0.1:{server.port}", "--token", token]
            command += ["--strategy", strategy, "--concurrency", str(parallel), "-q"]
            processes.append(await asyncio.create_subprocess_exec(*command, stdout=subprocess.DEVNULL))
        for _ in range(500):
            if all(node.hub.sessions.get(n) and node.hub.sessions[n].connection for n in names):
                break
            await asyncio.sleep(0.01)
        else:
            raise SystemExit("the bots did not connect")

        wins, placings, scores, others = 0.0, [], [], []
        gate = asyncio.Semaphore(parallel)

        async def play(index: int) -> None:
            nonlocal wins
            async with gate:
                shift = index % players
                seats = names[shift:] + names[:shift]
                match_id = await node.matches.start("5211", seats, seed=index + 1)
                record = await node.matches.wait(match_id)
            outcome = record.outcome
            if outcome is None or outcome.termination is not Termination.NORMAL:
                raise SystemExit(f"match {match_id} did not end normally: {outcome}")
            me = seats.index("heuristic")
            winners = outcome.winners
            wins += 1 / len(winners) if me in winners else 0
            placings.append(outcome.placings[me])
            scores.append(outcome.scores[me])
            others.extend(s for seat, s in enumerate(outcome.scores) if seat != me)

        await asyncio.gather(*(play(i) for i in range(matches)))
        print(
            f"{matches} matches of {players}-player 5211, heuristic vs {players - 1} random: "
            f"heuristic wins {wins / matches:.1%} (a random seat's share: {1 / players:.1%}), "
            f"average placing {statistics.mean(placings):.2f}, "
            f"average score {statistics.mean(scores):.1f} vs {statistics.mean(others):.1f}"
        )
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                await asyncio.wait_for(process.wait(), 5)
            except TimeoutError:
                process.kill()
                await process.wait()
        await node.matches.shutdown(0.5)
        await server.stop(0.5)
        await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6))
    parser.add_argument("--parallel", type=int, default=16, help="matches at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis").start()  # the node's store, as arena serve's
        try:
            asyncio.run(main(args.matches, args.players, args.parallel, redis.url))
        finally:
            redis.stop()
    sys.exit(0)
