"""Matches across nodes: bots connected to the three different nodes of one arena (one Redis 7) share a table;
the node refereeing the match reaches the others' bots through their nodes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest

from arena.cli.admin import create_league, register_bot
from arena.errors import LimitExceededError, NotFoundError
from arena.games.lookup import get_game
from arena.league.schedule import LeagueSpec, schedule_league
from arena.referee.seat import MatchStart
from arena.referee.timecontrol import TimeControl
from arena.serve.launch import stop
from arena.serve.process import RunningNode, ServeConfig, start_node
from arena.serve.startup import advertised_address
from arena.service import relay as relay_module
from arena.service import sessions as sessions_module
from arena.service.limits import AdminNetworks, Limits
from arena.service.relay import Home, ProxySeat, RelayKind, RelaySeat
from arena.store.embedded import EmbeddedRedis, free_port
from arena.store.leagues import LeagueStore
from arena.store.redis_stores import connect, text
from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from arena.web import site as site_module
from arena.web.data import SiteData
from arena.wire import record as wire_record
from arena.wire.common import outcome_from_proto
from tests.grpc.harness import ADMIN, ADMIN_METADATA, eventually, located
from tests.grpc.harness import start_node as start_serve_node
from tests.grpc.rawbot import RawBot


@pytest.mark.slow
async def test_bots_on_different_nodes_play_matches_and_a_league(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    ports = [free_port(), free_port(), free_port()]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    nodes = [start_serve_node(redis7.url, f"node-{i}", port, tmp_path / f"n{i}") for i, port in enumerate(ports)]
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
        await located(client, *homes)
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
            else:
                pytest.fail(f"no record of match {started.match_id} within 30 s")
            record = response.record
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.rejections
        final = list(wire_record.iter_states(record))[-1]
        assert get_game("5211").outcome(final) == outcome_from_proto(record.outcome)
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
        processes: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = [*bots, *nodes]
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.slow
async def test_a_relayed_seat_follows_its_bot_to_another_node_mid_request(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    addresses = [f"127.0.0.1:{port}" for port in ports]
    nodes = [start_serve_node(redis7.url, f"node-{i}", port, tmp_path / f"n{i}") for i, port in enumerate(ports)]
    client = connect(redis7.url)
    bots: list[RawBot] = []
    try:
        tokens = {name: await asyncio.to_thread(register_bot, addresses[0], name, None) for name in ("y", "x")}
        bots.append(RawBot(addresses[0], tokens["y"]).start())
        away = RawBot(addresses[1], tokens["x"], chooser=lambda _request: None).start()  # silent on node 1
        await asyncio.wait_for(asyncio.gather(bots[0].welcomed.wait(), away.welcomed.wait()), 30)
        await located(client, "x", "y")
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
        assert_played_cleanly(ended, record)
    finally:
        for bot in bots:
            await bot.stop()
        await client.aclose()
        for process in nodes:
            stop(process, 15)


@pytest.mark.slow
async def test_a_bot_that_moves_to_another_node_mid_match_is_not_declared_gone_by_the_one_it_left(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """Bot x left node B mid-match and played on from node A, the referee's; B, which still held
    x's relayed seat, waited out the grace period, found x not back and told the referee x was
    gone: every decision of x's after that was a fallback, though x was connected and answering."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (a, b, to_a, bots):
        await bots[0].stop()  # x goes to node B
        x_token = bots[0].token
        away = RawBot(f"127.0.0.1:{b.port}", x_token, think_seconds=0.05).start()
        bots.append(away)
        await asyncio.wait_for(away.welcomed.wait(), 30)
        await on_node(b, "x")
        started = await start_5211(to_a, "yx", 5, decision_seconds=30, grace_seconds=1)
        await asked(away, 2)
        await away.stop()
        back = RawBot(f"127.0.0.1:{a.port}", x_token, think_seconds=0.1).start()  # x plays on from node A, 2 s or more
        bots.append(back)
        ended = await back.wait_ended(started.match_id, 60)
        record = await record_of(to_a, started.match_id)
    assert len(back.messages("action_request")) >= 20  # the match outlasted node B's grace period
    assert_played_cleanly(ended, record)


@pytest.mark.slow
async def test_a_bot_that_leaves_the_referees_node_for_another_plays_on_from_there(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """A trial's bot left the node refereeing its match and was back on another node within a
    quarter of a second: the referee waited on its own node only, and forfeited it when the grace
    period ended, 10 s later (a bot relayed from another node was followed; one of the referee's
    own was not)."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path, think_seconds=0.05) as (_, b, to_a, bots):
        started = await start_5211(to_a, "xy", 5, decision_seconds=30, grace_seconds=2)
        await asked(bots[0], 2)
        await bots[0].stop()  # x leaves node A, the referee's, for node B
        moved = RawBot(f"127.0.0.1:{b.port}", bots[0].token, think_seconds=0.1).start()
        bots.append(moved)
        ended = await moved.wait_ended(started.match_id, 60)
        record = await record_of(to_a, started.match_id)
    assert len(moved.messages("action_request")) >= 20  # it played on there, past the grace period
    assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.rejections
    late = [d for d in record.decisions if d.is_fallback]
    assert len(late) <= 1, late  # at most the decision that fell due while it moved


@pytest.mark.slow
async def test_a_match_started_for_a_bot_that_just_left_its_node_gives_it_its_grace_period(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """Bot x left node B just as B's heartbeat said again that x was there (its last script call
    of the round wrote x's entry after x's departure removed it), and node A started a match for
    x there. B seated x although x had no connection and told A nothing: A took x for connected,
    and each of x's requests waited out its whole allowance and counted as a timeout, where a bot
    that leaves mid-match is given its grace period and then played for by its fallback."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (_, b, to_a, bots):
        await bots[0].stop()  # x goes to node B, and leaves it
        away = RawBot(f"127.0.0.1:{b.port}", bots[0].token).start()
        bots.append(away)
        await asyncio.wait_for(away.welcomed.wait(), 30)
        await on_node(b, "x")
        await away.stop()
        for _ in range(100):
            if not await b.redis.exists("arena:botat:x") and b.node.hub.sessions["x"].connection is None:
                break
            await asyncio.sleep(0.05)
        assert b.node.matches.relay is not None
        await b.node.matches.relay.directory.here({"x": 1}, {"x": ["5211"]})  # the heartbeat's late write
        started = await start_5211(to_a, "yx", 5, decision_seconds=30, grace_seconds=1)
        ended = await bots[1].wait_ended(started.match_id, 15)
        record = await record_of(to_a, started.match_id)
    assert ended.outcome.termination == common_pb2.TERMINATION_DISCONNECTED
    assert not record.rejections  # no timeouts: x was away, not slow


