"""A load-test bot process: many lightweight simulated bots (random legal actions) on one event loop.
Each answer echoes its request's match id, sequence and seat (a bot may hold several seats of a match).

Run by ``arena loadtest``; reads ``name token`` lines from a file, connects each bot, prints
``ready`` once all are welcomed, then ``ended <match_id> <termination>`` per finished match, and a
final ``stats {json}`` line when its standard input closes or it is signalled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2

BOTS_PER_CHANNEL = 50


class Stats:
    """What this process saw."""

    def __init__(self) -> None:
        self.decisions = 0
        self.rejections = 0
        self.protocol_errors = 0
        self.stream_errors = 0
        self.matches_ended = 0
        self.abnormal_ends = 0


async def run_bot(
    stub: bot_pb2_grpc.BotServiceAsyncStub, token: str, capacity: int, stats: Stats, ready: asyncio.Event, seed: int
) -> None:
    rng = random.Random(seed)
    outbox: asyncio.Queue[bot_pb2.ConnectRequest] = asyncio.Queue()

    async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
        yield bot_pb2.ConnectRequest(
            hello=bot_pb2.Hello(token=token, games=[], max_concurrent_matches=capacity, client_name="loadtest")
        )
        while True:
            yield await outbox.get()

    out = sys.stdout
    try:
        async for response in stub.Connect(requests()):
            kind = response.WhichOneof("kind")
            if kind == "action_request":
                request = response.action_request
                stats.decisions += 1
                outbox.put_nowait(
                    bot_pb2.ConnectRequest(
                        action=bot_pb2.Action(
                            match_id=request.match_id,
                            sequence=request.sequence,
                            seat=request.seat,
                            text=rng.choice(request.legal_actions),
                        )
                    )
                )
            elif kind == "match_ended":
                ended = response.match_ended
                stats.matches_ended += 1
                termination = common_pb2.Termination.Name(ended.outcome.termination)
                if ended.outcome.termination != common_pb2.TERMINATION_NORMAL:
                    stats.abnormal_ends += 1
                out.write(f"ended {ended.match_id} {termination}\n")
            elif kind == "welcome":
                ready.set()
            elif kind == "action_rejected":
                stats.rejections += 1
            elif kind == "error":
                stats.protocol_errors += 1
    except grpc.aio.AioRpcError:
        stats.stream_errors += 1
        ready.set()


async def main_async(lines: list[list[str]], server: str, capacity: int, per_channel: int = BOTS_PER_CHANNEL) -> int:
    stats = Stats()
    channels = [
        grpc.aio.insecure_channel(server, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(max(1, (len(lines) + per_channel - 1) // per_channel))
    ]
    readies = [asyncio.Event() for _ in lines]
    tasks = [
        asyncio.ensure_future(
            run_bot(bot_pb2_grpc.BotServiceStub(channels[i // per_channel]), token, capacity, stats, readies[i], i)
        )
        for i, (_name, token) in enumerate(lines)
    ]
    await asyncio.gather(*(r.wait() for r in readies))
    print("ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.readline() else None)

    async def flush() -> None:
        while not stop.is_set():
            sys.stdout.flush()
            await asyncio.sleep(0.05)

    flusher = asyncio.ensure_future(flush())
    await stop.wait()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, flusher, return_exceptions=True)
    for channel in channels:
        await channel.close()
    print("stats " + json.dumps(vars(stats)), flush=True)
    return 0


def main() -> int:
    """Entry point: ``python -m arena.cli.loadtest_bots TOKENS_FILE --server ADDR --capacity N``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("tokens_file")
    parser.add_argument("--server", required=True)
    parser.add_argument("--capacity", type=int, default=8)
    parser.add_argument(
        "--per-channel", type=int, default=BOTS_PER_CHANNEL, help="bots sharing one connection (default %(default)s)"
    )
    args = parser.parse_args()
    lines = [line.split() for line in Path(args.tokens_file).read_text().splitlines() if line.strip()]
    return asyncio.run(main_async(lines, args.server, args.capacity, max(1, args.per_channel)))


if __name__ == "__main__":
    sys.exit(main())
