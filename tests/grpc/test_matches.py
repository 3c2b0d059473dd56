"""Full matches over gRPC between bots written from the proto alone."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from arena.games import get_game
from arena.store.chain import ScriptCall
from arena.store.nodes import NodeDirectory
from arena.store.redis_stores import key
from arena.store.running import RunningIndex
from arena.v1 import common_pb2, match_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena, eventually


@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_full_match_between_proto_only_bots(arena: Arena, players: int) -> None:
    names = [f"bot{i}" for i in range(players)]
    bots = [await arena.connect(name) for name in names]
    match_id = await arena.start_match(names, seed=players)
    ends = [await bot.wait_ended(match_id) for bot in bots]
    outcome = ends[0].outcome
    assert outcome.termination == common_pb2.TERMINATION_NORMAL
    assert all(end.outcome == outcome for end in ends)
    assert [end.seat for end in ends] == list(range(players))
    assert sorted(outcome.placings)[0] == 1
    record = await arena.record(match_id)
    assert list(record.bot_names) == names
    assert not record.rejections
    replayed = get_game("5211").outcome(list(wire_record.iter_states(record))[-1])
    assert replayed is not None
    assert list(replayed.scores) == list(outcome.scores)
    assert list(replayed.placings) == list(outcome.placings)
    for seat, bot in enumerate(bots):
        requests = [r for r in bot.messages("action_request") if r.match_id == match_id]
        assert len(requests) == {2: 33, 3: 21, 4: 18, 5: 12}[players]
        assert all(r.seat == seat for r in requests)
        assert [r.sequence for r in requests] == sorted(r.sequence for r in requests)


async def test_a_match_of_every_game_is_played_turn_by_turn_between_proto_only_bots(game_arena: Arena) -> None:
    arena = game_arena
    names = [f"bot{i}" for i in range(arena.players)]
    bots = [await arena.connect(name) for name in names]
    assert all(list(bot.messages("welcome")[0].games) == [arena.game] for bot in bots)
    match_id = await arena.start_match(names, seed=5)
    ends = [await bot.wait_ended(match_id) for bot in bots]
    outcome = ends[0].outcome
    assert outcome.termination == common_pb2.TERMINATION_NORMAL
    assert all(end.outcome == outcome for end in ends)
    assert [end.seat for end in ends] == list(range(len(names)))
    record = await arena.record(match_id)
    assert (record.game, list(record.bot_names), record.outcome) == (arena.game, names, outcome)
    assert not record.rejections
    for seat, bot in enumerate(bots):
        [started] = bot.messages("match_started")
        assert (started.match_id, started.game, started.seat, list(started.bot_names)) == (
            match_id,
            arena.game,
            seat,
            names,
        )
        requests = [r for r in bot.messages("action_request") if r.match_id == match_id]
        assert requests and all(r.seat == seat and r.legal_actions for r in requests)
        assert [r.sequence for r in requests] == list(range(1, len(requests) + 1))


async def test_many_concurrent_matches_on_one_connection_each(arena: Arena) -> None:
    names = ["a", "b", "c"]
    bots = [await arena.connect(name, capacity=40) for name in names]
    ids = [await arena.start_match(names, seed=i) for i in range(30)]
    for match_id in ids:
        for bot in bots:
            end = await bot.wait_ended(match_id)
            assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    listed = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=100))
    assert {m.match_id for m in listed.matches} >= set(ids)


@pytest.mark.parametrize("shared", [False, True], ids=["node-list", "redis-list"])
async def test_a_match_that_ends_is_listed_until_its_record_is_stored(
    arena: Arena, arena_client: aioredis.Redis, shared: bool
) -> None:
    """It was unlisted from the running matches before its record was stored, so a list made in
    between (after the bots were told the result) had it nowhere. ``shared``: listed in Redis for
    every node (``RunningIndex``, as ``arena serve`` has it), else from the node's own matches."""
    manager = arena.node.matches
    if shared:  # a node with a heartbeat: a list skips a dead node's matches
        assert await NodeDirectory(arena_client, "node-1", arena.address).beat({})
        manager.listing = RunningIndex(arena_client, "node-1")
    store, listed_while_saving = manager.store, []
    real_together = store.together

    async def together(calls: Sequence[ScriptCall]) -> tuple[int, Any]:  # the real store, observed as it stores
        if any(k.startswith(f"{key('record')}:") for call in calls for k in call.keys):
            listed = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=100))
            listed_while_saving.append(match_id in {m.match_id for m in listed.matches})
        return await real_together(calls)

    store.together = together  # type: ignore[method-assign]
    names = ["a", "b"]
    for name in names:
        await arena.connect(name)
    match_id = await arena.start_match(names, seed=3)
    await arena.bots[0].wait_ended(match_id)
    await eventually(lambda: listed_while_saving)
    assert listed_while_saving == [True]


async def test_a_running_match_record_is_not_released(arena: Arena) -> None:
    names = ["slow", "fast"]
    await arena.connect("slow", chooser=lambda request: None)
    await arena.connect("fast")
    match_id = await arena.start_match(names)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await arena.record(match_id)
    assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await arena.record("no-such-match")
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    await asyncio.sleep(0)
