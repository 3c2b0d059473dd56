"""Ladders end to end: real ``arena serve`` nodes on a real Redis 7, real SDK bots, the real matchmaker.

- bots of graded strength (the heuristic playing at random with probability epsilon) come out in
  their order, and every bot meets the whole field;
- a bot that joins mid-run gets games at once; one that disconnects is no longer scheduled and
  keeps its rating; when it reconnects it plays again;
- a node SIGKILLed mid-ladder loses and doubles nothing: every scheduled match gets one result or
  is dropped (a bot was gone), none is stuck, none counts twice; so does a Redis restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from redis.exceptions import RedisError

from arena.cli.admin import register_bot
from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect, key
from arena.v1 import ladder_pb2, match_pb2, match_pb2_grpc
from tests.grpc.harness import ADMIN, ADMIN_METADATA
from tests.grpc.rawbot import RawBot
from tests.ladder.harness import (
    GradedBot,
    Nodes,
    create_ladder,
    explain_open,
    ladder_call,
    random_bot,
    scheduled,
    standings,
    stored_results,
    until,
)


@pytest.fixture
async def nodes(redis7: EmbeddedRedis, tmp_path: Path) -> AsyncIterator[Nodes]:
    arena = Nodes(redis7, tmp_path)
    try:
        yield arena
    finally:
        await arena.close()


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_a_ladder_recovers_the_order_of_graded_bots(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    address = nodes.start("n1")
    strengths = {"g0": 0.0, "g1": 0.35, "g2": 0.7, "g3": 1.0}  # epsilon: the chance of a random move
    for seed, (name, epsilon) in enumerate(strengths.items()):
        await nodes.connect(name, GradedBot(epsilon, seed, concurrency=3))
    ladder_id = await create_ladder(address)
    client = connect(redis7.url)
    try:
        # By simulation at these strengths the order is right after 240 matches 99.7% of the time; a
        # ladder keeps playing, so one that is not yet right gets as many again to settle.
        for enough in (240, 480):
            await until(lambda: _at_least(client, ladder_id, enough), 120)  # noqa: B023
            board = await standings(address, ladder_id)
            order = [e.bot_name for e in board.entries]
            if order == list(strengths):
                break
        assert order == list(strengths), [(e.bot_name, round(e.rating), e.games) for e in board.entries]
        assert all(not e.provisional and e.connected for e in board.entries)
        met = Counter(frozenset(bots) for _, bots in (await scheduled(client, ladder_id)).values())
        assert all(met[frozenset(pair)] > 0 for pair in itertools.combinations(strengths, 2)), met
        history = await ladder_call(
            address, "GetRatingHistory", ladder_pb2.GetRatingHistoryRequest(ladder_id=ladder_id, bot_name="g0")
        )
        assert isinstance(history, ladder_pb2.GetRatingHistoryResponse)
        games = [p.games for p in history.points]
        assert len(games) >= 3 and games == sorted(games) and games[-1] <= board.entries[0].games
    finally:
        await client.aclose()


async def _at_least(client: object, ladder_id: str, count: int) -> bool:
    return len(await stored_results(client, ladder_id)) >= count


async def test_bots_join_leave_come_back_and_retire(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    address = nodes.start("n1")
    for seed, name in enumerate(("a", "b", "c")):
        await nodes.connect(name, random_bot(2, seed))
    ladder_id = await create_ladder(address)
    client = connect(redis7.url)

    async def played_by(bot: str) -> int:
        return sum(1 for _, bots in (await scheduled(client, ladder_id)).values() if bot in bots)

    async def on_the_board(bot: str) -> bool:
        return bot in {e.bot_name for e in (await standings(address, ladder_id)).entries}

    try:
        await until(lambda: _at_least(client, ladder_id, 20), 30)
        # A bot joining mid-run (a new version of c) gets games at once.
        await nodes.connect("c@v2", random_bot(2, 9))
        await until(lambda: _positive(played_by("c@v2")), 5)
        # and a result, before a leaves: a match of c@v2's with a, under way when a goes, would hold
        # c@v2's seat until a's disconnect grace ends it.
        await until(lambda: on_the_board("c@v2"), 30)
        # A bot that leaves is no longer scheduled, and keeps its rating.
        await nodes.disconnect("a")
        await asyncio.sleep(1.5)  # its directory entry goes; a pass under way may still pick it
        before = await played_by("a")
        done = len(await stored_results(client, ladder_id))
        await until(lambda: _at_least(client, ladder_id, done + 20), 30)
        assert await played_by("a") == before
        board = {e.bot_name: e for e in (await standings(address, ladder_id)).entries}
        assert set(board) == {"a", "b", "c", "c@v2"}
        assert not board["a"].connected and board["a"].games > 0 and board["b"].connected
        assert (board["c@v2"].base_name, board["c@v2"].version) == ("c", "v2")
        assert (board["c"].base_name, board["c"].version) == ("c", "")
        # Back: it plays again.
        await nodes.connect("a", random_bot(2, 10))
        await until(lambda: _more(played_by("a"), before), 5)
        # Retired: c's first version is no longer scheduled; its line stays, marked.
        await ladder_call(address, "RetireBot", ladder_pb2.RetireBotRequest(bot_name="c"))
        await asyncio.sleep(1.0)
        retired_at = await played_by("c")
        done = len(await stored_results(client, ladder_id))
        await until(lambda: _at_least(client, ladder_id, done + 20), 30)
        assert await played_by("c") == retired_at
        board = {e.bot_name: e for e in (await standings(address, ladder_id)).entries}
        assert board["c"].retired and board["c"].games > 0 and not board["c@v2"].retired
        # Its matches are listed by ladder.
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            listed = await stub.ListMatches(match_pb2.ListMatchesRequest(ladder_id=ladder_id, page_size=500))
            assert listed.matches and {m.ladder_id for m in listed.matches} == {ladder_id}
            # Queued ones are listed under their scheduled ids, played ones under their runs' (scheduled.run).
            scheduled_ids = {
                m.match_id if m.state == match_pb2.MATCH_STATE_PENDING else m.match_id.rsplit(".", 1)[0]
                for m in listed.matches
            }
            assert scheduled_ids <= set(await scheduled(client, ladder_id))
            others = await stub.ListMatches(match_pb2.ListMatchesRequest(ladder_id="LD00000000"))
            assert not others.matches
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.ListMatches(match_pb2.ListMatchesRequest(ladder_id=ladder_id, game="5211"))
            assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        # Paused: nothing new is scheduled.
        await ladder_call(address, "PauseLadder", ladder_pb2.PauseLadderRequest(ladder_id=ladder_id))
        await until(lambda: _open_is(client, ladder_id, 0), 20)
        count = len(await scheduled(client, ladder_id))
        await asyncio.sleep(1.5)
        assert len(await scheduled(client, ladder_id)) == count
    finally:
        await client.aclose()


async def _positive(value: object) -> bool:
    return int(await value) > 0  # type: ignore[misc]


async def _more(value: object, than: int) -> bool:
    return int(await value) > than  # type: ignore[misc]


async def _open_is(client: object, ladder_id: str, count: int) -> bool:
    return int(await client.scard(key("league", f"{ladder_id}:open"))) == count  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.timeout(240)
async def test_a_node_killed_mid_ladder_loses_and_doubles_nothing(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    first, second = nodes.start("k1"), nodes.start("k2")
    for seed, name in enumerate(("k-a", "k-b", "k-c", "k-d")):
        # Half the bots on each node; each falls back to the other node when its own dies.
        home = [first, second] if seed % 2 == 0 else [second, first]
        await nodes.connect(name, random_bot(3, seed), home)
    # A seat whose bot was on the dead node forfeits within seconds (its bot reconnects elsewhere).
    ladder_id = await create_ladder(first, duplicate=True, quick=True)
    client = connect(redis7.url)
    try:
        await until(lambda: _at_least(client, ladder_id, 30), 30)
        nodes.kill("k1")  # mid-ladder: matches running and queued there, maybe the matchmaker lease
        done = len(await stored_results(client, ladder_id))
        try:
            await until(lambda: _at_least(client, ladder_id, done + 40), 45)
        except AssertionError:
            now = len(await stored_results(client, ladder_id))
            log = nodes.log("k2").read_text()[-3000:]
            raise AssertionError(
                f"{now - done} results since the kill; open:\n{await explain_open(client, ladder_id)}\n{log}"
            ) from None
        await ladder_call(second, "PauseLadder", ladder_pb2.PauseLadderRequest(ladder_id=ladder_id))
        try:
            await until(lambda: _open_is(client, ladder_id, 0), 60)
        except AssertionError:
            raise AssertionError(f"matches stuck open:\n{await explain_open(client, ladder_id)}") from None
        results = await stored_results(client, ladder_id)
        matches = await scheduled(client, ladder_id)
        assert len(results) == len(set(results)), "a match counted twice"
        assert set(results) <= set(matches)
        assert await client.scard(key("league", f"{ladder_id}:running")) == 0
        board = await standings(second, ladder_id)
        # Only whole duplicate deals count: every counted match is one of 2 rotations of its deal.
        assert sum(e.games for e in board.entries) % 2 == 0
        assert sum(e.games for e in board.entries) <= 2 * len(results)
        indices = sorted(index for index, _ in matches.values())
        assert indices == list(range(indices[0], indices[0] + len(indices))), "a scheduled match went missing"
    finally:
        await client.aclose()


@pytest.mark.slow
async def test_a_ladder_rides_out_a_redis_restart(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    address = nodes.start("r1")
    for seed, name in enumerate(("r-a", "r-b", "r-c")):
        await nodes.connect(name, random_bot(2, seed))
    ladder_id = await create_ladder(address)
    client = connect(redis7.url)
    try:
        await until(lambda: _at_least(client, ladder_id, 20), 30)
        assert redis7.process is not None
        redis7.process.kill()  # its watchdog starts it again on the same files
        await asyncio.sleep(1.0)
        done = 0
        for _ in range(100):  # this test's own connection breaks too
            with contextlib.suppress(RedisError):
                done = len(await stored_results(client, ladder_id))
                break
            await asyncio.sleep(0.1)
        await until(lambda: _at_least(client, ladder_id, done + 30), 40)
        await ladder_call(address, "PauseLadder", ladder_pb2.PauseLadderRequest(ladder_id=ladder_id))
        await until(lambda: _open_is(client, ladder_id, 0), 30)
        results = await stored_results(client, ladder_id)
        assert len(results) == len(set(results)), "a match counted twice"
        board = await standings(address, ladder_id)
        assert sum(e.games for e in board.entries) == 2 * len(results)
    finally:
        await client.aclose()


async def test_slots_held_by_other_matches_are_not_booked_twice(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    address = nodes.start("s1")
    slow = RawBot(address, await asyncio.to_thread(register_bot, address, "slow", ADMIN), lambda _: None, capacity=1)
    slow.start()
    try:
        await asyncio.wait_for(slow.welcomed.wait(), 10)
        for seed, name in enumerate(("x", "y", "z")):
            await nodes.connect(name, random_bot(1, seed))
        await asyncio.sleep(1.0)  # connected everywhere
        request = match_pb2.StartMatchRequest(game="5211", bot_names=["slow", "x"], seed=1)
        request.time_control.decision_allowance.FromSeconds(10)
        async with grpc.aio.insecure_channel(address) as channel:
            await match_pb2_grpc.MatchServiceStub(channel).StartMatch(request, metadata=ADMIN_METADATA)
        ladder_id = await create_ladder(address)
        client = connect(redis7.url)
        try:
            await until(lambda: _at_least(client, ladder_id, 6), 8)  # y and z play on meanwhile
            # x's one slot is held by the hand-started match: the ladder books none of x's (nor slow's).
            assert all({"x", "slow"}.isdisjoint(bots) for _, bots in (await scheduled(client, ladder_id)).values())
        finally:
            await client.aclose()
    finally:
        await slow.stop()


@pytest.mark.slow
async def test_a_bot_whose_referee_node_died_plays_again_soon(nodes: Nodes, redis7: EmbeddedRedis) -> None:
    """The node-kill trial's stall: a dead node's matches kept their seats in the bots' sessions on the
    other node for two minutes, so those bots could play nothing there meanwhile."""
    first, second = nodes.start("d1"), nodes.start("d2")
    silent = RawBot(second, await asyncio.to_thread(register_bot, second, "p", ADMIN), lambda _: None, capacity=1)
    local = RawBot(first, await asyncio.to_thread(register_bot, first, "q", ADMIN), capacity=4)
    other = RawBot(second, await asyncio.to_thread(register_bot, second, "r", ADMIN), capacity=4)
    for bot in (silent.start(), local.start(), other.start()):
        await asyncio.wait_for(bot.welcomed.wait(), 10)
    await asyncio.sleep(1.0)  # each listed as connected to its node
    request = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "q"], seed=1)
    request.time_control.decision_allowance.FromSeconds(60)
    try:
        async with grpc.aio.insecure_channel(first) as channel:  # refereed on the first node, where q is
            await match_pb2_grpc.MatchServiceStub(channel).StartMatch(request, metadata=ADMIN_METADATA)
        await asyncio.sleep(1.0)
        nodes.kill("d1")
        started = None
        again = match_pb2.StartMatchRequest(game="5211", bot_names=["p", "r"], seed=2)
        async with grpc.aio.insecure_channel(second) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            refusals: Counter[grpc.StatusCode] = Counter()
            for _ in range(60):  # its slot hold lapses in 15 s; the dead match's seat must go too
                try:
                    started = await stub.StartMatch(again, metadata=ADMIN_METADATA, timeout=10)
                    break
                except grpc.aio.AioRpcError as error:
                    refusals[error.code()] += 1
                    await asyncio.sleep(0.5)
            assert set(refusals) <= {grpc.StatusCode.FAILED_PRECONDITION}, refusals
        assert started is not None, "p could not play on the live node 30 s after the other died"
    finally:
        await silent.stop()
        await other.stop()
        await local.stop()
