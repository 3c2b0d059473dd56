"""Several arena nodes on one Redis (7): heartbeats, ``arena nodes``, and a league that survives
nodes SIGKILLed mid-league, several times over, with exact counts."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import grpc

from arena.cli.admin import create_league, register_bot
from arena.league.schedule import LeagueSpec, schedule_league
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.leagues import LeagueStore
from arena.store.redis_stores import connect
from arena.v1 import node_pb2, node_pb2_grpc
from tests.grpc.harness import ADMIN, QUICK_NODE, start_node


async def live_nodes(address: str) -> list[str]:
    async with grpc.aio.insecure_channel(address) as channel:
        response = await node_pb2_grpc.NodeServiceStub(channel).ListNodes(node_pb2.ListNodesRequest())
    return [n.node_id for n in response.nodes]


async def test_nodes_beat_and_a_league_survives_repeated_node_kills(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    ports = {name: free_port() for name in ("a", "b", "c")}
    addresses = [f"127.0.0.1:{ports[name]}" for name in ("a", "b", "c")]
    nodes = {name: start_node(redis7.url, f"node-{name}", ports[name], tmp_path / name) for name in ports}
    bots: list[subprocess.Popen[bytes]] = []
    client = connect(redis7.url)
    try:
        assert await live_nodes(addresses[1]) == ["node-a", "node-b", "node-c"]
        names = ["m1", "m2", "m3", "m4"]
        for name in names:
            token = await asyncio.to_thread(register_bot, addresses[0], name, None)
            command = [sys.executable, "-m", "arena_bot", "random", "--token", token, "--concurrency", "6"]
            command += [arg for address in addresses for arg in ("--server", address)]
            with (tmp_path / f"{name}.log").open("wb") as log:
                bots.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log))  # noqa: ASYNC220
        league = await asyncio.to_thread(
            create_league, addresses[2], ADMIN, bots=names, players=2, games=50, seed=5, decision_seconds=5.0
        )
        assert league.progress.total == 300
        store = LeagueStore(client)

        async def done_at_least(count: int, seconds: float) -> None:
            for _ in range(int(seconds / 0.05)):
                if (await store.progress(league.league_id))[1] >= count:
                    return
                await asyncio.sleep(0.05)
            logs = {p.name: p.read_text(errors="replace")[-1500:] for p in tmp_path.glob("*.log")}  # noqa: ASYNC240 - failure report
            exits = [bot.poll() for bot in bots]
            raise AssertionError(f"fewer than {count} results after {seconds} s; bot exits {exits}; logs {logs}")

        # The bots are on node a (their first address): kill it mid-league, then bring it back.
        await done_at_least(40, 60)
        nodes["a"].send_signal(signal.SIGKILL)
        nodes["a"].wait(10)
        await done_at_least(120, 90)
        nodes["a"] = start_node(redis7.url, "node-a", ports["a"], tmp_path / "a2")
        # Now kill node b, where the bots went next.
        nodes["b"].send_signal(signal.SIGKILL)
        nodes["b"].wait(10)
        await done_at_least(300, 100)
        results = await store.results(league.league_id)
        spec = LeagueSpec(league.league_id, "5211", 2, tuple(names), games_per_pairing=50, seed=5)
        assert Counter(r["match_id"] for r in results) == Counter(m.match_id for m in schedule_league(spec))
        assert all(r["termination"] == "normal" for r in results)
        # The killed node b stops beating and leaves the list.
        for _ in range(200):
            if "node-b" not in await live_nodes(addresses[2]):
                break
            await asyncio.sleep(0.1)
        assert await live_nodes(addresses[2]) == ["node-a", "node-c"]
    finally:
        await client.aclose()
        processes: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = [*bots, *nodes.values()]
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


def serve_twin(redis_url: str, node_id: str, data: Path) -> subprocess.CompletedProcess[str]:
    """``arena serve`` with ``node_id`` on another port, run until it exits (or 30 s)."""
    command = [sys.executable, "-m", "arena.cli", "serve", "--address", f"127.0.0.1:{free_port()}"]
    command += ["--redis", redis_url, "--node-id", node_id, "--open-registration", "--admin-token", ADMIN]
    command += ["--data-dir", str(data)]
    command += ["--metrics-address", "", "--web-port", "0", "--log-format", "text", *QUICK_NODE]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=30)


async def test_a_second_node_with_a_live_node_id_refuses_to_start(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    port = free_port()
    first = start_node(redis7.url, "twin", port, tmp_path / "first")
    try:
        twin = await asyncio.to_thread(serve_twin, redis7.url, "twin", tmp_path / "second")
        lines = [line for line in twin.stderr.splitlines() if line.strip()]
        assert twin.returncode == 1, twin.stderr[-2000:]
        assert len(lines) == 1, twin.stderr[-2000:]
        assert lines[0].startswith("arena serve: node id 'twin' is held by another live node"), lines
        assert "--node-id" in lines[0]
        # The first node is untouched: still listed, at its own address, and still beating.
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            listed = (await node_pb2_grpc.NodeServiceStub(channel).ListNodes(node_pb2.ListNodesRequest())).nodes
        assert [(n.node_id, n.address) for n in listed] == [("twin", f"127.0.0.1:{port}")]
        # A node killed without a goodbye: its id comes free once its heartbeat expires.
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        first = start_node(redis7.url, "twin", port, tmp_path / "third")
        assert await live_nodes(f"127.0.0.1:{port}") == ["twin"]
        # A graceful stop gives the id back as the node ends.
        first.terminate()
        assert first.wait(30) == 0
        again = start_node(redis7.url, "twin", port, tmp_path / "fourth")
        again.terminate()
        again.wait(30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait(10)
