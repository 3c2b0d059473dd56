"""A match's whole life through MatchService: queued (PENDING), running, finished; listed by league;
watched from its summary; started when a busy bot frees a slot."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from arena.league import schedule
from arena.league.schedule import LeagueSpec
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect, key
from arena.v1 import common_pb2, match_pb2
from tests.grpc.harness import ADMIN_METADATA, Arena
from tests.grpc.rawbot import RawBot, random_chooser
from tests.queue.harness import wait_done
from tests.test_cross_node import in_process_node, register, start_5211

TC = TimeControl(decision_allowance=5.0, time_bank=5.0)
SLOW = TimeControl(decision_allowance=30.0, time_bank=30.0)


async def list_all(arena: Arena, page_size: int, **filters: Any) -> list[match_pb2.MatchSummary]:
    found: list[match_pb2.MatchSummary] = []
    token = ""
    for _ in range(200):
        request = match_pb2.ListMatchesRequest(page_size=page_size, page_token=token, **filters)
        response = await arena.matches.ListMatches(request)
        assert len(response.matches) <= page_size
        found += response.matches
        token = response.next_page_token
        if not token:
            return found
    raise AssertionError("the list did not end")


async def test_queued_league_matches_are_listed_as_pending_filtered_by_league_and_bot(
    arena: Arena, leagues: LeagueService
) -> None:
    for name in ("ann", "bob", "cat"):
        await arena.register(name)  # registered, never connected: the league's matches stay queued
    await leagues.create(LeagueSpec("LQ", "5211", 2, ("ann", "bob", "cat"), games_per_pairing=4, seed=1), TC)
    await leagues.create(LeagueSpec("LZ", "5211", 2, ("ann", "bob"), games_per_pairing=2, seed=1), TC)
    pending = await list_all(arena, 5, state=match_pb2.MATCH_STATE_PENDING)
    assert len(pending) == 12 + 2
    assert all(s.state == match_pb2.MATCH_STATE_PENDING for s in pending)
    assert all(s.created_at.seconds > 0 and s.game == "5211" for s in pending)
    of_lq = await list_all(arena, 3, state=match_pb2.MATCH_STATE_PENDING, league_id="LQ")
    assert len(of_lq) == 12 and {s.league_id for s in of_lq} == {"LQ"}
    assert len({s.match_id for s in of_lq}) == 12
    with_cat = await list_all(arena, 2, league_id="LQ", bot_name="cat")
    assert len(with_cat) == 8 and all("cat" in s.bot_names for s in with_cat)
    assert len(await list_all(arena, 4, bot_name="cat")) == 8  # any state: the queued ones too
    assert await list_all(arena, 4, league_id="LQ", game="coloretto") == []
    assert await list_all(arena, 4, league_id="nope") == []
    assert await list_all(arena, 4, state=match_pb2.MATCH_STATE_RUNNING) == []


async def test_a_finished_league_is_listed_by_league_with_its_created_at(arena: Arena, leagues: LeagueService) -> None:
    for name in ("ann", "bob", "cat"):
        await arena.connect(name, capacity=4)
    ad_hoc = await arena.start_match(["ann", "bob"])
    info = await leagues.create(LeagueSpec("LF", "5211", 2, ("ann", "bob", "cat"), games_per_pairing=2, seed=1), TC)
    await wait_done(leagues, "LF", 60)
    finished = await list_all(arena, 2, state=match_pb2.MATCH_STATE_FINISHED, league_id="LF")
    assert len(finished) == 6 and ad_hoc not in {s.match_id for s in finished}
    assert {s.league_id for s in finished} == {"LF"}
    assert all(abs(s.created_at.ToNanoseconds() / 1e9 - info.created_at) < 1.0 for s in finished)
    assert len(await list_all(arena, 3, state=match_pb2.MATCH_STATE_FINISHED, league_id="LF", bot_name="cat")) == 4
    alone = await list_all(arena, 10, state=match_pb2.MATCH_STATE_FINISHED, bot_name="ann")
    mine = next(s for s in alone if s.match_id == ad_hoc)
    assert mine.league_id == "" and mine.created_at.seconds > 0


async def test_a_pending_filter_lists_neither_running_nor_finished_matches(arena: Arena) -> None:
    await arena.connect("slow", chooser=lambda request: None)
    await arena.connect("fast")
    await arena.start_match(["slow", "fast"], tc=SLOW)
    assert await list_all(arena, 5, state=match_pb2.MATCH_STATE_PENDING) == []


async def test_watching_begins_with_the_summary_live_and_after_the_end(arena: Arena) -> None:
    await arena.connect("slow", chooser=lambda request: None)
    await arena.connect("fast")
    running = await arena.start_match(["slow", "fast"], tc=SLOW)
    stream = arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=running))
    first = await asyncio.wait_for(stream.read(), 5)
    assert isinstance(first, match_pb2.WatchMatchResponse)  # not grpc.aio.EOF
    assert first.WhichOneof("event") == "summary"
    assert first.summary.match_id == running and first.summary.state == match_pb2.MATCH_STATE_RUNNING
    assert list(first.summary.bot_names) == ["slow", "fast"] and first.summary.created_at.seconds > 0
    second = await asyncio.wait_for(stream.read(), 5)
    assert isinstance(second, match_pb2.WatchMatchResponse)  # not grpc.aio.EOF
    assert second.WhichOneof("event") == "view"
    stream.cancel()

    bots = [await arena.connect(name) for name in ("ann", "bob")]
    done = await arena.start_match(["ann", "bob"])
    for bot in bots:
        await bot.wait_ended(done)
    events = [e async for e in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=done))]
    assert [e.WhichOneof("event") for e in events] == ["summary", "view", "outcome"]
    assert events[0].summary.state == match_pb2.MATCH_STATE_FINISHED
    assert events[0].summary.outcome.termination == common_pb2.TERMINATION_NORMAL


async def test_start_match_waits_for_a_busy_bots_free_slot(arena: Arena) -> None:
    one = await arena.connect("one", capacity=1)
    two = await arena.connect("two", capacity=4)
    first = await arena.start_match(["one", "two"], seed=1)
    second = await arena.start_match(["one", "two"], seed=2)  # "one" is busy until the first ends
    for bot in (one, two):
        for match_id in (first, second):
            end = await bot.wait_ended(match_id)
            assert end.outcome.termination == common_pb2.TERMINATION_NORMAL


class SlowToWrite:
    """The node's real record store, each call of several stores' writes taking a while (a loaded Redis)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def together(self, calls: Any) -> Any:
        await asyncio.sleep(0.3)
        return await self.store.together(calls)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_a_bot_told_its_match_ended_has_its_slot_free(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """A bot was told its match had ended before its slot was freed (in the background, after): a
    client starting the next match the moment it heard the end (as a load test does) could find the
    bot busy on a loaded node, and wait for another match to end, or half a second. Its record is
    stored by then too (the same call)."""
    client = connect(redis7.url)
    async with (
        in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as channel,
    ):
        a.node.matches.store = SlowToWrite(a.node.matches.store)
        tokens = await register(channel, "xy")
        x = RawBot(f"127.0.0.1:{a.port}", tokens["x"], random_chooser(1), capacity=1).start()
        y = RawBot(f"127.0.0.1:{a.port}", tokens["y"], random_chooser(2), capacity=1).start()
        try:
            await asyncio.wait_for(asyncio.gather(x.welcomed.wait(), y.welcomed.wait()), 30)
            for seed in range(1, 4):
                started = await start_5211(channel, "xy", seed)
                end = await x.wait_ended(started.match_id)
                assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
                assert await client.zscore(key("slots", "x"), f"{started.match_id}#1") is None
                assert await client.exists(key("record", started.match_id))
        finally:
            for bot in (x, y):
                await bot.stop()
            await client.aclose()


async def test_start_match_gives_up_on_a_slot_before_the_calls_deadline(arena: Arena) -> None:
    await arena.connect("stuck", chooser=lambda request: None, capacity=1)
    await arena.connect("free")
    await arena.start_match(["stuck", "free"], tc=SLOW)
    request = match_pb2.StartMatchRequest(game="5211", bot_names=["stuck", "free"])
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await arena.matches.StartMatch(request, metadata=ADMIN_METADATA, timeout=1.5)
    assert error.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "'stuck' has no free match slot" in (error.value.details() or "")


class SlowToSave:
    """The node's real record store, each save taking a while (a loaded Redis)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    async def save(self, record: Any) -> None:
        await asyncio.sleep(0.3)
        await self.store.save(record)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_a_match_that_just_ended_is_never_not_found(arena: Arena) -> None:
    """Between its end and its record being stored, a match was neither running nor found: a client
    polling GetMatchRecord (as ``arena sprt`` does) got NOT_FOUND for a match that had just been played."""
    arena.node.matches.store = SlowToSave(arena.node.matches.store)
    for name, seed in (("ann", 1), ("bob", 2)):
        await arena.connect(name, random_chooser(seed))
    match_id = await arena.start_match(["ann", "bob"], tc=TC)
    codes: list[grpc.StatusCode] = []
    for _ in range(2000):
        try:
            record = await arena.record(match_id)
            break
        except grpc.aio.AioRpcError as error:
            codes.append(error.code())
        await asyncio.sleep(0.005)
    else:
        raise AssertionError("the record never came")
    assert record.match_id == match_id
    assert set(codes) <= {grpc.StatusCode.FAILED_PRECONDITION}, codes[-3:]


async def test_the_record_is_there_once_the_bots_are_told_the_end(arena: Arena) -> None:
    """A bot told its match ended, asking for the record at once, was told the match was still running
    while the node stored the record (a CI run of the Go kit's tests failed on it): the call now waits
    for the record being stored."""
    arena.node.matches.store = SlowToSave(arena.node.matches.store)
    ann = await arena.connect("ann", random_chooser(1))
    await arena.connect("bob", random_chooser(2))
    match_id = await arena.start_match(["ann", "bob"], tc=TC)
    await ann.wait_ended(match_id)
    record = await arena.record(match_id)
    assert record.match_id == match_id
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL


async def test_a_node_shutting_down_finishes_its_matches_and_starts_no_more(arena: Arena) -> None:
    """A match started during a node's shutdown grace was not among those the shutdown waited for: the
    node stopped under it, and it ended with no result. A node shutting down now refuses to start one
    (UNAVAILABLE: start it on another node) and lets every match it started end."""
    bots = [await arena.connect(name, think_seconds=0.03) for name in ("ann", "bob")]
    match_id = await arena.start_match(["ann", "bob"], tc=TC)
    shutting = asyncio.ensure_future(arena.node.matches.shutdown(60))
    await asyncio.sleep(0)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await arena.start_match(["bob", "ann"], tc=TC)
    assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in (refused.value.details() or "")
    assert not shutting.done()
    await asyncio.wait_for(shutting, 60)
    ended = await bots[0].wait_ended(match_id)
    assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert (await arena.record(match_id)).outcome.termination == common_pb2.TERMINATION_NORMAL


async def test_a_league_match_s_record_is_found_by_its_scheduled_id(arena: Arena, leagues: LeagueService) -> None:
    """A league match is listed PENDING under its scheduled id (``LR.00000``) and played under a run id
    (``LR.00000.<random>``, a fresh one for each re-run): asked for by the id it was listed under,
    GetMatchRecord said NOT_FOUND once it had been played."""
    for name in ("ann", "bob"):
        await arena.connect(name)
    await leagues.create(LeagueSpec("LR", "5211", 2, ("ann", "bob"), games_per_pairing=2, seed=1), TC)
    await wait_done(leagues, "LR", 60)
    played = {s.match_id for s in await list_all(arena, 5, state=match_pb2.MATCH_STATE_FINISHED, league_id="LR")}
    for index in range(2):
        scheduled = schedule.match_id("LR", index)
        record = await arena.record(scheduled)
        assert record.match_id.startswith(f"{scheduled}.") and record.match_id in played
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    for unknown in (schedule.match_id("LR", 7), "LR.00000.abcdef", "nobody.00000"):
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await arena.record(unknown)
        assert missing.value.code() is grpc.StatusCode.NOT_FOUND


async def test_a_scheduled_id_whose_run_has_no_record_is_not_found_by_the_id_sent(
    arena_client: aioredis.Redis, arena: Arena, leagues: LeagueService
) -> None:
    """A trial asked for a league match by its scheduled id once its run's record was gone: the
    NOT_FOUND named the run id the server had resolved it to, not the id the client sent."""
    for name in ("ann", "bob"):
        await arena.connect(name)
    await leagues.create(LeagueSpec("LG", "5211", 2, ("ann", "bob"), games_per_pairing=1, seed=1), TC)
    await wait_done(leagues, "LG", 60)
    scheduled = schedule.match_id("LG", 0)
    run = (await arena.record(scheduled)).match_id
    await arena_client.delete(key("record", run))  # lost, as a crash of the store's host may lose it
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await arena.record(scheduled)
    assert missing.value.code() is grpc.StatusCode.NOT_FOUND
    assert missing.value.details() == f"no match {scheduled!r}: the record of its run {run!r} is not stored"
    watch = arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=scheduled))
    with pytest.raises(grpc.aio.AioRpcError) as unwatchable:
        await watch.read()
    assert unwatchable.value.code() is grpc.StatusCode.NOT_FOUND
    assert unwatchable.value.details() == missing.value.details()
