"""``arena serve --workers N``: worker processes on one port, matches across them (over the workers'
direct link, which falls back to Redis when it breaks); and a match started on one node for bots
connected to another is refereed where the bots are."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import cast

import grpc
import pytest

from arena.cli.admin import register_bot
from arena.serve.launch import start_serve, stop
from arena.serve.process import RunningNode, ServeConfig
from arena.serve.process import start_node as start_in_process
from arena.serve.workers import default_workers
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.redis_stores import connect
from arena.v1 import bot_pb2, common_pb2, match_pb2, match_pb2_grpc
from tests.grpc.harness import ADMIN, ADMIN_METADATA, located, start_node
from tests.grpc.rawbot import RawBot


async def _record(stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str) -> match_pb2.GetMatchRecordResponse:
    for _ in range(300):
        try:
            return await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"match {match_id} did not end")


def _check_sockets(temp: Path, remove: bool) -> None:
    """The supervisor's one folder in ``temp`` is private and holds each worker's socket (removed if ``remove``)."""
    [private] = temp.glob("arena-workers-*")
    assert private.stat().st_mode & 0o777 == 0o700
    assert sorted(path.name for path in private.iterdir()) == ["w.0.sock", "w.1.sock"]
    for path in private.iterdir() if remove else ():
        path.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("sockets", ["kept", "removed"])
async def test_two_workers_share_a_port_and_play_matches_within_and_across_workers(
    redis7: EmbeddedRedis, tmp_path: Path, sockets: str
) -> None:
    """Over the workers' direct link; or, their sockets removed before any match, through Redis."""
    temp = Path(tempfile.mkdtemp(prefix="arena-test-"))  # the supervisor's private folder goes here
    port = free_port()
    address = f"127.0.0.1:{port}"
    args = ["--address", address, "--redis", redis7.url, "--node-id", "w", "--workers", "2", "--open-registration"]
    args += ["--admin-token", ADMIN, "--data-dir", str(tmp_path / "data"), "--metrics-address", ""]
    args += ["--log-format", "text", "--log-level", "warning", "--shutdown-grace", "2", "--web-port", "0"]
    server, said = start_serve(args, log=tmp_path / "serve.log", env={"TMPDIR": str(temp)})
    bots: list[subprocess.Popen[bytes]] = []
    client = connect(redis7.url)
    try:
        assert said == address
        _check_sockets(temp, remove=sockets == "removed")
        # Each bot in its own process (its own connection): the kernel spreads them over the workers.
        where: dict[str, str] = {}
        for index in range(12):
            name = f"b{index}"
            token = await asyncio.to_thread(register_bot, address, name, None)
            command = [sys.executable, "-m", "arena_bot", "random", "--token", token, "--server", address]
            with (tmp_path / f"{name}.log").open("wb") as log:
                bots.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log))  # noqa: ASYNC220
            for _ in range(300):
                if (node := cast(bytes | None, await client.get(f"arena:botat:{name}"))) is not None:
                    where[name] = node.decode()
                    break
                await asyncio.sleep(0.05)
            by_worker: dict[str, list[str]] = defaultdict(list)
            for bot, node_id in where.items():
                by_worker[node_id].append(bot)
            if len(by_worker) == 2 and max(map(len, by_worker.values())) >= 2:
                break
        assert set(by_worker) == {"w.0", "w.1"}, where
        crowded = max(by_worker.values(), key=len)
        other = next(bots_there for bots_there in by_worker.values() if bots_there is not crowded)
        pairs = {"same worker": crowded[:2], "across workers": [crowded[0], other[0]]}
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            for what, pair in pairs.items():
                started = await stub.StartMatch(
                    match_pb2.StartMatchRequest(game="5211", bot_names=pair, seed=5), metadata=ADMIN_METADATA
                )
                record = (await _record(stub, started.match_id)).record
                assert record.outcome.termination == common_pb2.TERMINATION_NORMAL, what
                assert not record.rejections, what
        inboxes = [await client.xlen(f"arena:relay:w.{i}") for i in range(2)]
        if sockets == "kept":  # the cross-worker match went over the workers' direct link, not Redis
            assert inboxes == [0, 0]
        else:
            assert sum(inboxes) > 0
            assert (
                "cannot be opened ([Errno 2] No such file or directory): relaying to it through Redis"
                in (tmp_path / "serve.log").read_text()
            )
    finally:
        await client.aclose()
        for process in bots:
            process.terminate()
        for process in bots:
            process.wait(15)
        stop(server, 30)
    assert server.returncode == 0
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    os.rmdir(temp)  # empty: the supervisor removed its folder