@pytest.mark.slow
async def test_a_node_forgets_the_bots_that_left_it_a_while_ago(
    redis7: EmbeddedRedis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node kept the session of every bot that had ever connected to it, for as long as it ran:
    its memory grew with each new bot of an open arena, connected or not."""
    monkeypatch.setattr(sessions_module, "IDLE_SESSION_SECONDS", 0.5)
    async with (
        in_process_node(redis7.url, "node-a", tmp_path / "a", heartbeat_seconds=0.2) as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as channel,
    ):
        tokens = await register(channel, "xy")
        bots = [RawBot(f"127.0.0.1:{a.port}", tokens[name]).start() for name in "xy"]
        try:
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            await bots[0].stop()
            for _ in range(100):
                if "x" not in a.node.hub.sessions:
                    break
                await asyncio.sleep(0.05)
            assert set(a.node.hub.sessions) == {"y"}  # the one still connected is kept
        finally:
            for bot in bots:
                await bot.stop()


@pytest.mark.slow
async def test_a_bots_page_on_any_node_says_where_the_bot_is_connected(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """With ``--workers 2`` a trial's site, served by the first worker, said the bots connected to
    the second were "not connected here", and its home page counted only the first worker's."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (_, b, _, bots):
        await located(b.redis, "x", "y")
        site = SiteData(b.node)
        page = await site.bot("x")
        assert (page["connected"], page["node"]) == (True, "node-a")
        assert (await site.overview())["bots_online"] == 2
        await bots[0].stop()
        for _ in range(100):
            if not (await site.bot("x"))["connected"]:
                break
            await asyncio.sleep(0.05)
        page = await site.bot("x")
        assert (page["connected"], page["node"]) == (False, None)


async def asked(bot: RawBot, requests: int) -> None:
    """Wait (up to 10 s) until ``bot`` has been sent this many action requests."""
    for _ in range(200):
        if len(bot.messages("action_request")) >= requests:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the bot was sent {len(bot.messages('action_request'))} requests in 10 s, not {requests}")


async def record_of(channel: grpc.aio.Channel, match_id: str) -> match_pb2.MatchRecord:
    """The match's record, from the node at the other end of ``channel``."""
    stub = match_pb2_grpc.MatchServiceStub(channel)
    return (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))).record


async def on_node(node: RunningNode, bot: str) -> None:
    """Wait until the directory has ``bot`` on ``node``."""
    relay = node.node.matches.relay
    assert relay is not None
    for _ in range(200):
        if await relay.directory.where(bot) == relay.node_id:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"bot {bot} was not located on {relay.node_id} within 10 s")


def assert_played_cleanly(ended: bot_pb2.MatchEnded, record: match_pb2.MatchRecord) -> None:
    """The match ended normally, no action rejected, no decision made for a seat by its fallback."""
    assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.rejections
    assert not [d for d in record.decisions if d.is_fallback]


class ServeProcess:
    """An ``arena serve`` node in a process of its own (``tests.grpc.harness.start_node``), which a
    test kills and starts again under its id, as a service manager would."""

    def __init__(self, redis_url: str, node_id: str, port: int, data: Path) -> None:
        self.args = (redis_url, node_id, port, data)
        self.process = start_serve_node(*self.args)

    def kill(self) -> None:
        """SIGKILL: the node says nothing to anyone."""
        self.process.kill()
        self.process.wait(10)

    async def start(self) -> None:
        """Start it again (it takes its id back once the old heartbeat has expired)."""
        self.process = await asyncio.to_thread(start_serve_node, *self.args)


@contextlib.contextmanager
def serve_process(redis_url: str, node_id: str, port: int, data: Path) -> Iterator[ServeProcess]:
    node = ServeProcess(redis_url, node_id, port, data)
    try:
        yield node
    finally:
        node.kill()


@contextlib.asynccontextmanager
async def bots_x_and_y_on_a_of_nodes_a_and_b(
    redis_url: str, tmp_path: Path, think_seconds: float = 0.0
) -> AsyncIterator[tuple[RunningNode, RunningNode, grpc.aio.Channel, list[RawBot]]]:
    """Nodes A and B on one Redis, bots x and y connected to A and welcomed, and a channel to A."""
    async with (
        in_process_node(redis_url, "node-b", tmp_path / "b") as b,
        in_process_node(redis_url, "node-a", tmp_path / "a") as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
    ):
        tokens = await register(to_a, "xy")
        bots = [RawBot(f"127.0.0.1:{a.port}", tokens[name], think_seconds=think_seconds).start() for name in "xy"]
        try:
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            yield a, b, to_a, bots
        finally:
            for bot in bots:
                await bot.stop()


async def start_5211(
    channel: grpc.aio.Channel, bots: Sequence[str], seed: int, decision_seconds: int = 0, grace_seconds: int = 0
) -> match_pb2.StartMatchResponse:
    """Start a 5211 match (as the admin) between ``bots``, with these seconds of the time control (0: its default)."""
    request = match_pb2.StartMatchRequest(game="5211", bot_names=list(bots), seed=seed)
    if decision_seconds:
        request.time_control.decision_allowance.seconds = decision_seconds
    if grace_seconds:
        request.time_control.disconnect_grace.seconds = grace_seconds
    return await match_pb2_grpc.MatchServiceStub(channel).StartMatch(request, metadata=ADMIN_METADATA)


