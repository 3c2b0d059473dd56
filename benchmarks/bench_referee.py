"""The referee's own CPU per decision, without a transport: ``run_match`` against in-process seats
that answer a random legal action as soon as asked (through a future, as a remote seat does), then
the record's JSON form (as a node stores it). Run: ``python benchmarks/bench_referee.py``.

This is the part of a node's per-decision cost that the referee owns (the rest is gRPC, the
observation's protobuf and the store); it is a CPU-time figure, so it is steadier than a
throughput on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from typing import Any

from arena.games.lookup import get_game
from arena.referee import DecisionRequest, Fault, MatchEnd, MatchSetup, MatchStart, Rejection, TimeControl
from arena.referee.match import EventMaker, Match


class InstantSeat:
    """A seat whose answer resolves a future on the next loop iteration, as a network answer would."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.decisions = 0

    @property
    def is_connected(self) -> bool:
        return True

    async def match_started(self, start: MatchStart) -> None:
        pass

    def decide(self, request: DecisionRequest) -> asyncio.Future[str]:
        self.decisions += 1
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_result, self.rng.choice(request.legal_actions))
        return future

    async def rejected(self, rejection: Rejection) -> None:
        pass

    async def match_ended(self, end: MatchEnd) -> None:
        pass


class Metrics:
    def match_started(self, game: str) -> None:
        pass

    def decision(self, game: str, seconds: float, fault: Fault | None) -> None:
        pass

    def match_finished(self, game: str, termination: Any, seconds: float) -> None:
        pass


async def play(players: int, matches: int, concurrency: int) -> tuple[int, float]:
    events: list[EventMaker] = []  # as a node without spectators: the events are not made
    seats = [InstantSeat(i) for i in range(players * concurrency)]
    seeds = iter(range(1, 1 << 30))

    async def lane(index: int) -> None:
        mine = seats[index * players : (index + 1) * players]
        for _ in range(matches // concurrency):
            setup = MatchSetup(
                f"m{index}", "5211", [f"b{i}" for i in range(players)], mine, next(seeds), time_control=TimeControl()
            )
            record = await Match(setup, _clock, events.append, Metrics()).run()
            json.dumps(record.to_dict())
            events.clear()

    started = time.process_time()
    await asyncio.gather(*(lane(i) for i in range(concurrency)))
    return sum(s.decisions for s in seats), time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--matches", type=int, default=640)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    get_game("5211")
    print(f"{'players':>7}  {'referee CPU us/decision, best (median) of runs':>46}")
    for players in args.players:
        costs = []
        for _ in range(args.runs):
            decisions, seconds = asyncio.run(play(players, args.matches, 64))
            costs.append(seconds / decisions * 1e6)
        costs.sort()
        print(f"{players:>7}  {costs[0]:>37.1f} ({costs[len(costs) // 2]:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    from arena.referee.clock import MonotonicClock

    _clock = MonotonicClock()
    sys.exit(main())
