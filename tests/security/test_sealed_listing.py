"""A sealed match (a rotation of a duplicate deal) is listed and shown to no one until its deal is over.

An attacker's trial of the real product found the finished rotations of a deal held back, and a
sealed match's page saying it "is not shown", but ListMatches and the site's match lists still
listing a *running* sealed rotation (its bots, options and start time), on its own node and on
every other (the running index in Redis), and GetMatchRecord naming the node that referees it.
Running or held, a sealed match is now the same to every client, the admin included: in no list,
in no state, and asked for by its id, FAILED_PRECONDITION (the site: 404) naming no node. Its bots
learn that it runs from their own stream (``MatchStarted``), never from a list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import grpc
import pytest

from arena.store.embedded import EmbeddedRedis
from arena.store.match_index import MatchQuery
from arena.store.running import RunningIndex
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc
from arena.web.site import start_web
from tests.grpc.harness import ADMIN_METADATA, Arena, eventually
from tests.grpc.rawbot import RawBot
from tests.grpc.test_list_matches import record
from tests.test_cross_node import in_process_node, register

FILTERS = (
    match_pb2.ListMatchesRequest(),
    match_pb2.ListMatchesRequest(state=match_pb2.MATCH_STATE_RUNNING),
    match_pb2.ListMatchesRequest(bot_name="x"),
    match_pb2.ListMatchesRequest(game="5211", bot_name="y", state=match_pb2.MATCH_STATE_RUNNING),
)
SITE_LISTS = ("", "matches", "matches?state=running", "bots/x", "api/overview", "api/bots/x")
SITE_QUERIES = ("", "state=running", "bot=x", "game=5211&state=running")


async def start(stub: match_pb2_grpc.MatchServiceAsyncStub, bots: list[str], seal: str = "") -> str:
    """Start a match between silent bots that lasts the test (a minute a decision)."""
    tc = common_pb2.TimeControl()
    tc.decision_allowance.seconds = 60
    request = match_pb2.StartMatchRequest(
        game="5211", bot_names=bots, seed=3, time_control=tc, seal=seal, seal_size=2 if seal else 0
    )
    return (await stub.StartMatch(request, metadata=ADMIN_METADATA)).match_id


async def pages(
    stub: match_pb2_grpc.MatchServiceAsyncStub,
    request: match_pb2.ListMatchesRequest,
    metadata: Sequence[tuple[str, str]],
) -> list[list[str]]:
    """Every page of a list, as match ids."""
    found: list[list[str]] = []
    token = ""
    for _ in range(100):
        paged = match_pb2.ListMatchesRequest()
        paged.CopyFrom(request)
        paged.page_token = token
        response = await stub.ListMatches(paged, metadata=metadata)
        found.append([m.match_id for m in response.matches])
        token = response.next_page_token
        if not token:
            return found
    raise AssertionError("the list did not end")


async def assert_listed_nowhere(
    stub: match_pb2_grpc.MatchServiceAsyncStub, sealed: list[str], expected: list[str]
) -> None:
    """No list shows a sealed match, to anyone, and a page of one is full until the last one."""
    for metadata in ((), ADMIN_METADATA):
        for request in FILTERS:
            listed = await stub.ListMatches(request, metadata=metadata)
            leaked = sorted({m.match_id for m in listed.matches} & set(sealed))
            who = "the admin" if metadata else "anyone"
            assert not leaked, f"ListMatches({str(request).strip() or 'no filter'}) shows {who} sealed {leaked}"
        request = match_pb2.ListMatchesRequest(page_size=1)
        one_a_page = await pages(stub, request, metadata)
        assert [ids for ids in one_a_page if ids] == [[i] for i in expected], one_a_page


async def assert_refused_as_sealed(stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str) -> None:
    """Asked for by its id, a sealed match is FAILED_PRECONDITION, as a held one is, naming no node."""
    with pytest.raises(grpc.aio.AioRpcError) as fetched:
        await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id), metadata=ADMIN_METADATA)
    with pytest.raises(grpc.aio.AioRpcError) as watched:
        async for _ in stub.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), metadata=ADMIN_METADATA):
            pass
    for refused in (fetched.value, watched.value):
        details = refused.details() or ""
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION, details
        assert "duplicate deal" in details and "node-" not in details, details


async def assert_site_shows_none(url: str, sealed: list[str], expected_running: list[str]) -> None:
    """No page or API answer of the site lists a sealed match, and its own page is not found."""
    async with aiohttp.ClientSession() as session:
        for path in (*SITE_LISTS, *(f"api/matches?{query}" for query in SITE_QUERIES)):
            async with session.get(f"{url}{path}") as response:
                text = await response.text()
            assert response.status == 200, (path, text)
            leaked = [match_id for match_id in sealed if match_id in text]
            assert not leaked, f"/{path} shows sealed {leaked}"
        async with session.get(f"{url}api/overview") as response:
            assert [m["match_id"] for m in (await response.json())["running"]] == expected_running
        for match_id in sealed:
            for path in ("", "/replay", "/events"):
                async with session.get(f"{url}api/matches/{match_id}{path}") as response:
                    assert response.status == 404, (match_id, path, await response.text())
            async with session.get(f"{url}matches/{match_id}") as response:
                assert response.status == 404, match_id


async def test_a_running_sealed_match_is_listed_nowhere_on_a_node_without_redis_s_running_index(
    arena: Arena,
) -> None:
    """The single-node path: the list of running matches is the node's own (``running_page``)."""
    for i in range(2):
        await arena.node.matches.store.save(record(i))
    for name in ("x", "y"):
        await arena.connect(name, chooser=lambda _request: None)
    first = await start(arena.matches, ["x", "y"], seal="deal")
    plain = await start(arena.matches, ["x", "y"])
    second = await start(arena.matches, ["y", "x"], seal="deal")
    sealed = [first, second]
    await assert_listed_nowhere(arena.matches, sealed, [plain, "m00001", "m00000"])
    assert arena.node.matches.listing is None
    assert [i.match_id for i in arena.node.matches.running_page(MatchQuery(), None, 1)] == [plain]
    for match_id in sealed:
        await assert_refused_as_sealed(arena.matches, match_id)
    web = await start_web(arena.node, "127.0.0.1", 0)
    try:
        await assert_site_shows_none(web.url, sealed, [plain])
    finally:
        await web.stop()