async def register(channel: grpc.aio.Channel, names: Iterable[str]) -> dict[str, str]:
    """Register a bot of each name (a string: of each one-letter name; open registration); their tokens."""
    registry = registry_pb2_grpc.RegistryServiceStub(channel)
    return {name: (await registry.RegisterBot(registry_pb2.RegisterBotRequest(name=name))).token for name in names}


@contextlib.asynccontextmanager
async def in_process_node(redis_url: str, node_id: str, data: Path, **options: Any) -> AsyncIterator[RunningNode]:
    """A real ``arena serve`` node in this event loop, on a shared external Redis (``options``: more
    of its ``ServeConfig``)."""
    config = ServeConfig(
        address="127.0.0.1:0",
        redis_url=redis_url,
        admin_token=ADMIN,
        open_registration=True,
        metrics_address=None,
        node_id=node_id,
        data_dir=data,
        **options,
    )
    running = await start_node(config)
    try:
        yield running
    finally:
        await running.stop(0.5)


@pytest.mark.slow
async def test_every_node_lists_and_explains_the_matches_running_on_another(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    async with (
        in_process_node(redis7.url, "node-b", tmp_path / "b") as b,
        grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
    ):
        on_b = match_pb2_grpc.MatchServiceStub(to_b)
        async with (
            in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
            grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        ):
            await a_runs_matches_that_b_lists(to_a, on_b, a.port, SiteData(b.node))
        # Once node A has stopped (its matches aborted and recorded), node B lists them as finished:
        # the plain ones; the sealed one is held until its deal's other rotation has ended.
        listed = (await on_b.ListMatches(match_pb2.ListMatchesRequest())).matches
        assert [m.state for m in listed] == [match_pb2.MATCH_STATE_FINISHED] * 2
        client = connect(redis7.url)
        try:  # a node stopping unlists its matches itself (the live nodes' sweep forgets it in the node list)
            assert set(await client.keys("arena:running*")) <= {b"arena:running-nodes"}
        finally:
            await client.aclose()


async def a_runs_matches_that_b_lists(
    to_a: grpc.aio.Channel, on_b: match_pb2_grpc.MatchServiceAsyncStub, port: int, site_b: SiteData
) -> None:
    """Three matches run on node A between silent bots connected there: two plain, one sealed."""
    registry = registry_pb2_grpc.RegistryServiceStub(to_a)
    bots: list[RawBot] = []
    try:
        for name in ("x", "y"):
            token = (await registry.RegisterBot(registry_pb2.RegisterBotRequest(name=name))).token
            bots.append(RawBot(f"127.0.0.1:{port}", token, chooser=lambda _request: None).start())
        await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
        tc = common_pb2.TimeControl()
        tc.decision_allowance.seconds = 60
        on_a = match_pb2_grpc.MatchServiceStub(to_a)
        plain, other = [
            await on_a.StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=seats, seed=3, time_control=tc),
                metadata=ADMIN_METADATA,
            )
            for seats in (["x", "y"], ["y", "x"])
        ]
        sealed = await on_a.StartMatch(
            match_pb2.StartMatchRequest(
                game="5211", bot_names=["y", "x"], seed=3, time_control=tc, seal="deal", seal_size=2
            ),
            metadata=ADMIN_METADATA,
        )
        running = match_pb2.ListMatchesRequest(state=match_pb2.MATCH_STATE_RUNNING)
        here = (await on_a.ListMatches(running)).matches
        assert {m.match_id for m in here} == {plain.match_id, other.match_id}  # a sealed match is in no list
        there: list[match_pb2.MatchSummary] = []
        for _ in range(100):
            there = list((await on_b.ListMatches(running)).matches)
            if len(there) == 2:
                break
            await asyncio.sleep(0.05)
        # Node B lists node A's matches exactly as node A does: no more, no less.
        assert there == list(here)
        assert [(m.game, list(m.bot_names), m.state) for m in there if m.match_id == plain.match_id] == [
            ("5211", ["x", "y"], match_pb2.MATCH_STATE_RUNNING)
        ]
        # Filters apply to other nodes' matches too, before the page is cut.
        mine = await on_b.ListMatches(match_pb2.ListMatchesRequest(bot_name="x", game="5211", page_size=1))
        assert [m.match_id for m in mine.matches] == [here[0].match_id] and mine.next_page_token
        following = await on_b.ListMatches(
            match_pb2.ListMatchesRequest(bot_name="x", game="5211", page_size=1, page_token=mine.next_page_token)
        )
        assert [m.match_id for m in following.matches] == [here[1].match_id]
        none = await on_b.ListMatches(match_pb2.ListMatchesRequest(bot_name="nobody", state=running.state))
        assert not none.matches
        # So does node B's web site: its home page and the match's page (not the sealed one's).
        assert {m["match_id"] for m in (await site_b.overview())["running"]} == {plain.match_id, other.match_id}
        assert (await site_b.match(plain.match_id))["state"] == "running"
        with pytest.raises(NotFoundError, match="duplicate deal"):
            await site_b.match(sealed.match_id)
        # Node B streams it as node A does (its summary, then its latest view: the bots are silent);
        # its record is released at its end, so fetching it says where it runs; a sealed one neither.
        watched = on_b.WatchMatch(match_pb2.WatchMatchRequest(match_id=plain.match_id))
        first, latest = await watched.read(), await watched.read()
        watched.cancel()
        assert isinstance(first, match_pb2.WatchMatchResponse) and isinstance(latest, match_pb2.WatchMatchResponse)
        assert first.summary.match_id == plain.match_id and latest.WhichOneof("event") == "view"
        with pytest.raises(grpc.aio.AioRpcError) as fetched:
            await on_b.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=plain.match_id))
        assert fetched.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        for stub in (on_a, on_b):
            with pytest.raises(grpc.aio.AioRpcError) as hidden:
                async for _ in stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=sealed.match_id)):
                    pass
            assert hidden.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "duplicate deal" in (hidden.value.details() or "")
            assert "node-a" not in (hidden.value.details() or "")
    finally:
        for bot in bots:
            await bot.stop()


