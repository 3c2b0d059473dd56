"""The ladder store against a real redis-server: match numbers stay contiguous whatever is refused."""

from __future__ import annotations

from typing import Any

from arena.league.schedule import MatchSpec
from arena.referee.clock import MonotonicClock
from arena.service.leagues import LeagueService
from arena.service.listing import ListPosition, MatchLister
from arena.service.matches import MatchManager
from arena.service.sessions import SessionHub
from arena.store.embedded import EmbeddedRedis
from arena.store.ladders import LadderStore
from arena.store.leagues import LeagueStore
from arena.store.match_index import MatchQuery, Phase
from arena.store.match_queue import MatchQueue
from arena.store.redis_stores import RedisRecordStore, connect


def _matches(ladder_id: str, first: int, count: int) -> list[dict[str, Any]]:
    return [{"match_id": f"{ladder_id}.{i:06d}", "index": i, "bots": ["a", "b"]} for i in range(first, first + count)]


async def test_a_refused_schedule_leaves_no_gap_in_the_match_numbers(redis_server: EmbeddedRedis) -> None:
    client = connect(redis_server.url)
    store = LadderStore(client)
    try:
        assert await store.create("lad", {"kind": "ladder", "created_at": 1.0}, b"secret") == "lad"
        assert await store.hold_matchmaking("node-1", 30)
        first = await store.next_index("lad")
        assert await store.schedule("node-1", "lad", _matches("lad", first, 2), []) == 2
        # Paused between numbering and scheduling (or the node died there): nothing is added...
        then = await store.next_index("lad")
        assert then == first + 2
        await store.set_paused("lad", True)
        assert await store.schedule("node-1", "lad", _matches("lad", then, 2), []) == 0
        await store.set_paused("lad", False)
        # ...and the next matches take the numbers the refused ones would have had.
        assert await store.next_index("lad") == then
        # Numbers read before another schedule landed are stale: refused, not added twice.
        assert await store.schedule("node-1", "lad", _matches("lad", then, 2), []) == 2
        assert await store.schedule("node-1", "lad", _matches("lad", then, 2), []) == 0
        assert await store.next_index("lad") == then + 2
    finally:
        await client.aclose()


async def test_a_ladders_queued_matches_are_listed_as_pending_and_paged(redis_server: EmbeddedRedis) -> None:
    """ListMatches' PENDING phase covers ladders as well as leagues: filtered by the ladder, in
    schedule order, through page tokens (it used to list none: their ids are not a league's)."""
    client = connect(redis_server.url)
    store = LadderStore(client)
    clock = MonotonicClock()
    lister = MatchLister(
        MatchManager(SessionHub(clock), clock, RedisRecordStore(client)),
        LeagueService(LeagueStore(client), MatchQueue(client), clock),
    )
    ladder = "LD0123abcd"
    spec = {"kind": "ladder", "game": "5211", "players": 2, "created_at": 5.0, "time_control": {}}
    try:
        assert await store.create(ladder, spec, b"secret") == ladder
        assert await store.hold_matchmaking("node-1", 30)
        specs = [
            MatchSpec(f"{ladder}.{i:06d}", ladder, i, "5211", ("a", "b"), i, f"{ladder}-d{i}").to_dict()
            for i in range(3)
        ]
        assert await store.schedule("node-1", ladder, specs, []) == 3
        seen: list[str] = []
        after = None
        for _ in range(5):
            page, after = await lister.page(MatchQuery(ladder=ladder, phase=Phase.PENDING), after, 2)
            seen += [info.match_id for info in page]
            assert all(info.phase is Phase.PENDING and info.bot_names == ["a", "b"] for info in page)
            assert all(info.ladder_id == ladder and info.created_at == 5.0 for info in page)
            if after is None:
                break
            after = ListPosition.parse(after.token())
        assert seen == [f"{ladder}.{i:06d}" for i in range(3)]
        everything, _ = await lister.page(MatchQuery(phase=Phase.PENDING), None, 10)
        assert [info.match_id for info in everything] == seen
    finally:
        await client.aclose()
