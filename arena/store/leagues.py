"""Leagues on Redis: their spec, their matches, where each match is, and its result (exactly once).

Keys (JSON values)::

    arena:leagues                      zset of league ids by creation time
    arena:leagues:active               set of leagues with matches still to be played
    arena:league:{id}                  the league spec
    arena:league:{id}:secret           the key its duplicate deals are dealt from (never leaves the server)
    arena:league:{id}:matches          hash match id -> the scheduled match
    arena:league:{id}:open             set of match ids without a stored result
    arena:league:{id}:where            hash open match id -> its queue entry id, or "p:{bot}" while parked
    arena:league:{id}:results          list of match ids, in the order their results were stored
    arena:league:{id}:running          set of match ids being played
    arena:league:{id}:deal:{deal}      list of the deal's match ids whose results are stored
    arena:league:{id}:cancelled        when the league was cancelled (its queued matches are dropped)
    arena:league:{id}:pairs            hash: the results summed by pairing (arena.league.aggregate's
                                       fields), whole deals only, plus "#stored": results counted
    arena:league:{id}:pending:{deal}   the same sums for a duplicate deal not yet whole
    arena:result:{league}:{match}      the match's result, written once (SET NX)
    arena:parked:{bot}                 set of "{league} {match}" waiting for that absent bot to connect
    arena:league:{id}:parked           hash bot -> how many of the league's matches are parked for it
    arena:league-request:{request}     the league a client's create request made (idempotent retries)

A ladder (``arena.store.ladders``) keeps its matches in these keys too; its matches are never
parked: one whose bot is absent (or retired) is dropped (``drop_many``), and the ladder's
matchmaker schedules the bots connected instead.

Every change of where a match is happens in one script, together with the queue operation it goes
with: creating a league queues all its matches at once (a league exists whole or not at all); storing
a result acknowledges its queue entry and adds it to the pairing aggregate (once its deal is whole:
the leaderboard counts only whole deals), so the table never needs the results themselves; parking
a match for an absent bot takes it off the queue. So
``reconcile`` can find any open match that is nowhere (lost to a crash of the store's host) and queue
it again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis

from arena.league.aggregate import PairingAggregate, is_current, result_fields
from arena.league.result import StoredResult, unique_results
from arena.league.schedule import match_id as schedule_match_id
from arena.store.match_index import RUN_ID
from arena.store.redis_stores import PREFIX, key, text

QUEUE_STREAM = key("queue", "matches")
QUEUE_GROUP = "referees"
REQUEST_TTL_SECONDS = 7 * 24 * 3600
"""How long a create request's id keeps naming the league it made."""
REBUILD_ATTEMPTS = 3
"""Tries at rebuilding a league's pairing aggregate while results keep arriving."""
STORED_FIELD = "#stored"
"""The pairing aggregate's count of the stored results it has seen (whole deals or pending)."""

_CREATE = """
if ARGV[5] ~= '' then
  local prior = redis.call('GET', KEYS[9])
  if prior then return prior end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[4])
for i = 6, #ARGV, 2 do
  local m = ARGV[i]
  redis.call('HSET', KEYS[5], m, ARGV[i + 1])
  redis.call('SADD', KEYS[6], m)
  redis.call('HSET', KEYS[7], m, redis.call('XADD', KEYS[8], '*', 'league', ARGV[4], 'match', m))
end
if ARGV[5] ~= '' then redis.call('SET', KEYS[9], ARGV[4], 'EX', ARGV[5]) end
return ARGV[4]
"""

AGGREGATE_BUMP_LUA = """
-- bump(hash, field, "n n ..."): add the integers column by column to the field's (absent: zeros).
-- How a script adds arena.league.aggregate's increments (result_fields) to a stored aggregate.
local function bump(hash, field, deltas)
  local old = {}
  local current = redis.call('HGET', hash, field)
  if current then for x in string.gmatch(current, '%S+') do old[#old + 1] = tonumber(x) end end
  local out = {}
  for x in string.gmatch(deltas, '%S+') do out[#out + 1] = string.format('%d', (old[#out + 1] or 0) + tonumber(x)) end
  redis.call('HSET', hash, field, table.concat(out, ' '))
end
"""

