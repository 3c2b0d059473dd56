"""The in-memory record store of a node without Redis (arena.service.matches.MemoryRecordStore)."""

from __future__ import annotations

from arena.games.base import Outcome, Termination
from arena.referee.record import MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.service.matches import MemoryRecordStore
from arena.store.match_index import MatchQuery


def record(match_id: str, ended_at: float) -> MatchRecord:
    outcome = Outcome(Termination.NORMAL, (1, 0), (1, 2))
    return MatchRecord(match_id, "5211", ("ann", "bob"), 1, {}, None, TimeControl(), outcome=outcome, ended_at=ended_at)


async def test_the_oldest_records_are_forgotten_past_capacity_from_every_index() -> None:
    store = MemoryRecordStore(capacity=3)
    for n in range(5):
        await store.save(record(f"m{n}", float(n)))
    await store.save(record("m4", 4.0))  # saved again: still one entry
    assert [i.match_id for i in await store.page(MatchQuery(bot="ann"), None, 10)] == ["m4", "m3", "m2"]
    assert await store.get("m1") is None and await store.get("m2") is not None


async def test_a_sealed_record_waits_apart_until_its_seal_is_released() -> None:
    store = MemoryRecordStore()
    await store.hold("deal", record("r1", 1.0))
    assert await store.get("r1") is None and await store.page(MatchQuery(), None, 5) == []
    assert await store.held("r1") == record("r1", 1.0)
    await store.release("deal")
    await store.release("deal")
    assert await store.get("r1") == record("r1", 1.0) and await store.held("r1") is None
