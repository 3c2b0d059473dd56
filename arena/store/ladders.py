"""Ladders on Redis: their spec and state, the matches the matchmaker adds, seat counts, rating history.

A ladder is played by the league machinery (``arena.store.leagues``): its spec lives at
``arena:league:{id}`` (with ``"kind": "ladder"``), its matches in the league keys beside it, on the
same queue, played by the same referee workers, each result stored once with its queue entry
acknowledged in one step, and lost queue entries found again by the same reconciler. What a
ladder adds (JSON values)::

    arena:ladders                      zset of ladder ids by creation time
    arena:ladder:{id}:paused           set while the ladder is paused
    arena:ladder:{id}:next             counter numbering its matches
    arena:ladder:{id}:seats            hash "{seat} {bot}" -> matches the bot played in that seat
    arena:ladder:{id}:history:{bot}    list of the bot's rating points (the last HISTORY_POINTS)
    arena:ladder:{id}:charted          hash bot -> its rated games at its last history point
    arena:ladder-request:{request}     the ladder a client's create request made (idempotent retries)
    arena:ladder:matchmaker            the node matchmaking now (a lease)
    arena:retired                      set of retired bots: no ladder schedules them
    arena:online                       zset of connected bots, scored by when their entry expires
    arena:botplays:{bot}               JSON list of the games its live connection plays

Matches are added in one script with their queue entries, and only by the node holding the
matchmaker lease, and never to a paused ladder.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis

from arena.store.leagues import QUEUE_STREAM, REQUEST_TTL_SECONDS, LeagueStore
from arena.store.match_index import ladder_of
from arena.store.redis_stores import key, text
from arena.store.specs import SpecKind

HISTORY_POINTS = 2000
"""Rating points kept per bot and ladder (the oldest are dropped)."""

_CREATE = """
if ARGV[4] ~= '' then
  local prior = redis.call('GET', KEYS[4])
  if prior then return prior end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
if ARGV[4] ~= '' then redis.call('SET', KEYS[4], ARGV[5], 'EX', ARGV[4]) end
return ARGV[5]
"""

_SCHEDULE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -2 end
local n = tonumber(ARGV[3])
local first = tonumber(redis.call('GET', KEYS[9]) or '0')
if n > 0 and first ~= tonumber(ARGV[4]) then return -3 end
redis.call('SET', KEYS[9], first + n)
for i = 0, n - 1 do
  local m, spec = ARGV[5 + 2 * i], ARGV[6 + 2 * i]
  redis.call('HSET', KEYS[3], m, spec)
  redis.call('SADD', KEYS[4], m)
  redis.call('HSET', KEYS[5], m, redis.call('XADD', KEYS[6], '*', 'league', ARGV[2], 'match', m))
end
if n > 0 then redis.call('SADD', KEYS[7], ARGV[2]) end
for i = 5 + 2 * n, #ARGV do redis.call('HINCRBY', KEYS[8], ARGV[i], 1) end
return n
"""