_KEEP_CHART = """
if (tonumber(redis.call('HGET', KEYS[1], 'taken') or '') or -1) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'taken', ARGV[1], 'lines', ARGV[2])
end
"""
"""Keep a league's chart lines unless lines carried further are kept: KEYS chart; ARGV taken, lines JSON."""

_RECORD_RESULT = (
    AGGREGATE_BUMP_LUA
    + """
local stored = 0
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  local deal_results = redis.call('RPUSH', KEYS[4], ARGV[2])
  stored = 1
  redis.call('HINCRBY', KEYS[9], '#stored', 1)
  if tonumber(ARGV[6]) <= 1 then
    for i = 7, #ARGV, 2 do bump(KEYS[9], ARGV[i], ARGV[i + 1]) end
  else
    for i = 7, #ARGV, 2 do bump(KEYS[10], ARGV[i], ARGV[i + 1]) end
    if deal_results >= tonumber(ARGV[6]) then
      local pending = redis.call('HGETALL', KEYS[10])
      for i = 1, #pending, 2 do bump(KEYS[9], pending[i], pending[i + 1]) end
      redis.call('DEL', KEYS[10])
    end
  end
end
redis.call('SREM', KEYS[5], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[6], ARGV[2])
if ARGV[4] ~= '' then
  redis.call('XACK', KEYS[7], ARGV[3], ARGV[4])
  redis.call('XDEL', KEYS[7], ARGV[4])
end
if redis.call('SCARD', KEYS[5]) == 0 then redis.call('SREM', KEYS[8], ARGV[5]) end
return {stored, redis.call('LLEN', KEYS[4])}
"""
)

_REBUILD_PAIRS = (
    AGGREGATE_BUMP_LUA
    + """
if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], '#stored', ARGV[1])
local i = 2
while i <= #ARGV do
  local pending, count = ARGV[i], tonumber(ARGV[i + 1])
  if pending ~= '' then redis.call('DEL', pending) end
  for j = i + 2, i + 1 + 2 * count, 2 do bump(pending ~= '' and pending or KEYS[1], ARGV[j], ARGV[j + 1]) end
  i = i + 2 + 2 * count
end
return 1
"""
)

