"""Matches across nodes: bots connected to the three different nodes of one arena (one Redis 7) share a table;
the node refereeing the match reaches the others' bots through their nodes."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import Counter
from pathlib import Path

import grpc

from arena.cli.admin import create_league, register_bot
from arena.league.schedule import LeagueSpec, schedule_league
from arena.serve.launch import stop
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.leagues import LeagueStore
from arena.store.redis_stores import connect
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.wire import record as wire_record
from tests.grpc.harness import ADMIN, ADMIN_METADATA, start_node
from tests.grpc.rawbot import RawBot


async def test_bots_on_different_nodes_play_matches_and_a_league(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    ports = [free_port(), free_port(), free_port()]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    nodes = [start_node(redis7.url, f"node-{i}", port, tmp_path / f"n{i}") for i, port in enumerate(ports)]
    bots: list[subprocess.Popen[bytes]] = []
    client = connect(redis7.url)
    try:
        # One bot on each of three nodes: no node holds two bots of any match.
        homes = {"x": 0, "y": 1, "z": 2}
        for name, home in homes.items():
            token = await asyncio.to_thread(register_bot, addresses[0], name, None)
            command = [sys.executable, "-m", "arena_bot", "random", "--token", token, "--concurrency", "4"]
            with (tmp_path / f"{name}.log").open("wb") as log:
                bots.append(
                    subprocess.Popen([*command, "--server", addresses[home]], stdout=subprocess.DEVNULL, stderr=log)  # noqa: ASYNC220
                )
        # The bots connect, and their nodes record where they are.
        for _ in range(300):
            if await client.exists(*(f"arena:botat:{name}" for name in homes)) == len(homes):
                break
            await asyncio.sleep(0.05)
        async with grpc.aio.insecure_channel(addresses[0]) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            started = await stub.StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y", "z"], seed=4), metadata=ADMIN_METADATA
            )
            for _ in range(300):
                try:
                    response = await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.1)
            record = response.record
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.rejections
        wire_record.check_record(record)
        # A league whose matches any node may claim: every match has its result, exactly once.
        league = await asyncio.to_thread(
            create_league, addresses[1], ADMIN, bots=list(homes), players=2, games=8, seed=2, decision_seconds=5.0
        )
        store = LeagueStore(client)
        for _ in range(1200):
            if (await store.progress(league.league_id))[1] == league.progress.total:
                break
            await asyncio.sleep(0.1)
        results = await store.results(league.league_id)
        spec = LeagueSpec(league.league_id, "5211", 2, tuple(homes), games_per_pairing=8, seed=2)
        assert Counter(r["match_id"] for r in results) == Counter(m.match_id for m in schedule_league(spec))
        assert all(r["termination"] == "normal" for r in results), [r for r in results if r["termination"] != "normal"]
    finally:
        await client.aclose()
        for process in [*bots, *nodes]:
            process.terminate()
        for process in [*bots, *nodes]:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


async def test_a_relayed_seat_follows_its_bot_to_another_node_mid_request(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    nodes = [start_node(redis7.url, f"node-{i}", port, tmp_path / f"n{i}") for i, port in enumerate(ports)]
    client = connect(redis7.url)
    bots: list[RawBot] = []
    try:
        tokens = {name: await asyncio.to_thread(register_bot, addresses[0], name, None) for name in ("y", "x")}
        bots.append(RawBot(addresses[0], tokens["y"]).start())
        away = RawBot(addresses[1], tokens["x"], chooser=lambda _request: None).start()  # silent on node 1
        await asyncio.wait_for(asyncio.gather(bots[0].welcomed.wait(), away.welcomed.wait()), 30)
        for _ in range(300):
            if await client.exists("arena:botat:x", "arena:botat:y") == 2:
                break
            await asyncio.sleep(0.05)
        tc = common_pb2.TimeControl()
        tc.decision_allowance.seconds = 30
        async with grpc.aio.insecure_channel(addresses[0]) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            started = await stub.StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=["y", "x"], seed=6, time_control=tc),
                metadata=ADMIN_METADATA,
            )
            for _ in range(300):  # x is asked (through node 1) and stays silent
                if away.messages("action_request"):
                    break
                await asyncio.sleep(0.05)
            assert away.messages("action_request")
            # x moves to node 0 (the referee's) while its request is pending; it answers there.
            await away.stop()
            bots.append(RawBot(addresses[0], tokens["x"]).start())
            ended = await bots[1].wait_ended(started.match_id, 60)
            record = (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))).record
        assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.rejections
        assert not [d for d in record.decisions if d.is_fallback]
    finally:
        for bot in bots:
            await bot.stop()
        await client.aclose()
        for process in nodes:
            stop(process, 15)
