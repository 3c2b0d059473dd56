"""ListMatches pages through an index: filters before paging, an opaque cursor, no whole-store work."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from arena.games.base import Outcome, Termination
from arena.grpc.server import start_server
from arena.referee.record import MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.store.embedded import EmbeddedRedis
from arena.v1 import match_pb2
from tests.grpc.harness import Arena, redis_node

BOTS = ("ann", "bob", "cat", "dan")


def record(i: int) -> MatchRecord:
    """A finished match; three in a row share an end time (ties the cursor must handle)."""
    players = (BOTS[i % 4], BOTS[(i + 1 + i // 4 % 3) % 4])
    outcome = Outcome(Termination.NORMAL, (10, 5), (1, 2))
    return MatchRecord(
        f"m{i:05d}",
        "5211",
        players,
        i,
        {},
        None,
        TimeControl(),
        outcome=outcome,
        started_at=900.0 + i // 3,
        ended_at=1000.0 + i // 3,
    )


@contextlib.asynccontextmanager
async def arena_with(redis: EmbeddedRedis) -> AsyncIterator[Arena]:
    """A served node on ``redis`` (emptied first)."""
    async with contextlib.AsyncExitStack() as stack:
        node = await stack.enter_async_context(redis_node(redis))
        server = await start_server(node, "127.0.0.1:0")
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        try:
            yield Arena(node, server, channel)
        finally:
            await channel.close()
            await server.stop(0.5)


async def list_all(arena: Arena, page_size: int, **filters: Any) -> list[match_pb2.MatchSummary]:
    found: list[match_pb2.MatchSummary] = []
    token = ""
    for _ in range(1000):
        request = match_pb2.ListMatchesRequest(page_size=page_size, page_token=token, **filters)
        response = await arena.matches.ListMatches(request)
        assert len(response.matches) <= page_size
        found += response.matches
        token = response.next_page_token
        if not token:
            return found
    raise AssertionError("the list did not end")


def expected(records: list[MatchRecord], bot: str = "") -> list[str]:
    kept = [r for r in records if not bot or bot in r.bot_names]
    return [r.match_id for r in sorted(kept, key=lambda r: (r.ended_at, r.match_id), reverse=True)]


async def test_listing_pages_an_index_filtered_before_paging_and_never_parses_a_record(
    arena_redis: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [record(i) for i in range(1000)]
    async with arena_with(arena_redis) as arena:
        for r in records:
            await arena.node.matches.store.save(r)
        parsed: list[str] = []
        original = MatchRecord.from_dict.__func__  # type: ignore[attr-defined]

        def counting(cls: type[MatchRecord], data: dict[str, Any]) -> MatchRecord:
            parsed.append(data["match_id"])
            return original(cls, data)  # type: ignore[no-any-return]

        monkeypatch.setattr(MatchRecord, "from_dict", classmethod(counting))
        everything = await list_all(arena, 37)
        assert [s.match_id for s in everything] == expected(records)
        assert all(s.state == match_pb2.MATCH_STATE_FINISHED and s.bot_names for s in everything)
        for bot in BOTS:
            listed = await list_all(arena, 50, bot_name=bot)
            assert [s.match_id for s in listed] == expected(records, bot)
        assert [s.match_id for s in await list_all(arena, 500, game="5211", bot_name="cat")] == expected(records, "cat")
        assert await list_all(arena, 10, game="nope") == []
        assert await list_all(arena, 10, state=match_pb2.MATCH_STATE_RUNNING) == []
        assert parsed == []  # summaries only, never a whole record


async def test_a_page_size_is_capped_and_running_matches_come_first(arena: Arena) -> None:
    for i in range(600):
        await arena.node.matches.store.save(record(i))
    response = await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=10_000))
    assert len(response.matches) == 500 and response.next_page_token
    await arena.connect("slow", chooser=lambda request: None)
    await arena.connect("fast")
    running = await arena.start_match(["slow", "fast"], tc=TimeControl(decision_allowance=30, time_bank=30))
    first = (await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_size=1))).matches
    assert [(s.match_id, s.state) for s in first] == [(running, match_pb2.MATCH_STATE_RUNNING)]
    only = await list_all(arena, 5, state=match_pb2.MATCH_STATE_RUNNING, bot_name="fast")
    assert [s.match_id for s in only] == [running]
    finished = await list_all(arena, 100, state=match_pb2.MATCH_STATE_FINISHED)
    assert running not in {s.match_id for s in finished} and len(finished) == 600


@pytest.mark.parametrize(
    "token",
    [
        "²",
        "garbage!!",
        "42",
        base64.urlsafe_b64encode(b"x:1.0:m00001").decode(),
        base64.urlsafe_b64encode(b"f:nan:m00001").decode(),
        base64.urlsafe_b64encode(b"f:1.0:no spaces").decode(),
    ],
)
async def test_a_malformed_page_token_is_invalid_argument_naming_it(arena: Arena, token: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await arena.matches.ListMatches(match_pb2.ListMatchesRequest(page_token=token))
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"invalid page token {token[:40]!r}" in (raised.value.details() or "")