@pytest.mark.slow
async def test_a_match_refereed_on_one_node_is_watched_live_from_another(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """A trial watched a match from a node other than its referee's (behind a load balancer any node;
    with ``--workers N`` the other worker, where the web site is): WatchMatch failed with
    FAILED_PRECONDITION and the site's live view stayed at "connecting…". Every node streams every
    running match now, the same events its referee's node sends, to gRPC and to the web site alike."""
    web = f"127.0.0.1:{free_port()}"
    async with (
        in_process_node(redis7.url, "node-b", tmp_path / "b", web_address=web) as b,
        in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
    ):
        tokens = await register(to_a, "xy")
        bots = [RawBot(f"127.0.0.1:{a.port}", tokens[name], think_seconds=0.01).start() for name in "xy"]
        try:
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            on_a, on_b = match_pb2_grpc.MatchServiceStub(to_a), match_pb2_grpc.MatchServiceStub(to_b)
            started = await on_a.StartMatch(
                match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y"], seed=11), metadata=ADMIN_METADATA
            )
            request = match_pb2.WatchMatchRequest(match_id=started.match_id)

            async def watch(stub: match_pb2_grpc.MatchServiceAsyncStub) -> list[match_pb2.WatchMatchResponse]:
                return [message async for message in stub.WatchMatch(request, timeout=60)]

            here, there, site = await asyncio.gather(
                watch(on_a), watch(on_b), live_events(f"http://{web}/api/matches/{started.match_id}/events")
            )
            record = (await on_b.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))).record
        finally:
            for bot in bots:
                await bot.stop()
    assert b.node.matches.relay is not None and not b.node.matches.relay.watches
    assert a.node.matches.relay is not None and not a.node.matches.relay.streams
    assert there[0].summary.match_id == started.match_id
    # Node B's stream is node A's from where it joined: every turn revealed since, in order, then the
    # same last view and outcome (the record's).
    revealed = {m.turn_revealed.turn_index: m for m in here if m.WhichOneof("event") == "turn_revealed"}
    last = max(revealed)
    seen = [m for m in there if m.WhichOneof("event") == "turn_revealed"]
    assert seen and [m.turn_revealed.turn_index for m in seen] == list(
        range(seen[0].turn_revealed.turn_index, last + 1)
    )
    assert all(m == revealed[m.turn_revealed.turn_index] for m in seen)
    assert seen[0].turn_revealed.turn_index < last // 2, "node B joined late"
    assert there[-2:] == here[-2:] and there[-1].outcome == record.outcome
    # Node B's web site: the live view's events, turn after turn, to the end.
    assert site[-1]["kind"] == "ended" and site[-1]["outcome"]["scores"] == list(record.outcome.scores)
    turns = [event["turn"] for event in site if event["kind"] == "turn"]
    assert turns == list(range(turns[0], last + 2)) and turns[0] <= last // 2


@pytest.mark.slow
@pytest.mark.parametrize("restarted", [False, True], ids=["dies", "restarts-under-its-id"])
async def test_a_node_that_dies_ends_its_relayed_watches_and_frees_its_relayed_seats(
    redis7: EmbeddedRedis, tmp_path: Path, restarted: bool
) -> None:
    """A spectator on node B of a match refereed on node A must not wait for ever when node A dies
    (SIGKILL: no end event is sent), nor B's bot in that match hold its slot: node B ends the
    stream, UNAVAILABLE, and drops the seat once A's heartbeat is gone. A node restarted after a
    crash takes its id back within a quarter of a second of the old heartbeat's expiry: node B,
    which checked only that the id was alive, saw it alive again, its spectator waited for ever for
    a match the new instance never had, and the bot's seat held a slot for two minutes."""
    port = free_port()
    with serve_process(redis7.url, "node-a", port, tmp_path / "a") as node_a:
        async with (
            in_process_node(redis7.url, "node-b", tmp_path / "b") as b,
            grpc.aio.insecure_channel(f"127.0.0.1:{port}") as to_a,
            grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
        ):
            tokens = await register(to_a, "xy")
            bots = [  # x's seat is relayed by node B
                RawBot(address, tokens[name], chooser=lambda _request: None, capacity=1).start()
                for address, name in ((f"127.0.0.1:{port}", "y"), (f"127.0.0.1:{b.port}", "x"))
            ]
            try:
                await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
                await located(b.redis, "x", "y")
                started = await start_5211(to_a, "yx", 2, decision_seconds=600)
                x = b.node.hub.sessions["x"]
                for _ in range(100):
                    if x.all_seats():
                        break
                    await asyncio.sleep(0.05)
                assert [type(seat) for seat in x.all_seats()] == [ProxySeat] and x.free_slots == 0
                call = match_pb2_grpc.MatchServiceStub(to_b).WatchMatch(
                    match_pb2.WatchMatchRequest(match_id=started.match_id), timeout=60
                )
                first, latest = await call.read(), await call.read()
                assert isinstance(first, match_pb2.WatchMatchResponse) and first.summary.match_id == started.match_id
                assert isinstance(latest, match_pb2.WatchMatchResponse) and latest.WhichOneof("event") == "view"
                node_a.kill()
                loop = asyncio.get_running_loop()
                killed = loop.time()
                if restarted:
                    await node_a.start()
                with pytest.raises(grpc.aio.AioRpcError) as ended:
                    await to_the_end(call)
                assert ended.value.code() == grpc.StatusCode.UNAVAILABLE, ended.value.details()
                assert "node-a" in (ended.value.details() or "") and started.match_id in (ended.value.details() or "")
                assert loop.time() - killed < 30  # the heartbeat expires, then two checks 2 s apart
                assert b.node.matches.relay is not None and not b.node.matches.relay.watches
                for _ in range(100):  # two checks 2 s apart
                    if x.free_slots:
                        break
                    await asyncio.sleep(0.1)
                assert x.free_slots == 1
            finally:
                for bot in bots:
                    await bot.stop()