@pytest.mark.slow
async def test_a_match_started_on_one_node_is_refereed_on_the_node_of_its_bots(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    nodes = [start_node(redis7.url, f"node-{i}", port, tmp_path / f"n{i}") for i, port in enumerate(ports)]
    client = connect(redis7.url)
    silent: list[RawBot] = []
    try:
        for name in ("x", "y"):
            token = await asyncio.to_thread(register_bot, addresses[1], name, None)
            silent.append(RawBot(addresses[1], token, chooser=lambda _request: None).start())
        await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in silent)), 30)
        await located(client, "x", "y")
        tc = common_pb2.TimeControl()
        tc.decision_allowance.seconds = 60
        async with grpc.aio.insecure_channel(addresses[0]) as first, grpc.aio.insecure_channel(addresses[1]) as home:
            started = await match_pb2_grpc.MatchServiceStub(first).StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y"], seed=3, time_control=tc),
                metadata=ADMIN_METADATA,
            )
            running = match_pb2.ListMatchesRequest(state=match_pb2.MATCH_STATE_RUNNING)
            on_home = await match_pb2_grpc.MatchServiceStub(home).ListMatches(running)
            on_first = await match_pb2_grpc.MatchServiceStub(first).ListMatches(running)
            # Every node lists it; the one it was asked of says that its bots' node referees it.
            with pytest.raises(grpc.aio.AioRpcError) as asked:
                await match_pb2_grpc.MatchServiceStub(first).GetMatchRecord(
                    match_pb2.GetMatchRecordRequest(match_id=started.match_id)
                )
        assert [m.match_id for m in on_home.matches] == [started.match_id] == [m.match_id for m in on_first.matches]
        assert asked.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "on node 'node-1'" in (asked.value.details() or "")
    finally:
        for bot in silent:
            await bot.stop()
        await client.aclose()
        for process in nodes:
            stop(process, 3)  # the silent bots hold a match open: no need to wait out its grace


async def test_a_match_across_workers_finishes_through_redis_when_their_link_breaks_mid_match(
    redis7: EmbeddedRedis, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Two workers of one `arena serve --workers 2`, as real nodes in this event loop with their sockets
    # in a private folder (a short path: a Unix socket's is at most 107 bytes).
    siblings = Path(tempfile.mkdtemp(prefix="arena-test-"))
    ids = ("w.0", "w.1")
    nodes: list[RunningNode] = []
    bots: list[RawBot] = []
    client = connect(redis7.url)
    try:
        for index, node_id in enumerate(ids):
            config = ServeConfig(
                address="127.0.0.1:0",
                redis_url=redis7.url,
                admin_token=ADMIN,
                open_registration=True,
                metrics_address=None,
                node_id=node_id,
                data_dir=tmp_path / node_id,
                siblings_dir=siblings,
                siblings=(ids[1 - index],),
            )
            nodes.append(await start_in_process(config))
        addresses = [f"127.0.0.1:{node.port}" for node in nodes]
        asked: list[int] = []

        def break_links_at_third_request(request: bot_pb2.ActionRequest) -> str:
            asked.append(request.sequence)
            if len(asked) == 3:  # mid-match: both workers drop the links their sibling sends on
                for node in nodes:
                    assert node.links is not None
                    node.links.close_incoming()
            return request.legal_actions[0]

        tokens = [await asyncio.to_thread(register_bot, addresses[0], name, None) for name in ("x", "y")]
        bots.append(RawBot(addresses[0], tokens[0]).start())
        bots.append(RawBot(addresses[1], tokens[1], chooser=break_links_at_third_request).start())
        await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
        await located(client, "x", "y")
        tc = common_pb2.TimeControl()
        tc.decision_allowance.seconds = 30
        async with grpc.aio.insecure_channel(addresses[0]) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            started = await stub.StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y"], seed=7, time_control=tc),
                metadata=ADMIN_METADATA,
            )
            ended = await bots[1].wait_ended(started.match_id, 60)
            record = (await _record(stub, started.match_id)).record
        assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert len(asked) > 3
        # Nothing lost, nothing twice: no decision timed out, no answer was refused.
        assert not record.rejections
        assert not [d for d in record.decisions if d.is_fallback]
        assert sum([await client.xlen(f"arena:relay:{node_id}") for node_id in ids]) > 0
        broke = [r.getMessage() for r in caplog.records if "sibling link to" in r.getMessage()]
        assert broke and all("broke" in line and "relaying to it through Redis" in line for line in broke), broke
    finally:
        for bot in bots:
            await bot.stop()
        await client.aclose()
        for node in nodes:
            await node.stop(0.5)
        shutil.rmtree(siblings, ignore_errors=True)


@pytest.mark.parametrize(
    ("files", "cores"),
    [
        ({}, 8),  # no cgroup files: every core it may run on
        ({"cpu.max": "max 100000\n"}, 8),  # cgroup v2, no quota
        ({"cpu.max": "100000 100000\n"}, 1),  # a container limited to one CPU (Kubernetes' limits.cpu: 1)
        ({"cpu.max": "150000 100000\n"}, 2),  # 1.5 CPUs: the half core is one more worker
        ({"cpu.max": "50000 100000\n"}, 1),  # never none
        ({"cpu.max": "1600000 100000\n"}, 8),  # a quota above the cores it may run on
        ({"cpu/cpu.cfs_quota_us": "200000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2),  # cgroup v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, 8),
        ({"cpu.max": "garbage\n"}, 8),  # unreadable: ignored
    ],
)
def test_one_worker_per_core_counts_the_cores_a_container_s_quota_gives(
    tmp_path: Path, files: dict[str, str], cores: int
) -> None:
    """`arena serve --workers 0` counted the cores the process may run on, which a container's CPU quota
    does not change: in a pod limited to one CPU on a 16-core machine it would start 16 workers sharing
    one CPU's time. It counts the quota of the process's cgroup too (v2 ``cpu.max``, v1
    ``cpu.cfs_quota_us``)."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert default_workers(allowed=8, cgroup=tmp_path) == cores
