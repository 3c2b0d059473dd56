"""Ladders against real ``arena serve`` nodes on a real Redis 7, with real SDK bots in this process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

import grpc
from arena_bot import Bot
from arena_bot.bots import HeuristicBot, RandomBot

from arena.cli.admin import register_bot
from arena.serve.launch import start_serve
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.leagues import QUEUE_GROUP, QUEUE_STREAM
from arena.store.redis_stores import key, text
from arena.v1 import ladder_pb2, ladder_pb2_grpc
from tests.grpc.harness import ADMIN, ADMIN_METADATA, QUICK_NODE


class GradedBot(HeuristicBot):
    """The 5211 heuristic playing at random with probability ``epsilon``."""

    def __init__(self, epsilon: float, seed: int, concurrency: int) -> None:
        super().__init__(seed, "5211")
        self.epsilon = epsilon
        self.max_concurrent_matches = concurrency


def random_bot(concurrency: int, seed: int) -> RandomBot:
    """A random 5211 bot playing ``concurrency`` matches at once."""
    bot = RandomBot(seed, "5211")
    bot.max_concurrent_matches = concurrency
    return bot


class Nodes:
    """Arena nodes sharing one Redis, and SDK bots connected to them."""

    def __init__(self, redis: EmbeddedRedis, data: Path) -> None:
        self.redis = redis
        self.data = data
        self.processes: dict[str, subprocess.Popen[str]] = {}
        self.addresses: dict[str, str] = {}
        self.bots: dict[str, tuple[Bot, asyncio.Task[None]]] = {}
        self.tokens: dict[str, str] = {}

    def start(self, node_id: str) -> str:
        """Start a node; returns its address."""
        port = free_port()
        args = ["--address", f"127.0.0.1:{port}", "--redis", self.redis.url, "--node-id", node_id]
        args += [*QUICK_NODE, "--open-registration", "--admin-token", ADMIN]
        args += ["--data-dir", str(self.data / node_id), "--metrics-address", ""]
        args += ["--log-format", "text", "--log-level", "warning", "--web-port", "0"]
        self.processes[node_id] = start_serve(args, log=self.log(node_id))[0]
        self.addresses[node_id] = address = f"127.0.0.1:{port}"
        return address

    def log(self, node_id: str) -> Path:
        """Where the node writes its log."""
        return self.data / f"{node_id}.log"

    def kill(self, node_id: str) -> None:
        """SIGKILL a node."""
        process = self.processes.pop(node_id)
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    @property
    def address(self) -> str:
        """Any live node's address."""
        return next(self.addresses[n] for n in self.processes)

    async def connect(self, name: str, bot: Bot, addresses: Sequence[str] | None = None) -> None:
        """Register the bot (once) and run it in this process until ``disconnect``."""
        if name not in self.tokens:
            self.tokens[name] = await asyncio.to_thread(register_bot, self.address, name, ADMIN)
        task = asyncio.ensure_future(
            bot.run_async(list(addresses or [self.address]), self.tokens[name], initial_backoff=0.1, max_backoff=0.5)
        )
        self.bots[name] = bot, task

    async def disconnect(self, name: str) -> None:
        """Stop the bot and wait until it has left."""
        bot, task = self.bots.pop(name)
        bot.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 15)

    async def close(self) -> None:
        """Stop every bot and node."""
        for name in list(self.bots):
            await self.disconnect(name)
        for node_id in list(self.processes):
            self.kill(node_id)


async def ladder_call(address: str, method: str, request: object) -> object:
    """One LadderService call with the admin token."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = ladder_pb2_grpc.LadderServiceStub(channel)
        return await getattr(stub, method)(request, metadata=ADMIN_METADATA, timeout=20)


async def create_ladder(address: str, players: int = 2, duplicate: bool = False, quick: bool = False) -> str:
    """A new 5211 ladder's id; ``quick``: a seat whose bot is gone forfeits within seconds."""
    spec = ladder_pb2.LadderSpec(game="5211", players_per_match=players, duplicate_deals=duplicate)
    spec.time_control.decision_allowance.FromSeconds(5)
    if quick:
        spec.time_control.decision_allowance.FromSeconds(2)
        spec.time_control.time_bank.FromSeconds(1)
        spec.time_control.disconnect_grace.FromSeconds(2)
        spec.time_control.strike_limit = 1
    response = await ladder_call(address, "CreateLadder", ladder_pb2.CreateLadderRequest(spec=spec))
    assert isinstance(response, ladder_pb2.CreateLadderResponse)
    return str(response.ladder.ladder_id)


async def standings(address: str, ladder_id: str) -> ladder_pb2.GetStandingsResponse:
    """The ladder's standings."""
    response = await ladder_call(address, "GetStandings", ladder_pb2.GetStandingsRequest(ladder_id=ladder_id))
    assert isinstance(response, ladder_pb2.GetStandingsResponse)
    return response


async def scheduled(client: object, ladder_id: str) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Every match the ladder's matchmaker scheduled: id -> (index, bots)."""
    raw = await client.hgetall(key("league", f"{ladder_id}:matches"))  # type: ignore[attr-defined]
    out = {}
    for match_id, spec in raw.items():
        data = json.loads(spec)
        out[text(match_id)] = int(data["index"]), tuple(data["bots"])
    return out


async def stored_results(client: object, ladder_id: str) -> list[str]:
    """The ids of the ladder's stored results, in arrival order."""
    return [text(m) for m in await client.lrange(key("league", f"{ladder_id}:results"), 0, -1)]  # type: ignore[attr-defined]


async def until(predicate: object, seconds: float, poll: float = 0.25) -> None:
    """Wait (bounded) until the async predicate holds."""
    for _ in range(int(seconds / poll)):
        if await predicate():  # type: ignore[operator]
            return
        await asyncio.sleep(poll)
    raise AssertionError(f"not within {seconds} s")


async def explain_open(client: object, ladder_id: str) -> str:
    """Where each open match of the ladder is: its queue entry and who holds it, or that it is nowhere."""
    r = client
    lines = []
    for match_id in sorted(text(m) for m in await r.smembers(key("league", f"{ladder_id}:open"))):  # type: ignore[attr-defined]
        where = await r.hget(key("league", f"{ladder_id}:where"), match_id)  # type: ignore[attr-defined]
        where = text(where) if where is not None else ""
        entry = await r.xrange(QUEUE_STREAM, where, where) if where and not where.startswith("p:") else []  # type: ignore[attr-defined]
        pending = await r.xpending_range(QUEUE_STREAM, QUEUE_GROUP, where, where, 1) if entry else []  # type: ignore[attr-defined]
        running = await r.sismember(key("league", f"{ladder_id}:running"), match_id)  # type: ignore[attr-defined]
        spec = await r.hget(key("league", f"{ladder_id}:matches"), match_id)  # type: ignore[attr-defined]
        lines.append(f"{match_id} where={where!r} queued={bool(entry)} pending={pending} running={running} {spec!r}")
    return "\n".join(lines)