@pytest.mark.slow
async def test_a_bot_back_on_its_node_restarted_under_its_id_plays_its_match_on(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """Bot x's node crashed mid-match and was restarted under its id, and x connected to it again:
    the referee saw x on the same node id and kept sending it requests there, which the new
    instance, with no seat for them, dropped. x never played again in that match. And until x
    came back, every node read x's entry that the old instance wrote (for 15 s) and sent x's
    matches to the new one, which had not x: a trial saw them recorded at once as forfeits."""
    port = free_port()
    with serve_process(redis7.url, "node-b", port, tmp_path / "b") as node_b:
        async with (
            in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
            grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        ):
            tokens = await register(to_a, "xy")
            bots = [RawBot(f"127.0.0.1:{a.port}", tokens["y"]).start()]
            x = RawBot(f"127.0.0.1:{port}", tokens["x"], think_seconds=0.2).start()
            try:
                await asyncio.wait_for(asyncio.gather(bots[0].welcomed.wait(), x.welcomed.wait()), 30)
                await located(a.redis, "x", "y")
                started = await start_5211(to_a, "yx", 3, decision_seconds=60, grace_seconds=60)
                await asked(x, 2)
                node_b.kill()
                await x.stop()
                await node_b.start()
                assert a.node.matches.relay is not None and await a.node.matches.relay.locate("x") is None
                bots.append(RawBot(f"127.0.0.1:{port}", tokens["x"]).start())
                ended = await bots[1].wait_ended(started.match_id, 60)
            finally:
                for bot in bots:
                    await bot.stop()
        assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert bots[1].messages("action_request")  # asked again on the new instance


@pytest.mark.slow
async def test_what_a_referee_posts_to_a_node_once_it_has_its_id_reaches_it(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """CI saw a match stall after its bot's node was restarted under its id: the new instance read
    its inbox only from where it stood once it had taken the id and cleared what the old instance
    left, which takes a while in a busy arena (here: 100,000 bots online elsewhere). The referee,
    finding the bot's old entry under the new instance meanwhile, had seated the bot there (as
    ``RelaySeat._move`` does): its start and request were skipped, and once the bot was back the
    referee, which had it seated there already, never asked again."""
    client = connect(redis7.url)
    until = time.time() + 600
    async with client.pipeline(transaction=False) as pipe:
        for first in range(0, 100_000, 10_000):
            pipe.zadd("arena:online", dict.fromkeys((f"crowd{i}" for i in range(first, first + 10_000)), until))
            pipe.mset({f"arena:botat:crowd{i}": "node-c" for i in range(first, first + 10_000)})
        await pipe.execute()
    start = MatchStart("m1", "5211", 0, ("x", "y"), TimeControl(), {})
    async with in_process_node(redis7.url, "node-a", tmp_path / "a") as a:
        relay = a.node.matches.relay
        assert relay is not None

        async def seat_x_once_b_has_its_id() -> Home:
            for _ in range(3000):
                instance = await client.hget("arena:node:node-b", "instance")
                if instance is not None:
                    home = Home("node-b", text(instance))
                    await RelaySeat(relay, home, "x", "m1", 0, "5211").match_started(start)
                    return home
                await asyncio.sleep(0.005)
            raise AssertionError("node-b did not take its id")

        seating = asyncio.ensure_future(seat_x_once_b_has_its_id())
        try:
            async with in_process_node(redis7.url, "node-b", tmp_path / "b") as b:
                await seating
                assert not b.node.hub.connected()  # seated before it served
                await eventually(lambda: "m1" in getattr(b.node.hub.sessions.get("x"), "seats", {}), 10)
                assert isinstance(b.node.hub.sessions["x"].seats["m1"][0], ProxySeat)
        finally:
            seating.cancel()
            await client.aclose()


@pytest.mark.slow
async def test_a_node_stopping_gracefully_tells_its_bots_to_go_elsewhere_and_forgets_them(
    redis7: EmbeddedRedis, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A trial's graceful stops logged a CancelledError traceback for every connected bot (gRPC
    cancelled their streams under them), and left the bots' entries naming the stopped node."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (a, b, _, bots):
        await located(b.redis, "x", "y")
        await a.stop(5.0)
        for _ in range(200):
            if all(bot.error is not None for bot in bots):
                break
            await asyncio.sleep(0.05)
        for bot in bots:
            assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAVAILABLE
            assert bot.error.details() == "the node is shutting down: connect again, to another node"
        assert await b.redis.exists("arena:botat:x", "arena:botat:y") == 0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.slow
async def test_a_bot_that_comes_back_to_a_node_that_told_it_to_go_is_refused_at_once(
    redis7: EmbeddedRedis, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A trial's SDK bots, told by a stopping node to go elsewhere, reconnected to it at once (the
    same port): the node took their Hellos and kept the streams until gRPC cancelled them under
    it, each logged as an error with a CancelledError traceback."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (a, _, _, bots):
        stopping = asyncio.ensure_future(a.stop(5.0))
        for _ in range(200):
            if all(bot.error is not None for bot in bots):
                break
            await asyncio.sleep(0.02)
        back = RawBot(f"127.0.0.1:{a.port}", bots[0].token).start()
        bots.append(back)
        for _ in range(200):
            if back.error is not None or stopping.done():
                break
            await asyncio.sleep(0.02)
        assert back.error is not None and back.error.code() == grpc.StatusCode.UNAVAILABLE, back.error
        assert back.error.details() == "the node is shutting down: connect again, to another node"
        assert not back.welcomed.is_set()
        await stopping
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.slow
@pytest.mark.parametrize("grace", [10.0, 0.0], ids=["its-match-ends", "its-match-is-aborted"])
async def test_a_node_stopping_gracefully_hands_back_the_matches_it_will_not_play(
    redis7: EmbeddedRedis, tmp_path: Path, grace: float
) -> None:
    """A trial restarted ``arena serve`` (SIGTERM, then a new start, under a new node id) mid-league:
    the matches the old node had taken off the queue but not started, and the one its shutdown
    aborted, waited out their lease (30 s) before any node played them, the league at "0 running"
    meanwhile. And the league's export then had a row for the aborted run beside the match's."""
    bots: list[RawBot] = []
    try:
        async with (
            in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
            grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        ):
            tokens = await register(to_a, "xy")
            # One match at a time: node A holds the league's other matches unstarted.
            bots += [RawBot(f"127.0.0.1:{a.port}", tokens[n], capacity=1, think_seconds=0.02).start() for n in "xy"]
            await located(a.redis, "x", "y")
            league = await asyncio.to_thread(
                create_league, f"127.0.0.1:{a.port}", ADMIN, bots=["x", "y"], players=2, games=6, seed=1
            )
            for _ in range(300):
                if len(a.worker.held) == league.progress.total:
                    break
                await asyncio.sleep(0.02)
            assert len(a.worker.held) == league.progress.total
            for _ in range(300):
                if a.node.matches.running:
                    break
                await asyncio.sleep(0.02)
            await a.stop(grace)  # the match it plays ends, or is aborted; the others it has not started
        store = LeagueStore(connect(redis7.url))
        assert (await store.progress(league.league_id))[1] < league.progress.total
        async with in_process_node(redis7.url, "node-c", tmp_path / "c") as c:
            for bot in bots:
                await bot.stop()
            bots += [RawBot(f"127.0.0.1:{c.port}", tokens[n], capacity=1).start() for n in "xy"]
            for _ in range(150):  # well inside the 30 s lease of what node A held
                if (await store.progress(league.league_id))[1] == league.progress.total:
                    break
                await asyncio.sleep(0.1)
            assert (await store.progress(league.league_id))[1] == league.progress.total
            command = ["league", "export", league.league_id, "--format", "jsonl", "--server", f"127.0.0.1:{c.port}"]
            export = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "arena.cli", *command],
                capture_output=True,
                text=True,
                timeout=60,
                check=True,
            )
        rows = [json.loads(line) for line in export.stdout.splitlines()]
        assert len(rows) == league.progress.total and all(r["termination"] == "normal" for r in rows), rows
    finally:
        for bot in bots:
            await bot.stop()