_HOLDS = """
local out = {}
for i = 1, #KEYS do out[i] = redis.call('ZRANGEBYSCORE', KEYS[i], ARGV[1], '+inf') end
return out
"""
"""The holds of each bot's slots (KEYS: its ``arena:slots`` zsets) that have not expired (ARGV: now)."""
ONLINE_CHUNK = 1000
"""Bots read a round trip by ``LadderStore.online``."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_HOLD = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""


class LadderStore:
    """Persistence of ladders; every method is one or a few Redis round trips."""

    def __init__(self, client: aioredis.Redis, stream: str = QUEUE_STREAM) -> None:
        self.r = client
        self.stream = stream
        self._create = client.register_script(_CREATE)
        self._schedule = client.register_script(_SCHEDULE)
        self._hold = client.register_script(_HOLD)
        self._holds = client.register_script(_HOLDS)
        self._release = client.register_script(_RELEASE)
        self._leagues = LeagueStore(client, stream)

    @staticmethod
    def _league(ladder_id: str, part: str = "") -> str:
        return key("league", f"{ladder_id}:{part}" if part else ladder_id)

    @staticmethod
    def _key(ladder_id: str, part: str) -> str:
        return key("ladder", f"{ladder_id}:{part}")

    async def create(self, ladder_id: str, spec: Mapping[str, Any], secret: bytes, request_id: str = "") -> str | None:
        """Store a new ladder (spec and deal secret) in one step. Returns its id; for a ``request_id``
        seen before, the ladder that request made; None if ``ladder_id`` exists already."""
        made = await self._create(
            keys=[
                self._league(ladder_id),
                self._league(ladder_id, "secret"),
                key("ladders"),
                key("ladder-request", request_id),
            ],
            args=[
                json.dumps(spec),
                secret,
                float(spec.get("created_at", 0.0)),
                str(REQUEST_TTL_SECONDS) if request_id else "",
                ladder_id,
            ],
        )
        return None if made is None else text(made)

    async def spec(self, ladder_id: str) -> dict[str, Any] | None:
        """The ladder's spec (None if there is no such ladder, or the id cannot be one: see ``RUN_ID``)."""
        spec = await self._leagues.spec(ladder_id)  # a ladder keeps its spec beside the leagues'
        return spec if spec is not None and SpecKind.of(spec) is SpecKind.LADDER else None

    async def ladder_ids(self, limit: int = 100) -> list[str]:
        """The most recent ladders, newest first."""
        return [text(i) for i in await self.r.zrevrange(key("ladders"), 0, limit - 1)]

    async def all_ids(self, chunk: int = 1000) -> list[str]:
        """Every ladder (the matchmaker's round)."""
        return [text(i) for i in await self.r.zrange(key("ladders"), 0, -1)]

    async def set_paused(self, ladder_id: str, paused: bool) -> None:
        """Pause or resume the ladder."""
        if paused:
            await self.r.set(self._key(ladder_id, "paused"), "1")
        else:
            await self.r.delete(self._key(ladder_id, "paused"))

    async def paused(self, ladder_ids: Sequence[str]) -> list[bool]:
        """Whether each ladder is paused."""
        if not ladder_ids:
            return []
        async with self.r.pipeline(transaction=False) as pipe:
            for ladder_id in ladder_ids:
                pipe.exists(self._key(ladder_id, "paused"))
            return [bool(found) for found in await pipe.execute()]

    async def counts(self, ladder_id: str) -> tuple[int, int]:
        """(matches with a stored result, matches open: queued or being played)."""
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.llen(self._league(ladder_id, "results"))
            pipe.scard(self._league(ladder_id, "open"))
            done, open_ = await pipe.execute()
        return int(done), int(open_)

    async def open_tables(self, ladder_ids: Sequence[str]) -> list[list[str]]:
        """The bots of every open match of these ladders (queued or being played)."""
        tables: list[list[str]] = []
        for ladder_id in ladder_ids:
            ids = [text(m) for m in await self.r.smembers(self._league(ladder_id, "open"))]
            for start in range(0, len(ids), 1000):
                chunk = ids[start : start + 1000]
                for raw in await self.r.hmget(self._league(ladder_id, "matches"), chunk):
                    if raw:
                        tables.append([str(b) for b in json.loads(raw)["bots"]])
        return tables

    async def results(self, ladder_id: str, after: int = 0) -> list[dict[str, Any]]:
        """The stored results from the ``after``-th on, in the order they arrived."""
        ids = [text(i) for i in await self.r.lrange(self._league(ladder_id, "results"), after, -1)]
        results: list[dict[str, Any]] = []
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            values = await self.r.mget([key("result", f"{ladder_id}:{i}") for i in chunk])
            results.extend(json.loads(v) for v in values if v)
        return results

    async def current_pairings(self, ladder_id: str, done: int, deal_size: int = 1) -> dict[str, str]:
        """The ladder's pairing aggregate, which the league store keeps with every result, rebuilt
        when short (``LeagueStore.current_pairings``)."""
        return await self._leagues.current_pairings(ladder_id, done, deal_size)

    async def hold_matchmaking(self, owner: str, seconds: float) -> bool:
        """Take or keep the matchmaker lease for ``seconds``; False while another node holds it."""
        return bool(await self._hold(keys=[key("ladder", "matchmaker")], args=[owner, int(seconds * 1000)]))

    async def release_matchmaking(self, owner: str) -> None:
        """Give the lease back if ``owner`` holds it (checked and deleted in one step, so a lease
        another node took after this one's lapsed is never deleted)."""
        await self._release(keys=[key("ladder", "matchmaker")], args=[owner])

    async def next_index(self, ladder_id: str) -> int:
        """The number the ladder's next match gets. Nothing is reserved: :meth:`schedule` takes the
        numbers only with the matches, so a refused schedule or a node dying in between leaves no gap."""
        return int(await self.r.get(self._key(ladder_id, "next")) or 0)

    async def schedule(
        self, owner: str, ladder_id: str, matches: Sequence[Mapping[str, Any]], seats: Sequence[tuple[int, str]]
    ) -> int:
        """Add these matches and queue them, and count each (seat, bot), in one step, if ``owner``
        holds the matchmaker lease, the ladder is not paused, and the matches are numbered from
        :meth:`next_index` on (so numbers read before another schedule landed are refused). Returns
        how many were added (0 when refused)."""
        first = int(matches[0]["index"]) if matches else 0
        args: list[str | int] = [owner, ladder_id, len(matches), first]
        for match in matches:
            args += [str(match["match_id"]), json.dumps(match)]
        args += [f"{seat} {bot}" for seat, bot in seats]
        added = await self._schedule(
            keys=[
                key("ladder", "matchmaker"),
                self._key(ladder_id, "paused"),
                self._league(ladder_id, "matches"),
                self._league(ladder_id, "open"),
                self._league(ladder_id, "where"),
                self.stream,
                key("leagues", "active"),
                self._key(ladder_id, "seats"),
                self._key(ladder_id, "next"),
            ],
            args=args,
        )
        return max(0, int(added))

    async def seat_counts(self, ladder_id: str, players: int) -> dict[str, list[int]]:
        """Per bot, its matches in each seat of this ladder."""
        counts: dict[str, list[int]] = {}
        for field, value in (await self.r.hgetall(self._key(ladder_id, "seats"))).items():
            seat, _, bot = text(field).partition(" ")
            if int(seat) < players:
                counts.setdefault(bot, [0] * players)[int(seat)] = int(value)
        return counts

    async def chart(self, ladder_id: str, points: Mapping[str, Mapping[str, Any]]) -> None:
        """Append a rating point for each bot whose rated games changed since its last point."""
        if not points:
            return
        bots = list(points)
        charted = await self.r.hmget(self._key(ladder_id, "charted"), bots)
        async with self.r.pipeline(transaction=False) as pipe:
            for bot, last in zip(bots, charted, strict=True):
                point = points[bot]
                if last is not None and int(last) == int(point["games"]):
                    continue
                history = self._key(ladder_id, f"history:{bot}")
                pipe.rpush(history, json.dumps(point))
                pipe.ltrim(history, -HISTORY_POINTS, -1)
                pipe.hset(self._key(ladder_id, "charted"), bot, int(point["games"]))
            await pipe.execute()

    async def history(self, ladder_id: str, bot: str, limit: int) -> list[dict[str, Any]]:
        """The bot's last ``limit`` rating points, oldest first."""
        raw = await self.r.lrange(self._key(ladder_id, f"history:{bot}"), -limit, -1)
        return [json.loads(point) for point in raw]

    async def retire(self, bot: str) -> None:
        """No ladder schedules the bot again."""
        await self.r.sadd(key("retired"), bot)

    async def retired(self, bots: Sequence[str]) -> frozenset[str]:
        """Those of ``bots`` that are retired."""
        if not bots:
            return frozenset()
        flags = await self.r.smismember(key("retired"), list(bots))
        return frozenset(bot for bot, flag in zip(bots, flags, strict=True) if flag)

    async def plays(self, bots: Sequence[str]) -> dict[str, frozenset[str]]:
        """The games each of ``bots`` that is connected to a node now plays there (one round trip;
        a bot connected nowhere is left out)."""
        if not bots:
            return {}
        replies = await self.r.mget([key("botplays", bot) for bot in bots])
        return {bot: _games(raw) for bot, raw in zip(bots, replies, strict=True) if raw is not None}

    async def online(self, games: Collection[str]) -> dict[str, Online]:
        """Every bot connected to a node now that plays one of ``games``: the games its connection
        plays, its capacity, and the match slots held by matches that are not a ladder's (a
        league's, or started by hand).

        Two round trips for each ``ONLINE_CHUNK`` bots online: their games and capacities, then the
        holds of those that play one of ``games``. A pass used to read three keys of every bot
        online, one command each, whatever it played: about a second of its node's CPU with 10,000 online.
        """
        now = time.time()
        await self.r.zremrangebyscore(key("online"), "-inf", now)
        bots = [text(b) for b in await self.r.zrangebyscore(key("online"), now, "+inf")]
        wanted = frozenset(games)
        found: dict[str, Online] = {}
        for start in range(0, len(bots), ONLINE_CHUNK):
            chunk = bots[start : start + ONLINE_CHUNK]
            replies = await self.r.mget([key("botplays", bot) for bot in chunk] + [key("botcap", bot) for bot in chunk])
            usable: list[tuple[str, frozenset[str], int]] = []
            for bot, plays, cap in zip(chunk, replies[: len(chunk)], replies[len(chunk) :], strict=True):
                if plays is not None and cap is not None and not wanted.isdisjoint(played := _games(plays)):
                    usable.append((bot, played, int(cap)))
            if not usable:
                continue
            holds = await self._holds(keys=[key("slots", bot) for bot, _, _ in usable], args=[repr(now)])
            for (bot, played, capacity), held in zip(usable, holds, strict=True):
                others = sum(1 for hold in held if not ladder_of(text(hold)))
                found[bot] = Online(played, capacity, others)
        return found


@functools.lru_cache(maxsize=256)
def _games(plays: bytes) -> frozenset[str]:
    """A connection's games from their JSON (bots connect with few distinct lists: parsed once each)."""
    return frozenset(json.loads(plays))


@dataclasses.dataclass(frozen=True, slots=True)
class Online:
    """A connected bot, as the matchmaker needs it."""

    games: frozenset[str]
    """The games its connection plays."""
    capacity: int
    """The matches at once its connection asked for."""
    held_elsewhere: int
    """Its match slots held now by matches that are not a ladder's."""