@pytest.mark.slow
async def test_a_running_sealed_match_is_listed_on_no_node_of_an_arena(redis7: EmbeddedRedis, tmp_path: Path) -> None:
    """The Redis path: every node lists every node's running matches from the running index."""
    bots: list[RawBot] = []
    async with (
        in_process_node(redis7.url, "node-b", tmp_path / "b") as b,
        in_process_node(redis7.url, "node-a", tmp_path / "a") as a,
        grpc.aio.insecure_channel(f"127.0.0.1:{a.port}") as to_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{b.port}") as to_b,
    ):
        web = await start_web(b.node, "127.0.0.1", 0)
        try:
            for token in (await register(to_a, "xy")).values():
                bots.append(RawBot(f"127.0.0.1:{a.port}", token, chooser=lambda _request: None).start())
            await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 30)
            on_a, on_b = match_pb2_grpc.MatchServiceStub(to_a), match_pb2_grpc.MatchServiceStub(to_b)
            first = await start(on_a, ["x", "y"], seal="deal")
            plain = await start(on_a, ["x", "y"])
            second = await start(on_a, ["y", "x"], seal="deal")
            sealed = [first, second]
            await eventually(lambda: {first, plain, second} <= set(a.node.matches.running), 10)
            for stub in (on_a, on_b):
                await assert_listed_nowhere(stub, sealed, [plain])
            index = RunningIndex(b.redis, "node-b")  # what node B reads
            assert [i.match_id for i in (await index.page(MatchQuery(), None, 10))[0]] == [plain]
            for stub in (on_a, on_b):
                for match_id in sealed:
                    await assert_refused_as_sealed(stub, match_id)
            await assert_site_shows_none(web.url, sealed, [plain])
        finally:
            await web.stop()
            for bot in bots:
                await bot.stop()
