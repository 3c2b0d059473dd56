"""Match slots across the arena: a bot plays at most as many matches at once as its connection asked for,
whichever nodes referee them.

``arena:botcap:{bot}`` is the capacity its home node publishes while the bot is connected (with its
presence, ``arena:botat:{bot}``); ``arena:slots:{bot}`` is a zset of the matches holding one of its
slots, scored by when that hold expires. A refereeing node refreshes the holds of its running
matches; a node that dies lets its holds lapse. Taking slots is all-or-nothing for a match's bots.
"""

from __future__ import annotations

import enum
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis

from arena.store.chain import ScriptCall, ScriptChain
from arena.store.redis_stores import key

HOLD_SECONDS = 15.0
"""A slot whose refereeing node stops refreshing it is free again after this long."""
GENERATION_KEY = key("queue", "generation")
"""Counts the events that can let a waiting match start: bumped whenever slots are freed."""

_ACQUIRE = """
local now = tonumber(ARGV[1])
local n = #KEYS / 2
for i = 1, n do
  local cap = ARGV[3 + n + i]
  if cap == '' then cap = redis.call('GET', KEYS[2 * i]) end
  if not cap then return {-1, i} end
  redis.call('ZREMRANGEBYSCORE', KEYS[2 * i - 1], '-inf', now)
  local held = redis.call('ZCARD', KEYS[2 * i - 1])
  if held + tonumber(ARGV[3 + i]) > tonumber(cap) then return {0, i} end
end
for i = 1, #KEYS / 2 do
  for n = 1, tonumber(ARGV[3 + i]) do
    redis.call('ZADD', KEYS[2 * i - 1], ARGV[2], ARGV[3] .. '#' .. n)
  end
end
"""
"""Take a match's slots, or none (KEYS: each bot's slots and capacity; ARGV: now, the holds' expiry,
the match id, each bot's count, each bot's known capacity or ''): nothing when taken, else a
refusal {-1 (absent) or 0 (busy), the bot's index}."""
_RELEASE = """
local n = #KEYS - 1
for i = 1, n do
  for j = 1, tonumber(ARGV[1 + i]) do redis.call('ZREM', KEYS[i], ARGV[1] .. '#' .. j) end
end
redis.call('INCR', KEYS[n + 1])
"""
"""Free a match's slots and bump the generation (KEYS: each bot's slots, then the generation; ARGV:
the match id, each bot's count)."""


class Slots(enum.Enum):
    """What asking for a match's slots found."""

    TAKEN = "taken"
    BUSY = "busy"
    """A bot's slots are all held by other matches."""
    ABSENT = "absent"
    """A bot is connected to no node."""


class SlotBroker:
    """Takes, refreshes and frees the match slots of bots, for every node of the arena."""

    def __init__(self, client: aioredis.Redis, hold_seconds: float = HOLD_SECONDS) -> None:
        self.r = client
        self.hold_seconds = hold_seconds
        self._chain = ScriptChain(client)

    def claim(self, match_id: str, wanted: Mapping[str, int], known: Mapping[str, int] | None = None) -> ScriptCall:
        """The write that takes ``wanted[bot]`` slots of each bot for the match, or none, run in the
        match's one call as it starts (``ScriptChain``): its refusal stops the chain (``verdict``
        reads it). ``known`` gives the capacity of bots connected here (their published entry may
        not be written yet); the others' comes from their home node."""
        bots = sorted(wanted)
        known = known or {}
        now = time.time()
        keys = [k for bot in bots for k in (key("slots", bot), key("botcap", bot))]
        args: list[str | float | int] = [now, now + self.hold_seconds, match_id, *(wanted[b] for b in bots)]
        args += [str(known[b]) if b in known else "" for b in bots]
        return ScriptCall(_ACQUIRE, keys, args)

    async def refresh(self, holds: Mapping[str, Sequence[str]]) -> None:
        """Extend the holds of running matches: match id -> its bots (in seat order)."""
        if not holds:
            return
        until = time.time() + self.hold_seconds
        async with self.r.pipeline(transaction=False) as pipe:
            for match_id, bots in holds.items():
                for bot, n in Counter(bots).items():
                    pipe.zadd(key("slots", bot), {f"{match_id}#{i}": until for i in range(1, n + 1)}, xx=True)
            await pipe.execute()

    async def release(self, match_id: str, bots: Sequence[str]) -> None:
        """The match ended: free its slots, and tell waiting workers."""
        await self._chain.one(self.freeing(match_id, bots))

    def freeing(self, match_id: str, bots: Sequence[str]) -> ScriptCall:
        """``release``'s write, to run with others (``ScriptChain``)."""
        counts = Counter(bots)
        return ScriptCall(
            _RELEASE, [*(key("slots", bot) for bot in counts), GENERATION_KEY], [match_id, *counts.values()]
        )


def verdict(refusal: list[Any] | None, wanted: Mapping[str, int]) -> tuple[Slots, str]:
    """What a ``claim`` of ``wanted`` found, from its refusal (None: the slots were taken)."""
    if refusal is None:
        return Slots.TAKEN, ""
    found, index = refusal
    return (Slots.ABSENT if int(found) == -1 else Slots.BUSY), sorted(wanted)[int(index) - 1]