_PARK = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('XACK', KEYS[4], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[4], ARGV[2])
if redis.call('SADD', KEYS[2], ARGV[3]) == 1 then redis.call('HINCRBY', KEYS[5], ARGV[6], 1) end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
return 1
"""

_DROP = """
redis.call('XACK', KEYS[4], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[4], ARGV[2])
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
redis.call('SREM', KEYS[1], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('SREM', KEYS[3], ARGV[3])
if redis.call('SCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[6], ARGV[4]) end
return 1
"""

_UNPARK = """
local members = redis.call('SMEMBERS', KEYS[1])
for _, member in ipairs(members) do
  local space = string.find(member, ' ', 1, true)
  local league, match = string.sub(member, 1, space - 1), string.sub(member, space + 1)
  local id = redis.call('XADD', KEYS[2], '*', 'league', league, 'match', match)
  redis.call('HSET', ARGV[1] .. league .. ':where', match, id)
  if redis.call('HINCRBY', ARGV[1] .. league .. ':parked', ARGV[2], -1) <= 0 then
    redis.call('HDEL', ARGV[1] .. league .. ':parked', ARGV[2])
  end
end
redis.call('DEL', KEYS[1])
return #members
"""

_HAND_BACK = """
if redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[2] then return 0 end
if #redis.call('XPENDING', KEYS[2], ARGV[1], ARGV[2], ARGV[2], 1, ARGV[5]) == 0 then return 0 end
redis.call('XACK', KEYS[2], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[2], ARGV[2])
local id = redis.call('XADD', KEYS[2], '*', 'league', ARGV[4], 'match', ARGV[3])
redis.call('HSET', KEYS[1], ARGV[3], id)
return 1
"""

_REQUEUE = """
local id = redis.call('XADD', KEYS[2], '*', 'league', ARGV[1], 'match', ARGV[2])
redis.call('HSET', KEYS[1], ARGV[2], id)
redis.call('SREM', KEYS[3], ARGV[2])
return id
"""


class LeagueStore:
    """Persistence of leagues; every method is one or a few Redis round trips."""

    def __init__(self, client: aioredis.Redis, stream: str = QUEUE_STREAM, group: str = QUEUE_GROUP) -> None:
        self.r = client
        self.stream = stream
        self.group = group
        self._create = client.register_script(_CREATE)
        self._record_result = client.register_script(_RECORD_RESULT)
        self._rebuild_pairs = client.register_script(_REBUILD_PAIRS)
        self._park = client.register_script(_PARK)
        self._unpark = client.register_script(_UNPARK)
        self._drop = client.register_script(_DROP)
        self._requeue = client.register_script(_REQUEUE)
        self._hand_back = client.register_script(_HAND_BACK)
        self._keep_chart = client.register_script(_KEEP_CHART)

    def _key(self, league_id: str, part: str) -> str:
        return key("league", f"{league_id}:{part}")

    async def chart(self, league_id: str) -> str | None:
        """The league's Elo lines (JSON) as the site last kept them (``keep_chart``), or None."""
        raw = await self.r.hget(self._key(league_id, "chart"), "lines")
        return None if raw is None else text(raw)

    async def forget_chart(self, league_id: str) -> None:
        """Forget the league's kept Elo lines (ones the site cannot read)."""
        await self.r.delete(self._key(league_id, "chart"))

    async def keep_chart(self, league_id: str, taken: int, lines: bytes) -> None:
        """Keep the league's Elo lines (JSON) carried forward over its first ``taken`` results, unless
        lines carried further are kept already (two views on two nodes: the furthest stays)."""
        await self._keep_chart(keys=[self._key(league_id, "chart")], args=[taken, lines])

    async def create(
        self,
        league_id: str,
        spec: Mapping[str, Any],
        matches: Sequence[Mapping[str, Any]],
        secret: bytes,
        request_id: str = "",
    ) -> str | None:
        """Store a new league, the secret its deals come from and its schedule, and queue every match,
        all at once. Returns the league's id; for a ``request_id`` seen before, the id of the league that
        request made (nothing new is stored); None if ``league_id`` exists already."""
        args: list[str | bytes | float] = [
            json.dumps(spec),
            secret,
            float(spec.get("created_at", 0.0)),
            league_id,
            str(REQUEST_TTL_SECONDS) if request_id else "",
        ]
        for match in matches:
            args += [str(match["match_id"]), json.dumps(match)]
        made = await self._create(
            keys=[
                key("league", league_id),
                self._key(league_id, "secret"),
                key("leagues"),
                key("leagues", "active"),
                self._key(league_id, "matches"),
                self._key(league_id, "open"),
                self._key(league_id, "where"),
                self.stream,
                key("league-request", request_id),
            ],
            args=args,
        )
        return None if made is None else text(made)

    async def spec(self, league_id: str) -> dict[str, Any] | None:
        """The league's spec (None for an id that cannot be one: see ``RUN_ID``)."""
        if not RUN_ID.fullmatch(league_id):
            return None
        raw = await self.r.get(key("league", league_id))
        return json.loads(raw) if raw else None

    async def secret(self, league_id: str) -> bytes | None:
        """The key the league's duplicate deals are dealt from (for the referee worker only)."""
        raw = await self.r.get(self._key(league_id, "secret"))
        return raw.encode() if isinstance(raw, str) else raw

    async def league_ids(self, limit: int = 100) -> list[str]:
        """The most recent leagues, newest first."""
        return [text(i) for i in await self.r.zrevrange(key("leagues"), 0, limit - 1)]

    async def created_at(self, league_ids: Sequence[str]) -> dict[str, float]:
        """When each of these leagues was created (unknown ones are left out), in one round trip."""
        if not league_ids:
            return {}
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.zmscore(key("leagues"), list(league_ids))
            pipe.zmscore(key("ladders"), list(league_ids))  # a ladder's matches are kept as a league's
            leagues, ladders = await pipe.execute()
        return {
            i: float(s if s is not None else t)
            for i, s, t in zip(league_ids, leagues, ladders, strict=True)
            if s is not None or t is not None
        }

    async def queued(self, league_id: str, start: int, count: int) -> tuple[list[dict[str, Any]], int]:
        """The scheduled matches among the league's indexes ``start`` to ``start + count - 1`` that
        are still to be played and not being played (queued, or parked for an absent bot), in
        schedule order; and the number of scheduled matches. Two round trips, ``count`` ids each."""
        ids = [schedule_match_id(league_id, i) for i in range(start, start + count)]
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hlen(self._key(league_id, "matches"))
            pipe.smismember(self._key(league_id, "open"), ids)
            pipe.smismember(self._key(league_id, "running"), ids)
            total, is_open, is_running = await pipe.execute()
        waiting = [m for m, o, r in zip(ids, is_open, is_running, strict=True) if o and not r and m]
        if not waiting:
            return [], int(total)
        raw = await self.r.hmget(self._key(league_id, "matches"), waiting)
        return [json.loads(r) for r in raw if r], int(total)

    async def waiting(self, ladder_id: str) -> list[dict[str, Any]]:
        """A ladder's scheduled matches still to be played and not being played, in schedule order:
        its open matches (as many as its matchmaker keeps queued, not its whole history) less the
        running ones. Two round trips."""
        ids = sorted(text(m) for m in await self.r.smembers(self._key(ladder_id, "open")))
        if not ids:
            return []
        running = await self.r.smismember(self._key(ladder_id, "running"), ids)
        waiting = [m for m, r in zip(ids, running, strict=True) if not r]
        raw = await self.r.hmget(self._key(ladder_id, "matches"), waiting) if waiting else []
        return [json.loads(r) for r in raw if r]

    async def active_ids(self) -> list[str]:
        """Leagues with matches still to be played."""
        return sorted(text(i) for i in await self.r.smembers(key("leagues", "active")))

    async def match(self, league_id: str, match_id: str) -> dict[str, Any] | None:
        """One scheduled match."""
        raw = await self.r.hget(self._key(league_id, "matches"), match_id)
        return json.loads(raw) if raw else None

    async def matches_and_results(self, which: Sequence[tuple[str, str]]) -> list[tuple[dict[str, Any] | None, bool]]:
        """For each (league, match): the scheduled match, and whether its result is stored (one round trip)."""
        async with self.r.pipeline(transaction=False) as pipe:
            for league_id, match_id in which:
                pipe.hget(self._key(league_id, "matches"), match_id)
                pipe.exists(key("result", f"{league_id}:{match_id}"))
            replies = await pipe.execute()
        return [
            (json.loads(raw) if raw else None, bool(stored))
            for raw, stored in zip(replies[::2], replies[1::2], strict=True)
        ]

    async def mark_running(self, league_id: str, match_id: str) -> None:
        """The match is being played."""
        await self.r.sadd(self._key(league_id, "running"), match_id)

    async def mark_not_running(self, league_id: str, match_id: str) -> None:
        """The match stopped without a result (it will be played again)."""
        await self.r.srem(self._key(league_id, "running"), match_id)

    async def record_result(
        self,
        league_id: str,
        match_id: str,
        deal_id: str,
        result: Mapping[str, Any],
        entry_id: str = "",
        deal_size: int = 1,
    ) -> tuple[bool, int]:
        """Store the match's result unless one is stored already, add it to the league's pairing
        aggregate (held apart until ``deal_size`` results of its deal are stored), and acknowledge its
        queue entry, in one step. Returns whether this call stored it, and how many of its deal's
        results are stored now. An empty ``result`` only finishes a step whose result is stored already.
        """
        increment = result_fields(StoredResult.from_dict(result)) if result else {}
        stored, deal_results = await self._record_result(
            keys=[
                key("result", f"{league_id}:{match_id}"),
                self._key(league_id, "results"),
                self._key(league_id, "running"),
                self._key(league_id, f"deal:{deal_id}"),
                self._key(league_id, "open"),
                self._key(league_id, "where"),
                self.stream,
                key("leagues", "active"),
                self._key(league_id, "pairs"),
                self._key(league_id, f"pending:{deal_id}"),
            ],
            args=[
                json.dumps(result),
                match_id,
                self.group,
                entry_id,
                league_id,
                str(deal_size),
                *(item for pair in increment.items() for item in pair),
            ],
        )
        return bool(stored), int(deal_results)

    async def pairings(self, league_id: str) -> tuple[dict[str, str], int]:
        """The league's pairing aggregate (whole deals only) in its stored form, and how many stored
        results it has counted; compare with ``progress``'s done: if they differ, ``rebuild_pairings``."""
        fields = {text(f): text(v) for f, v in (await self.r.hgetall(self._key(league_id, "pairs"))).items()}
        counted = int(fields.pop(STORED_FIELD, "0"))
        return fields, counted

    async def current_pairings(self, league_id: str, done: int, deal_size: int = 1) -> dict[str, str]:
        """The pairing aggregate in its stored form, rebuilt from the results first when it has counted
        fewer than ``done`` (the league's stored results) or lacks the spread statistics of some
        (``arena.league.aggregate.is_current``: stored before they existed): at most
        ``REBUILD_ATTEMPTS`` tries while results keep arriving, then the aggregate as it stands."""
        fields, counted = await self.pairings(league_id)
        for _ in range(REBUILD_ATTEMPTS):
            if counted >= done and is_current(fields):
                break
            await self.rebuild_pairings(league_id, deal_size)
            fields, counted = await self.pairings(league_id)
        return fields

    async def rebuild_pairings(self, league_id: str, deal_size: int = 1) -> bool:
        """Recompute the pairing aggregate from the stored results (for a league stored before the
        aggregate or its spread statistics existed, or after any loss). Returns False, changing
        nothing, if a result arrived meanwhile (call again)."""
        stored = await self.results(league_id)
        whole = PairingAggregate()
        pending: dict[str, PairingAggregate] = {}
        per_deal = Counter(str(r.get("deal_id")) for r in stored)
        for raw in unique_results(StoredResult.from_dict(r) for r in stored):
            deal = str(raw.deal_id)
            if deal_size <= 1 or per_deal[deal] >= deal_size:
                whole.add(raw)
            else:
                pending.setdefault(deal, PairingAggregate()).add(raw)
        args: list[str] = [str(len(stored))]
        for target, aggregate in [
            ("", whole),
            *((self._key(league_id, f"pending:{d}"), a) for d, a in pending.items()),
        ]:
            fields = aggregate.to_fields()
            args += [target, str(len(fields)), *(item for pair in fields.items() for item in pair)]
        done = await self._rebuild_pairs(
            keys=[self._key(league_id, "pairs"), self._key(league_id, "results")], args=args
        )
        return bool(done)

    async def park_many(self, matches: Sequence[tuple[str, str, str, str]]) -> list[bool]:
        """Take each (league, match, queue entry, bot) off the queue until that bot connects
        (``unpark``), in one round trip; False, and nothing changes, where the bot is connected to a
        node by now."""
        async with self.r.pipeline(transaction=False) as pipe:
            for league_id, match_id, entry_id, bot in matches:
                await self._park(
                    keys=[
                        key("botat", bot),
                        key("parked", bot),
                        self._key(league_id, "where"),
                        self.stream,
                        self._key(league_id, "parked"),
                    ],
                    args=[self.group, entry_id, f"{league_id} {match_id}", match_id, f"p:{bot}", bot],
                    client=pipe,
                )
            return [bool(parked) for parked in await pipe.execute()]

    async def hand_back(self, matches: Sequence[tuple[str, str, str]], consumer: str) -> int:
        """Put each (league, match, queue entry) that ``consumer`` took but will not play back on the
        queue, as a new entry any node reads at once (a node stopping gracefully: else they would
        wait out their lease). One that is no longer at that entry (moved, played) or no longer
        ``consumer``'s (another node took it over) is left alone. One round trip; returns how many
        went back."""
        if not matches:
            return 0
        async with self.r.pipeline(transaction=False) as pipe:
            for league_id, match_id, entry_id in matches:
                await self._hand_back(
                    keys=[self._key(league_id, "where"), self.stream],
                    args=[self.group, entry_id, match_id, league_id, consumer],
                    client=pipe,
                )
            return sum(int(done) for done in await pipe.execute())

    async def drop_many(self, matches: Sequence[tuple[str, str, str]]) -> None:
        """Give up each (league, match, queue entry) unplayed, in one round trip: acknowledge its entry
        and close the match (a ladder's match whose bot left; the matchmaker makes new ones). A match
        whose result is stored stays as it is."""
        async with self.r.pipeline(transaction=False) as pipe:
            for league_id, match_id, entry_id in matches:
                await self._drop(
                    keys=[
                        self._key(league_id, "open"),
                        self._key(league_id, "where"),
                        self._key(league_id, "running"),
                        self.stream,
                        key("result", f"{league_id}:{match_id}"),
                        key("leagues", "active"),
                    ],
                    args=[self.group, entry_id, match_id, league_id],
                    client=pipe,
                )
            await pipe.execute()

    async def retired(self, bots: Sequence[str]) -> bool:
        """Whether any of these bots is retired (``arena.store.ladders``: no ladder plays it)."""
        return any(await self.r.smismember(key("retired"), list(bots))) if bots else False

    async def unpark(self, bot: str) -> int:
        """The bot connected: queue every match parked for it again; returns how many."""
        return int(await self._unpark(keys=[key("parked", bot), self.stream], args=[f"{PREFIX}:league:", bot]))

    async def parked_for(self, league_id: str) -> dict[str, int]:
        """How many of the league's matches are parked for each bot that is not connected (one
        round trip; as many fields as the league has bots at most)."""
        counts = await self.r.hgetall(self._key(league_id, "parked"))
        return {text(bot): int(count) for bot, count in counts.items() if int(count) > 0}

    async def claim_reconciling(self, owner: str, seconds: float) -> bool:
        """Whether ``owner`` may reconcile now: one node at a time, for ``seconds``."""
        return bool(await self.r.set(key("queue", "reconciling"), owner, nx=True, px=int(seconds * 1000)))

    async def reconcile(self, league_id: str, chunk: int = 500) -> int:
        """Queue again every open match of the league that is nowhere: neither queued (new, or pending
        at a worker), parked, nor stored. Safe to run on several nodes at once: a match queued twice
        still gets one result. Returns how many were queued again."""
        where_key, open_key, running_key = (self._key(league_id, part) for part in ("where", "open", "running"))
        lost: list[str] = []
        cursor = 0
        while True:
            cursor, members = await self.r.sscan(open_key, cursor, count=chunk)
            ids = [text(m) for m in members]
            if ids:
                places = await self.r.hmget(where_key, ids)
                async with self.r.pipeline(transaction=False) as pipe:
                    for match_id, place in zip(ids, places, strict=True):
                        where = "" if place is None else text(place)
                        if where.startswith("p:"):
                            pipe.sismember(key("parked", where[2:]), f"{league_id} {match_id}")
                        elif where:
                            pipe.xrange(self.stream, where, where, count=1)
                        else:
                            pipe.exists(key("result", f"{league_id}:{match_id}"))  # nowhere, unless stored
                    found = await pipe.execute()
                lost += [m for m, seen in zip(ids, found, strict=True) if not seen]
            if cursor == 0:
                break
        running = [text(m) for m in await self.r.smembers(running_key)]
        if running:  # a crash can leave a match marked running whose result is stored
            still_open = await self.r.smismember(open_key, running)
            done = [m for m, is_open in zip(running, still_open, strict=True) if not is_open]
            if done:
                await self.r.srem(running_key, *done)
        for match_id in lost:
            await self._requeue(keys=[where_key, self.stream, running_key], args=[league_id, match_id])
        return len(lost)

    async def results(self, league_id: str) -> list[dict[str, Any]]:
        """Every stored result, in the order they arrived."""
        ids = [text(i) for i in await self.r.lrange(self._key(league_id, "results"), 0, -1)]
        results: list[dict[str, Any]] = []
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            values = await self.r.mget([key("result", f"{league_id}:{i}") for i in chunk])
            results.extend(json.loads(v) for v in values if v)
        return results

    async def results_before(self, league_id: str, before: int | None, count: int) -> list[tuple[int, dict[str, Any]]]:
        """Up to ``count`` stored results, newest first, from those stored before position
        ``before`` in the order of arrival (None: the newest), each with its position: one page's
        worth of reads, whatever the league's size. The order never changes (results are only
        appended), so a position is a stable place to go on from."""
        results_key = self._key(league_id, "results")
        stored = int(await self.r.llen(results_key))
        end = stored if before is None else min(before, stored)
        start = max(0, end - count)
        if end <= 0 or count <= 0:
            return []
        ids = [text(i) for i in await self.r.lrange(results_key, start, end - 1)]
        values = await self.r.mget([key("result", f"{league_id}:{i}") for i in ids]) if ids else []
        found = [(start + offset, json.loads(v)) for offset, v in enumerate(values) if v]
        return found[::-1]

    async def deal_counts(self, league_id: str, deal_ids: Sequence[str]) -> dict[str, int]:
        """How many results of each of these deals are stored (one pipelined LLEN a deal)."""
        unique = list(dict.fromkeys(deal_ids))
        async with self.r.pipeline(transaction=False) as pipe:
            for deal_id in unique:
                pipe.llen(self._key(league_id, f"deal:{deal_id}"))
            counts = await pipe.execute()
        return {deal_id: int(n) for deal_id, n in zip(unique, counts, strict=True)}

    async def run_of(self, match_id: str) -> str | None:
        """The record id of the run whose result counted for a league's or ladder's match, by the
        match's scheduled id (``LEAGUE.00012``: each run is ``LEAGUE.00012.<random>``); None for any
        other id, or a match with no stored result or none played (one that could not be)."""
        league_id, _, index = match_id.rpartition(".")
        if not league_id or not index.isdigit():
            return None
        stored = await self.r.get(key("result", f"{league_id}:{match_id}"))
        try:
            run = json.loads(stored).get("record_id") if stored is not None else None
        except (ValueError, AttributeError):
            return None
        return run if isinstance(run, str) and run != match_id else None

    async def deal_results(self, league_id: str, deal_id: str) -> list[dict[str, Any]]:
        """The stored results of one deal's matches, in the order they arrived."""
        ids = [text(i) for i in await self.r.lrange(self._key(league_id, f"deal:{deal_id}"), 0, -1)]
        values = await self.r.mget([key("result", f"{league_id}:{i}") for i in ids]) if ids else []
        return [json.loads(v) for v in values if v]

    async def progress(self, league_id: str) -> tuple[int, int, int]:
        """(total matches, done, running)."""
        async with self.r.pipeline(transaction=False) as pipe:
            pipe.hlen(self._key(league_id, "matches"))
            pipe.llen(self._key(league_id, "results"))
            pipe.scard(self._key(league_id, "running"))
            total, done, running = await pipe.execute()
        return int(total), int(done), int(running)

    async def cancel(self, league_id: str, at: float) -> None:
        """Mark the league cancelled (the first time counts); the reconciler leaves it alone."""
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(self._key(league_id, "cancelled"), str(at), nx=True)
            pipe.srem(key("leagues", "active"), league_id)
            await pipe.execute()

    async def is_cancelled(self, league_id: str) -> bool:
        """Whether the league was cancelled."""
        return bool(await self.r.exists(self._key(league_id, "cancelled")))
