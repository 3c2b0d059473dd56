"""Bot tokens and finished match records on a real redis-server (arena.store.redis_stores)."""

from __future__ import annotations

import redis.asyncio as aioredis

from arena.games.base import Outcome, Termination
from arena.referee.record import MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.store.match_index import MatchQuery
from arena.store.redis_stores import RedisRecordStore, RedisTokenStore
from tests.registered import registered


def record(match_id: str, ended_at: float, players: tuple[str, str] = ("ann", "bob")) -> MatchRecord:
    outcome = Outcome(Termination.NORMAL, (2, 1), (1, 2))
    return MatchRecord(match_id, "5211", players, 7, {}, None, TimeControl(), outcome=outcome, ended_at=ended_at)


async def test_a_bot_name_is_taken_once_whatever_its_case_and_its_token_swaps_atomically(
    client: aioredis.Redis,
) -> None:
    tokens = RedisTokenStore(client)
    assert await tokens.add("Ann", "hash-1", frozenset({"5211"}))
    assert not await tokens.add("ann", "hash-2", frozenset())
    assert (await tokens.name_for("hash-1"), await tokens.games_of("Ann")) == ("Ann", frozenset({"5211"}))
    assert await tokens.replace("Ann", "hash-3")
    assert (await tokens.name_for("hash-1"), await tokens.name_for("hash-3")) == (None, "Ann")
    assert await tokens.names_for(["hash-3", "hash-1", "hash-3"]) == ["Ann", None, "Ann"]
    assert await tokens.names_for([]) == []
    assert await tokens.replace("Ann", None)
    assert await tokens.name_for("hash-3") is None
    assert not await tokens.replace("nobody", "hash-4")
    assert await tokens.games_of("nobody") is None
    assert await registered(client) == ["Ann"]


async def test_records_page_newest_ended_first_per_filter_ties_included(client: aioredis.Redis) -> None:
    store = RedisRecordStore(client)
    for n, ended in enumerate((1.0, 2.0, 2.0, 2.0, 3.0)):
        await store.save(record(f"m{n}", ended, ("ann", "cat") if n % 2 else ("ann", "bob")))
    seen: list[str] = []
    after = None
    while page := await store.page(MatchQuery(bot="ann"), after, 2):
        seen += [i.match_id for i in page]
        after = page[-1].position
    assert seen == ["m4", "m3", "m2", "m1", "m0"]
    assert [i.match_id for i in await store.page(MatchQuery(bot="cat"), None, 10)] == ["m3", "m1"]
    assert (await store.get("m3")) == record("m3", 2.0, ("ann", "cat"))


async def test_a_sealed_record_is_unlisted_and_unreadable_until_its_seal_is_released(client: aioredis.Redis) -> None:
    store = RedisRecordStore(client)
    await store.hold("deal", record("r1", 5.0))
    await store.hold("deal", record("r2", 6.0, ("bob", "ann")))
    assert await store.get("r1") is None and await store.page(MatchQuery(), None, 10) == []
    assert await store.held("r1") == record("r1", 5.0)
    await store.release("deal")
    await store.release("deal")  # idempotent
    assert [i.match_id for i in await store.page(MatchQuery(), None, 10)] == ["r2", "r1"]
    assert await store.held("r1") is None and await store.get("r2") == record("r2", 6.0, ("bob", "ann"))