@pytest.mark.slow
async def test_matches_parked_while_a_node_stalled_are_played_once_it_is_back(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """A trial stopped a node (SIGSTOP) for 20 s: its bots' entries lapsed, the other nodes parked
    their league matches until they connected, and once the node went on its heartbeat wrote the
    entries back, but as the bots had never left nothing queued their matches again: the league
    waited for ever."""
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path) as (a, b, _, _):
        a.stop_worker.set()  # node B takes the league's matches
        await asyncio.sleep(0.5)
        await a.redis.delete("arena:botat:x", "arena:botat:y")  # lapsed: node A was stalled
        league = await asyncio.to_thread(
            create_league, f"127.0.0.1:{b.port}", ADMIN, bots=["x", "y"], players=2, games=2, seed=1
        )
        store = LeagueStore(a.redis)
        for _ in range(300):
            if (await store.progress(league.league_id))[1] == league.progress.total:
                break
            await asyncio.sleep(0.1)
        assert (await store.progress(league.league_id))[1] == league.progress.total


@pytest.mark.slow
async def test_a_relayed_watch_that_stops_hearing_from_the_referee_ends_saying_so(
    redis7: EmbeddedRedis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The relay drops what it could not post to Redis in about 30 s: a trial lost a relayed
    spectator's messages, and with both nodes alive and the match running the spectator waited
    (for ever, had the end been lost too). The referee's node now says it is still streaming when
    it has nothing to send, and a spectator's node that hears nothing for a while lets it go."""
    monkeypatch.setattr(relay_module, "WATCH_KEEP_ALIVE_SECONDS", 0.2)
    monkeypatch.setattr(relay_module, "WATCH_SILENCE_SECONDS", 1.0)
    monkeypatch.setattr(relay_module, "ORIGIN_CHECK_SECONDS", 0.2)
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path, think_seconds=0.3) as (a, b, to_a, _):
        relay = a.node.matches.relay
        assert relay is not None
        post = relay.store.post
        posted: list[int] = []

        async def losing(node: str, messages: Sequence[Mapping[str, str]]) -> None:
            """The referee's posts, but those to node B after its first two events are lost."""
            if node == "node-b" and len(posted) >= 2:
                return
            posted.extend(1 for m in messages if m.get("t") == RelayKind.WATCHED.value and "kind" in m)
            await post(node, messages)

        monkeypatch.setattr(relay.store, "post", losing)
        started = await start_5211(to_a, "xy", 4)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b:
            call = match_pb2_grpc.MatchServiceStub(to_b).WatchMatch(
                match_pb2.WatchMatchRequest(match_id=started.match_id), timeout=30
            )
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await to_the_end(call)
        assert ended.value.code() == grpc.StatusCode.UNAVAILABLE, ended.value.details()
        assert "said nothing of it for 1 s" in (ended.value.details() or "")
        assert started.match_id in a.node.matches.running  # it went on without the spectator
        assert b.node.matches.relay is not None and not b.node.matches.relay.watches


