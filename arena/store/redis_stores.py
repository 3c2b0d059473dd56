"""The arena's stores on Redis: bot tokens (hashes only) and finished match records (JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from arena.referee.record import MatchRecord
from arena.store.chain import ScriptCall, ScriptChain
from arena.store.match_index import MatchQuery, MatchSummary, Position, index_names

PREFIX = "arena"
STORE_ERRORS: tuple[type[Exception], ...] = (redis_errors.RedisError, OSError)
"""What a store call raises when the store is unreachable or refused the command: the layers above
catch these to retry or pause, without importing the Redis client."""
STORE_UNREACHABLE: tuple[type[Exception], ...] = (redis_errors.ConnectionError, redis_errors.TimeoutError)
"""Of those, what says the store is away (down, restarting, loading its data, or cut off): a caller
may try again shortly."""


def connect(url: str, max_connections: int = 64) -> aioredis.Redis:
    """A client whose pool waits for a free connection under load instead of failing at once, and
    whose connections retry a command (three times, backing off) when they broke: Redis restarted."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=30,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.1), 3),
        retry_on_error=[redis_errors.ConnectionError, redis_errors.TimeoutError],
    )
    return aioredis.Redis(connection_pool=pool)


def key(kind: str, ident: str = "") -> str:
    """A namespaced key: ``arena:{kind}:{id}``."""
    return f"{PREFIX}:{kind}:{ident}" if ident else f"{PREFIX}:{kind}"


_REPLACE_TOKEN = """
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
if old ~= '' then redis.call('DEL', ARGV[1] .. old) end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[2] ~= '' then redis.call('SET', ARGV[1] .. ARGV[2], ARGV[3]) end
return 1
"""
"""Swap a bot's token hash in one step (KEYS[1] its bot key; ARGV: token key prefix, new hash or
'' for none, the name), so no moment exists where both or neither token work by mistake."""


