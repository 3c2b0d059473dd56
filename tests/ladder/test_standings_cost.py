"""GetStandings costs what its ladder holds, not what the whole arena holds.

Found in a trial: every GetStandings read three keys for every bot online anywhere (to mark the
ladder's bots that are online), so with 40,000 bots connected one call took 3 s, four callers held
every other call of the node near a second, and no authentication was needed.
"""

from __future__ import annotations

import time
from pathlib import Path

import grpc

from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect
from arena.v1 import ladder_pb2, ladder_pb2_grpc
from tests.commandstats import commands_run
from tests.grpc.harness import ADMIN_METADATA
from tests.test_cross_node import in_process_node

CROWD = 3000


async def test_standings_read_the_ladder_s_bots_not_every_bot_online(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    client = connect(redis7.url)
    try:
        async with (
            in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
            grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as channel,
        ):
            stub = ladder_pb2_grpc.LadderServiceStub(channel)
            spec = ladder_pb2.LadderSpec(game="5211", players_per_match=2)
            created = await stub.CreateLadder(ladder_pb2.CreateLadderRequest(spec=spec), metadata=ADMIN_METADATA)
            ladder = created.ladder
            # Paused, so that no matchmaking pass (which reads every bot online, by design) lands in
            # the count: CI once counted one pass's pipeline of 3,000 commands as the call's.
            await stub.PauseLadder(ladder_pb2.PauseLadderRequest(ladder_id=ladder.ladder_id), metadata=ADMIN_METADATA)
            until = time.time() + 600
            async with client.pipeline(transaction=False) as pipe:  # what nodes publish for their bots
                for i in range(CROWD):
                    pipe.zadd("arena:online", {f"crowd{i}": until})
                    pipe.set(f"arena:botplays:crowd{i}", '["5211"]', ex=600)
                    pipe.set(f"arena:botcap:crowd{i}", "1", ex=600)
                await pipe.execute()
            await stub.GetStandings(ladder_pb2.GetStandingsRequest(ladder_id=ladder.ladder_id))  # the fit, once
            await client.config_resetstat()
            await stub.GetStandings(ladder_pb2.GetStandingsRequest(ladder_id=ladder.ladder_id))
            used = await commands_run(client)
        assert used < 50, f"one GetStandings sent {used} commands to the store with {CROWD} bots online elsewhere"
    finally:
        await client.aclose()