@pytest.mark.slow
async def test_a_relayed_spectator_dropped_for_falling_behind_stops_its_stream_at_the_referee(
    redis7: EmbeddedRedis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial's spectator on node B fell behind and was dropped, but node B did not tell node A,
    which went on posting each event of the match to B (and holding one of its relayed streams)."""
    monkeypatch.setattr(relay_module, "WATCHED_BEHIND", 3)
    async with bots_x_and_y_on_a_of_nodes_a_and_b(redis7.url, tmp_path, think_seconds=0.2) as (a, b, to_a, _):
        started = await start_5211(to_a, "xy", 5)
        async with contextlib.aclosing(b.node.matches.watch(started.match_id)) as events:
            await anext(events)
            assert a.node.matches.relay is not None and a.node.matches.relay.streams
            await asyncio.sleep(1.5)  # the spectator does not read: events pile up on node B
            with pytest.raises(LimitExceededError, match="fell too far behind"):
                await anext(events)
        for _ in range(20):
            if not a.node.matches.relay.streams:
                break
            await asyncio.sleep(0.05)
        assert not a.node.matches.relay.streams and started.match_id in a.node.matches.running


@pytest.mark.slow
async def test_a_live_view_outlasts_its_keep_alives(
    redis7: EmbeddedRedis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial left a live view open on a match whose bots think long: at the first keep-alive (15 s
    without an event) the site's stream ended, for the keep-alive's timeout cancelled the watch
    under it, and the page stopped following the match. On the referee's node and on another."""
    monkeypatch.setattr(site_module, "KEEP_ALIVE_SECONDS", 0.3)
    # The relayed watch's own keep-alives keep it open past a silence limit shorter than a think.
    monkeypatch.setattr(relay_module, "WATCH_KEEP_ALIVE_SECONDS", 0.2)
    monkeypatch.setattr(relay_module, "WATCH_SILENCE_SECONDS", 0.8)
    monkeypatch.setattr(relay_module, "ORIGIN_CHECK_SECONDS", 0.2)
    webs = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    async with (
        in_process_node(redis7.url, "node-b", tmp_path / "b", web_address=webs[1]),
        in_process_node(redis7.url, "node-a", tmp_path / "a", web_address=webs[0]) as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
    ):
        tokens = await register(to_a, "xy")
        bots = [RawBot(f"127.0.0.1:{a.port}", tokens[name], think_seconds=1.5).start() for name in "xy"]
        try:
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            started = await start_5211(to_a, "xy", 4)
            urls = [f"http://{web}/api/matches/{started.match_id}/events" for web in webs]
            for said in await asyncio.gather(*map(until_the_next_event, urls)):
                assert said.count(b"\nevent: ") == 1 and said.count(b": keep-alive") >= 2, said[-300:]
        finally:
            for bot in bots:
                await bot.stop()


async def until_the_next_event(url: str) -> bytes:
    """A live view's stream, read until the event after its first (the match's latest state), or its end."""
    said = b""
    async with aiohttp.ClientSession() as session, session.get(url, timeout=aiohttp.ClientTimeout(30)) as response:
        async for line in response.content:
            said += line
            if line.startswith(b"event: ") and said.count(b"event: ") == 2:
                break
    return said


async def to_the_end(call: grpc.aio.UnaryStreamCall[Any, Any]) -> None:
    while (await call.read()) is not grpc.aio.EOF:
        pass


async def live_events(url: str) -> list[dict[str, Any]]:
    """The server-sent events of a web site's live view, to the stream's end."""
    events: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session, session.get(url, timeout=aiohttp.ClientTimeout(60)) as response:
        assert response.status == 200, await response.text()
        async for line in response.content:
            if line.startswith(b"data: "):
                events.append(json.loads(line[6:]))
    return events


@contextlib.asynccontextmanager
async def two_nodes_with_bots(
    redis_url: str, tmp_path: Path, homes: str, think_seconds: float
) -> AsyncIterator[tuple[RunningNode, RunningNode, grpc.aio.Channel, list[RawBot]]]:
    """Nodes B then A on one Redis, a channel to A, and bots x, y, ... each on the node its letter in
    ``homes`` names ("ab": x on A, y on B), welcomed and located; the bots are stopped at the end."""
    client = connect(redis_url)
    bots: list[RawBot] = []
    try:
        async with (
            in_process_node(redis_url, "node-b", tmp_path / "b") as b,
            in_process_node(redis_url, "node-a", tmp_path / "a") as a,
            grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        ):
            names = "xyzw"[: len(homes)]
            tokens = await register(to_a, names)
            for name, home in zip(names, homes, strict=True):
                port = (a if home == "a" else b).port
                bots.append(RawBot(f"127.0.0.1:{port}", tokens[name], think_seconds=think_seconds).start())
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            await located(client, *names)
            yield a, b, to_a, bots
    finally:
        for bot in bots:
            await bot.stop()
        await client.aclose()


@pytest.mark.slow
async def test_a_node_stopping_gracefully_still_hears_its_matches_bots_on_other_nodes(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """During its shutdown grace a node stopped reading its relay inbox and gave its id back at once:
    a match it refereed for a bot on another node never heard that bot again (its answers went
    unread, then the bot's node dropped the seat), and the match ended in fallbacks."""
    async with two_nodes_with_bots(redis7.url, tmp_path, "ab", 0.03) as (a, b, to_a, bots):
        tc = common_pb2.TimeControl()
        tc.decision_allowance.seconds = 2
        tc.time_bank.seconds = 2
        started = await match_pb2_grpc.MatchServiceStub(to_a).StartMatch(
            match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y"], seed=8, time_control=tc),
            metadata=ADMIN_METADATA,
        )
        for _ in range(200):  # y, on node B, is asked through node B
            if bots[1].messages("action_request"):
                break
            await asyncio.sleep(0.02)
        stopping = asyncio.ensure_future(a.stop(60))
        ended = await bots[1].wait_ended(started.match_id, 60)
        assert not stopping.done(), "node A stopped before its match ended"
        await bots[0].stop()  # x leaves: node A's server need not wait out its stream
        await asyncio.wait_for(stopping, 60)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b:
            stub = match_pb2_grpc.MatchServiceStub(to_b)
            record = (await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=started.match_id))).record
    assert_played_cleanly(ended, record)


