"""The ladder store against a real redis-server: match numbers stay contiguous whatever is refused."""

from __future__ import annotations

from typing import Any

from arena.store.embedded import EmbeddedRedis
from arena.store.ladders import LadderStore
from arena.store.redis_stores import connect


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
