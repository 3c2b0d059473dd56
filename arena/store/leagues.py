"""Leagues on Redis: their spec, their matches, their results (each exactly once) and live ratings.

Keys (all JSON values)::

    arena:leagues                      zset of league ids by creation time
    arena:league:{id}                  the league spec
    arena:league:{id}:secret           the key its duplicate deals are dealt from (never leaves the server)
    arena:league:{id}:matches          hash match id -> the scheduled match
    arena:league:{id}:results          list of match ids, in the order their results were stored
    arena:league:{id}:running          set of match ids being played
    arena:league:{id}:elo              hash bot -> live Elo rating
    arena:league:{id}:deal:{deal}      list of the deal's match ids whose results are stored
    arena:league:{id}:cancelled        when the league was cancelled (its queued matches are dropped)
    arena:result:{league}:{match}      the match's result, written once (SET NX)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import WatchError

from arena.store.redis_stores import key, text

# Store a result only if none is stored yet; then list it (in the league and in its deal) and clear
# it from the running set. Returns {stored (1/0), results of the deal stored so far}.
_RECORD_RESULT = """
local stored = 0
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('RPUSH', KEYS[4], ARGV[2])
  stored = 1
end
redis.call('SREM', KEYS[3], ARGV[2])
return {stored, redis.call('LLEN', KEYS[4])}
"""


class LeagueStore:
    """Persistence of leagues; every method is one or a few Redis round trips."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.r = client
        self._record_result = client.register_script(_RECORD_RESULT)

    async def create(
        self, league_id: str, spec: Mapping[str, Any], matches: Sequence[Mapping[str, Any]], secret: bytes
    ) -> bool:
        """Store a new league, the secret its deals come from, and its schedule; False if the id exists."""
        if not await self.r.set(key("league", league_id), json.dumps(spec), nx=True):
            return False
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(key("league", f"{league_id}:secret"), secret)
            pipe.zadd(key("leagues"), {league_id: float(spec.get("created_at", 0.0))})
            for start in range(0, len(matches), 1000):
                chunk = matches[start : start + 1000]
                pipe.hset(
                    key("league", f"{league_id}:matches"),
                    mapping={m["match_id"]: json.dumps(m) for m in chunk},
                )
            await pipe.execute()
        return True

    async def spec(self, league_id: str) -> dict[str, Any] | None:
        """The league's spec."""
        raw = await self.r.get(key("league", league_id))
        return json.loads(raw) if raw else None

    async def secret(self, league_id: str) -> bytes | None:
        """The key the league's duplicate deals are dealt from (for the referee worker only)."""
        raw = await self.r.get(key("league", f"{league_id}:secret"))
        return raw.encode() if isinstance(raw, str) else raw

    async def league_ids(self, limit: int = 100) -> list[str]:
        """The most recent leagues, newest first."""
        return [text(i) for i in await self.r.zrevrange(key("leagues"), 0, limit - 1)]

    async def match(self, league_id: str, match_id: str) -> dict[str, Any] | None:
        """One scheduled match."""
        raw = await self.r.hget(key("league", f"{league_id}:matches"), match_id)
        return json.loads(raw) if raw else None

    async def has_result(self, league_id: str, match_id: str) -> bool:
        """Whether this match's result is stored."""
        return bool(await self.r.exists(key("result", f"{league_id}:{match_id}")))

    async def mark_running(self, league_id: str, match_id: str) -> None:
        """The match is being played."""
        await self.r.sadd(key("league", f"{league_id}:running"), match_id)

    async def mark_not_running(self, league_id: str, match_id: str) -> None:
        """The match stopped without a result (it will be played again)."""
        await self.r.srem(key("league", f"{league_id}:running"), match_id)

    async def record_result(
        self, league_id: str, match_id: str, deal_id: str, result: Mapping[str, Any]
    ) -> tuple[bool, int]:
        """Store the match's result unless one is stored already.

        Returns whether this call stored it, and how many of its deal's results are stored now.
        """
        stored, deal_results = await self._record_result(
            keys=[
                key("result", f"{league_id}:{match_id}"),
                key("league", f"{league_id}:results"),
                key("league", f"{league_id}:running"),
                key("league", f"{league_id}:deal:{deal_id}"),
            ],
            args=[json.dumps(result), match_id],
        )
        return bool(stored), int(deal_results)

    async def deal_results(self, league_id: str, deal_id: str) -> list[dict[str, Any]]:
        """The stored results of one deal's matches, in the order they arrived."""
        ids = [text(i) for i in await self.r.lrange(key("league", f"{league_id}:deal:{deal_id}"), 0, -1)]
        values = await self.r.mget([key("result", f"{league_id}:{i}") for i in ids]) if ids else []
        return [json.loads(v) for v in values if v]

    async def results(self, league_id: str) -> list[dict[str, Any]]:
        """Every stored result, in the order they arrived."""
        ids = [text(i) for i in await self.r.lrange(key("league", f"{league_id}:results"), 0, -1)]
        results: list[dict[str, Any]] = []
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            values = await self.r.mget([key("result", f"{league_id}:{i}") for i in chunk])
            results.extend(json.loads(v) for v in values if v)
        return results

    async def progress(self, league_id: str) -> tuple[int, int, int]:
        """(total matches, done, running)."""
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hlen(key("league", f"{league_id}:matches"))
            pipe.llen(key("league", f"{league_id}:results"))
            pipe.scard(key("league", f"{league_id}:running"))
            total, done, running = await pipe.execute()
        return int(total), int(done), int(running)

    async def cancel(self, league_id: str, at: float) -> None:
        """Mark the league cancelled (the first time counts)."""
        await self.r.set(key("league", f"{league_id}:cancelled"), str(at), nx=True)

    async def is_cancelled(self, league_id: str) -> bool:
        """Whether the league was cancelled."""
        return bool(await self.r.exists(key("league", f"{league_id}:cancelled")))

    async def update_elo(
        self, league_id: str, update: Callable[[dict[str, float]], dict[str, float]], attempts: int = 50
    ) -> dict[str, float]:
        """Apply ``update`` to the live ratings atomically (optimistic locking); returns the new ratings."""
        elo_key = key("league", f"{league_id}:elo")
        for _ in range(attempts):
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(elo_key)
                    current = {text(k): float(v) for k, v in (await pipe.hgetall(elo_key)).items()}
                    new = update(current)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    if new:
                        pipe.hset(elo_key, mapping=new)  # type: ignore[arg-type]
                    await pipe.execute()
                    return new
                except WatchError:
                    continue
        raise RuntimeError(f"could not update the ratings of league {league_id} (too much contention)")

    async def elo(self, league_id: str) -> dict[str, float]:
        """The live ratings."""
        raw = await self.r.hgetall(key("league", f"{league_id}:elo"))
        return {text(k): float(v) for k, v in raw.items()}
