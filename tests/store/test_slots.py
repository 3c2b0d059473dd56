"""Match slots across nodes (arena.store.slots) on a real redis-server."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import cast

import redis.asyncio as aioredis

from arena.store.chain import ScriptChain
from arena.store.slots import GENERATION_KEY, SlotBroker, Slots, verdict


async def take(
    broker: SlotBroker, match_id: str, wanted: Mapping[str, int], known: Mapping[str, int] | None = None
) -> tuple[Slots, str]:
    """Claim a match's slots as its node does as it starts it (``SlotBroker.claim``, in the start's one call)."""
    return verdict(await ScriptChain(broker.r).one(broker.claim(match_id, wanted, known)), wanted)


async def test_slots_are_taken_for_all_of_a_matchs_bots_or_for_none(client: aioredis.Redis) -> None:
    broker = SlotBroker(client)
    await client.set("arena:botcap:far", 1)  # a bot connected to another node, which published its capacity
    assert await take(broker, "m1", {"near": 2, "far": 1}, known={"near": 2}) == (Slots.TAKEN, "")
    # "near" has a free slot no more, so m2 takes none: not even "other"'s.
    assert await take(broker, "m2", {"near": 1, "other": 1}, known={"near": 2, "other": 3}) == (Slots.BUSY, "near")
    assert await client.zcard("arena:slots:other") == 0
    assert await take(broker, "m3", {"nowhere": 1}) == (Slots.ABSENT, "nowhere")


async def test_an_ended_match_frees_its_slots_and_wakes_the_waiting_workers(client: aioredis.Redis) -> None:
    broker = SlotBroker(client)
    assert (await take(broker, "m1", {"ann": 1}, known={"ann": 1}))[0] is Slots.TAKEN
    await broker.release("m1", ["ann"])
    assert int(cast(bytes, await client.get(GENERATION_KEY))) == 1
    assert (await take(broker, "m2", {"ann": 1}, known={"ann": 1}))[0] is Slots.TAKEN


async def test_a_hold_its_node_stops_refreshing_lapses_and_a_refreshed_one_does_not(client: aioredis.Redis) -> None:
    broker = SlotBroker(client, hold_seconds=0.3)
    assert (await take(broker, "kept", {"ann": 1}, known={"ann": 2}))[0] is Slots.TAKEN
    assert (await take(broker, "dropped", {"ann": 1}, known={"ann": 2}))[0] is Slots.TAKEN
    for _ in range(3):
        await asyncio.sleep(0.15)
        await broker.refresh({"kept": ["ann"]})
    # "dropped"'s node died (no refresh): its slot is free again, "kept"'s is not.
    assert (await take(broker, "new", {"ann": 1}, known={"ann": 2}))[0] is Slots.TAKEN
    assert (await take(broker, "more", {"ann": 1}, known={"ann": 2})) == (Slots.BUSY, "ann")