@pytest.mark.slow
async def test_a_stopping_node_refuses_starts_at_once_and_another_node_names_it(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """A trial found two gaps: StartMatch was still accepted for most of a second after a node began
    to stop (the refusal came only once its web site and worker had stopped), and a start asked of
    a healthy node for bots on a stopping one was refused FAILED_PRECONDITION, "this node is
    shutting down" (the other node's words, and a code that says not to retry)."""
    async with (
        two_nodes_with_bots(redis7.url, tmp_path, "bb", 0.05) as (_, b, to_a, bots),
        grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
    ):
        start = match_pb2.StartMatchRequest(game="5211", bot_names=["x", "y"], seed=8)
        # A match on B keeps B in its shutdown grace (and its bots there) while the starts are asked.
        playing = await match_pb2_grpc.MatchServiceStub(to_b).StartMatch(start, metadata=ADMIN_METADATA)
        stopping = asyncio.ensure_future(b.stop(30))
        await asyncio.sleep(0)  # the stop has begun
        with pytest.raises(grpc.aio.AioRpcError) as on_b:
            await match_pb2_grpc.MatchServiceStub(to_b).StartMatch(start, metadata=ADMIN_METADATA)
        assert on_b.value.code() == grpc.StatusCode.UNAVAILABLE, on_b.value.details()
        with pytest.raises(grpc.aio.AioRpcError) as on_a:
            await match_pb2_grpc.MatchServiceStub(to_a).StartMatch(start, metadata=ADMIN_METADATA)
        assert on_a.value.code() == grpc.StatusCode.UNAVAILABLE, on_a.value.details()
        assert on_a.value.details() == (
            "node 'node-b', where the bots are, is shutting down: start the match again once they have reconnected"
        )
        await bots[0].wait_ended(playing.match_id, 30)
        for bot in bots:
            await bot.stop()
        await asyncio.wait_for(stopping, 30)


async def test_a_node_on_a_port_the_system_chose_tells_the_others_that_port(
    redis7: EmbeddedRedis, tmp_path: Path
) -> None:
    """A node started on port 0 (the system picks a free one) said ``127.0.0.1:0`` in its heartbeat,
    so the other nodes told a client to watch its matches at an address nobody listens on."""
    client = connect(redis7.url)
    try:
        async with in_process_node(redis7.url, "node-p", tmp_path / "p") as node:
            address = await client.hget("arena:node:node-p", "address")
            assert address == f"127.0.0.1:{node.port}".encode(), address
        # Behind a wildcard address, or a NAT, the operator says where clients reach the node.
        async with in_process_node(
            redis7.url, "node-q", tmp_path / "q", advertise_address="arena-1.example:50051"
        ) as node:
            assert await client.hget("arena:node:node-q", "address") == b"arena-1.example:50051"
    finally:
        await client.aclose()


async def test_a_node_takes_the_admin_token_only_from_its_admin_networks(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    networks = AdminNetworks.parse(["10.0.0.0/8"])
    async with (
        in_process_node(redis7.url, "node-n", tmp_path / "n", admin_networks=networks) as node,
        grpc.aio.insecure_channel(f"127.0.0.1:{node.port}") as channel,
    ):
        registry = registry_pb2_grpc.RegistryServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await registry.RegisterBot(registry_pb2.RegisterBotRequest(name="ann"), metadata=ADMIN_METADATA)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert refused.value.details() == (
            "the admin token is accepted only from 10.0.0.0/8; this call came from 127.0.0.1"
        )


@pytest.mark.slow
async def test_guesses_spread_over_nodes_count_together(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """Each node counted wrong admin tokens and refused Hellos on its own: an address that spread its
    guesses over N nodes (or the N workers of one ``arena serve --workers N``, whose connections the
    kernel spreads) had N times the guesses before a lockout. The arena's count is kept in Redis now:
    the node that sees the one past the limit locks the address out, and every other node at its next."""
    limits = Limits(admin_token_failures=4, hello_failures=3)
    async with (
        in_process_node(redis7.url, "node-a", tmp_path / "a", limits=limits) as a,
        in_process_node(redis7.url, "node-b", tmp_path / "b", limits=limits) as b,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
    ):
        token = (await register(to_a, "z"))["z"]
        wrong = (("authorization", "Bearer not-the-admin-token-at-all"),)
        start = match_pb2.StartMatchRequest(game="5211", bot_names=["z", "nobody"])

        async def admin_call(channel: grpc.aio.Channel, metadata: Any) -> grpc.StatusCode:
            try:
                await match_pb2_grpc.MatchServiceStub(channel).StartMatch(start, metadata=metadata)
            except grpc.aio.AioRpcError as error:
                return error.code()
            raise AssertionError("a match between absent bots started")

        for channel in (to_a, to_a, to_b, to_b):
            assert await admin_call(channel, wrong) == grpc.StatusCode.PERMISSION_DENIED
        # The fourth was node B's second: past the arena's limit, node B refuses the right token too.
        await eventually_code(lambda: admin_call(to_b, ADMIN_METADATA), grpc.StatusCode.RESOURCE_EXHAUSTED)
        assert await admin_call(to_a, ADMIN_METADATA) == grpc.StatusCode.INVALID_ARGUMENT  # taken: no bot "nobody"
        assert await admin_call(to_a, wrong) == grpc.StatusCode.PERMISSION_DENIED  # node A's next
        await eventually_code(lambda: admin_call(to_a, ADMIN_METADATA), grpc.StatusCode.RESOURCE_EXHAUSTED)

        async def hello(channel: grpc.aio.Channel, said: str) -> grpc.StatusCode:
            first = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token=said, games=["5211"]))
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(iter([first]), timeout=10)
            try:
                await call.read()
            except grpc.aio.AioRpcError as error:
                return error.code()
            call.cancel()
            return grpc.StatusCode.OK

        for channel in (to_a, to_a, to_b):
            assert await hello(channel, "arena_not-a-token") == grpc.StatusCode.UNAUTHENTICATED
        assert await hello(to_b, token) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await hello(to_a, token) == grpc.StatusCode.OK  # until node A sees one more
        # Both nodes' counts of admin tokens and of Hellos stayed apart.
        assert b.node.hello_lockout.locked_for("ipv4:127.0.0.1", b.node.clock.now()) > 0


async def eventually_code(call: Callable[[], Awaitable[grpc.StatusCode]], code: grpc.StatusCode) -> None:
    """Wait (a few seconds at most) until ``call`` answers ``code``: a node takes the arena's count
    of wrong admin tokens just after it answered the one that crossed the limit."""
    for _ in range(100):
        if (answered := await call()) == code:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"still {answered}, not {code}")


@pytest.mark.parametrize(
    ("listening", "given", "told"),
    [
        ("127.0.0.1:50051", None, "127.0.0.1:50051"),
        ("127.0.0.1:0", None, "127.0.0.1:41000"),
        ("0.0.0.0:50051", None, f"{socket.gethostname()}:50051"),
        ("[::]:0", None, f"{socket.gethostname()}:41000"),
        (":50051", None, f"{socket.gethostname()}:50051"),
        ("0.0.0.0:50051", "10.1.2.3:50051", "10.1.2.3:50051"),
    ],
)
def test_a_node_tells_the_others_where_clients_reach_it(listening: str, given: str | None, told: str) -> None:
    """A node on ``0.0.0.0:50051`` told the others to send clients to ``0.0.0.0:50051``."""
    assert advertised_address(listening, 41000, given) == told