class RedisTokenStore:
    """Bot names and token hashes: ``arena:bot:{name}`` → hash ('' once revoked), ``arena:token:{hash}`` → name,
    ``arena:botname:{casefolded name}`` → name (uniqueness regardless of case), ``arena:botgames:{name}``
    → the set of games it is registered for (a bot registered before games were kept has none: it
    plays every game)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._replace = client.register_script(_REPLACE_TOKEN)

    async def replace(self, name: str, token_hash: str | None) -> bool:
        """Give a bot a new token hash (None: none), atomically; False if no bot has that name."""
        done = await self._replace(keys=[key("bot", name)], args=[f"{key('token')}:", token_hash or "", name])
        return bool(done)

    async def add(self, name: str, token_hash: str, games: frozenset[str]) -> bool:
        """Store a new bot atomically (SET NX on its casefolded name); False if the name exists."""
        if not await self._r.set(key("botname", name.casefold()), name, nx=True):
            return False
        if not await self._r.set(key("bot", name), token_hash, nx=True):
            return False  # registered before casefolded names were kept
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.sadd(key("botgames", name), *sorted(games))
            pipe.set(key("token", token_hash), name)
            await pipe.execute()
        return True

    async def games_of(self, name: str) -> frozenset[str] | None:
        """The games a bot is registered for (empty: every game); None if there is no such bot."""
        return (await self.games_of_each([name]))[0]

    async def games_of_each(self, names: Sequence[str]) -> list[frozenset[str] | None]:
        """``games_of`` for each name, in order, in one round trip."""
        async with self._r.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.exists(key("bot", name))
                pipe.smembers(key("botgames", name))
            replies = await pipe.execute()
        return [
            frozenset(text(game) for game in games) if exists else None
            for exists, games in zip(replies[::2], replies[1::2], strict=True)
        ]

    async def name_for(self, token_hash: str) -> str | None:
        """The bot holding this token hash."""
        name = await self._r.get(key("token", token_hash))
        return None if name is None else text(name)

    async def names_for(self, token_hashes: Sequence[str]) -> list[str | None]:
        """The bot holding each token hash (None for none), in one MGET."""
        if not token_hashes:
            return []
        names = await self._r.mget([key("token", token_hash) for token_hash in token_hashes])
        return [None if name is None else text(name) for name in names]


_SAVE = """
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
for i = 3, #KEYS do redis.call('ZADD', KEYS[i], ARGV[3], ARGV[4]) end
"""
"""Store a record (KEYS: its record key, its summary key, then its indexes; ARGV: the record's JSON,
the summary's, its end time, its id)."""
_HOLD = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
"""
"""Hold a sealed record (KEYS: its seal's hash, its seal key; ARGV: its id, its JSON, the seal)."""


class RedisRecordStore:
    """Finished match records: ``arena:record:{id}`` → JSON, and beside it a small summary
    ``arena:summary:{id}`` → JSON, so a list never parses whole records.

    Sorted sets by end time index the summaries for each list filter: ``arena:records`` (all),
    ``arena:records:game:{game}``, ``arena:records:bot:{bot}`` and
    ``arena:records:game:{game}:bot:{bot}`` and ``arena:records:ladder:{ladder}``; a page is a range
    of one of them.

    Sealed records (the rotations of a duplicate deal still being played) wait apart, unlisted and
    unreadable: ``arena:sealed:{seal}`` hash id → JSON, ``arena:sealed-record:{id}`` → its seal.
    """

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._chain = ScriptChain(client)

    async def save(self, record: MatchRecord) -> None:
        """Store a finished record, its summary and its index entries (idempotent by match id), in
        one script call: a node stores a record a match, and a transaction's ten commands cost the
        client twice the CPU of one call."""
        await self._chain.one(self.saving(record))

    def saving(self, record: MatchRecord) -> ScriptCall:
        """``save``'s write, to run with others (``together``)."""
        info = MatchSummary.of_record(record)
        keys = [key("record", record.match_id), key("summary", record.match_id)]
        keys += [index_key(name) for name in index_names(info)]
        args = [json.dumps(record.to_dict()), json.dumps(info.to_dict()), repr(record.ended_at), record.match_id]
        return ScriptCall(_SAVE, keys, args)

    async def together(self, calls: Sequence[ScriptCall]) -> tuple[int, Any]:
        """Run writes of any of the node's stores on this Redis in order, in one call (``ScriptChain.run``)."""
        return await self._chain.run(calls)

    async def get(self, match_id: str) -> MatchRecord | None:
        """A stored record."""
        data = await self._r.get(key("record", match_id))
        return MatchRecord.from_dict(json.loads(data)) if data else None

    async def hold(self, seal: str, record: MatchRecord) -> None:
        """Keep a finished record apart until ``release(seal)``."""
        await self._chain.one(self.holding(seal, record))

    def holding(self, seal: str, record: MatchRecord) -> ScriptCall:
        """``hold``'s write, to run with others (``together``)."""
        keys = [key("sealed", seal), key("sealed-record", record.match_id)]
        return ScriptCall(_HOLD, keys, [record.match_id, json.dumps(record.to_dict()), seal])

    async def held(self, match_id: str) -> MatchRecord | None:
        """The record if it is held under a seal (None if it is not held)."""
        seal = await self._r.get(key("sealed-record", match_id))
        data = await self._r.hget(key("sealed", text(seal)), match_id) if seal else None
        return MatchRecord.from_dict(json.loads(data)) if data else None

    async def release(self, seal: str) -> None:
        """Store every record held under ``seal`` as any other (idempotent)."""
        held = await self._r.hgetall(key("sealed", seal))
        for raw in held.values():
            await self.save(MatchRecord.from_dict(json.loads(raw)))
        if held:
            await self._r.delete(key("sealed", seal), *(key("sealed-record", text(i)) for i in held))

    async def page(self, query: MatchQuery, after: Position | None, limit: int) -> list[MatchSummary]:
        """Newest ended first, after ``after``: a range of the query's index, then its summaries.

        ``after``'s rank in the index gives an exact next page (ties in end time included); if its
        match is not in the index, the page starts below its end time.
        """
        name = index_key(query.index_keys())
        if after is None:
            ids = await self._r.zrevrange(name, 0, limit - 1)
        else:
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.zrevrank(name, after[1])
                pipe.zscore(name, after[1])
                rank, score = await pipe.execute()
            if rank is not None and score == after[0]:
                ids = await self._r.zrevrange(name, rank + 1, rank + limit)
            else:
                ids = await self._r.zrevrangebyscore(name, f"({after[0]!r}", "-inf", start=0, num=limit)
        if not ids:
            return []
        match_ids = [text(i) for i in ids]
        summaries = await self._r.mget([key("summary", i) for i in match_ids])
        infos: list[MatchSummary] = []
        for match_id, summary in zip(match_ids, summaries, strict=True):
            if summary is not None:
                infos.append(MatchSummary.from_dict(json.loads(summary)))
            elif (record := await self.get(match_id)) is not None:  # stored before summaries were
                infos.append(MatchSummary.of_record(record))
        return infos


def index_key(name: tuple[str, ...]) -> str:
    """The sorted set of one match-list index (see ``RedisRecordStore``)."""
    return ":".join((key("records"), *name))


def text(value: object) -> str:
    """A Redis reply value (bytes) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)
