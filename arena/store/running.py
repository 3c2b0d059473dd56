"""Every node's running matches, in Redis, so that any node lists them (ListMatches, the web site).

The refereeing node lists a match when it starts it and unlists it when it ends:

- ``arena:running-match:{id}`` → its summary (JSON: the :class:`MatchSummary` fields, the referee's
  node, whether it is sealed); nothing of a match that its summary would not show locally;
- ``arena:running:{filter…}`` → sorted sets of match ids by start time, one per list filter (the
  finished matches' filters, :func:`index_names`), so a filtered page is one range of one set;
- ``arena:running-on:{node}`` → the ids a node referees, and ``arena:running-nodes`` → the nodes
  with any.

A sealed match (a rotation of a duplicate deal) is in no list: it has its summary and its place
among its node's ids (so that any node asked for it by id says it is sealed, and a dead node's
entries are swept), never a place in a filter's set. A list skips a sealed entry in a set too (one
that a node of an earlier version put there), counting it against its ``SCAN`` bound as it counts a
dead node's.

A node that dies leaves its entries behind: a list skips every match whose node has no heartbeat
(``arena:node:{id}``, :mod:`arena.store.nodes`), each live node's heartbeat sweeps away a bounded
part of the dead nodes' entries (:meth:`RunningIndex.sweep`), and a node starting under an id
clears what its earlier instance left (:meth:`RunningIndex.clear`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Container, Iterable, Sequence
from typing import Any

import redis.asyncio as aioredis

from arena.store.chain import ScriptCall
from arena.store.match_index import MatchQuery, MatchSummary, Phase, Position, index_names
from arena.store.redis_stores import key, text

log = logging.getLogger(__name__)

SCAN = 500
"""The most index entries one list call looks at (stale ones of dead nodes included)."""
SWEEP = 200
"""The most matches of one dead node a sweep unlists."""
PRUNE_SECONDS = 60.0
"""A node's listed match that it does not run is unlisted by its heartbeat once it started this long ago."""
NODES_KEY = key("running-nodes")


@dataclasses.dataclass(frozen=True, slots=True)
class RunningEntry:
    """A listed running match: its summary, the node refereeing it, and whether it is sealed."""

    info: MatchSummary
    node: str
    sealed: bool
    address: str = ""
    """The referee's address from its heartbeat (set by :meth:`RunningIndex.find`)."""

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(self.info.to_dict() | {"node": self.node, "sealed": self.sealed})

    @classmethod
    def from_json(cls, raw: bytes | str) -> RunningEntry:
        """Read :meth:`to_json` back."""
        data: dict[str, Any] = json.loads(raw)
        info = dataclasses.replace(MatchSummary.from_dict(data), phase=Phase.RUNNING)
        return cls(info, str(data["node"]), bool(data.get("sealed")))


_LIST = """
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
for i = 4, #KEYS do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[2]) end
"""
"""List a running match (KEYS: its entry, its node's set, the nodes' set, then its filters' sets;
ARGV: the entry's JSON, the match id, the node id, the start time)."""
_UNLIST = """
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
"""
"""Unlist one (KEYS: its entry, its node's set, then its filters' sets; ARGV: the match id)."""


def _unlisting(node: str, info: MatchSummary) -> tuple[list[str], list[str]]:
    """``_UNLIST``'s keys and arguments for one match of ``node``."""
    keys = [key("running-match", info.match_id), key("running-on", node)]
    return keys + [running_key(name) for name in index_names(info)], [info.match_id]


def running_key(name: tuple[str, ...]) -> str:
    """The sorted set of one filter of running matches."""
    return ":".join((key("running"), *name))


class RunningIndex:
    """The arena's running matches, written by their referees and read by every node."""

    def __init__(self, client: aioredis.Redis, node_id: str) -> None:
        self.r = client
        self.node_id = node_id
        self._unlist_one = client.register_script(_UNLIST)

    def listing(self, info: MatchSummary, sealed: bool) -> ScriptCall:
        """The write that lists a match this node referees (``info.started_at`` orders it), run in the
        match's one call as it starts (``ScriptChain``); a ``sealed`` one is only known by its id
        (:meth:`find`), in no list."""
        entry = RunningEntry(info, self.node_id, sealed)
        keys = [key("running-match", info.match_id), key("running-on", self.node_id), NODES_KEY]
        if not sealed:
            keys += [running_key(name) for name in index_names(info)]
        return ScriptCall(_LIST, keys, [entry.to_json(), info.match_id, self.node_id, repr(info.started_at)])

    async def ended(self, info: MatchSummary) -> None:
        """Unlist a match this node refereed."""
        await self._unlist(self.node_id, [info])

    def unlisting(self, info: MatchSummary) -> ScriptCall:
        """``ended``'s write, to run with others (``ScriptChain``)."""
        return ScriptCall(_UNLIST, *_unlisting(self.node_id, info))

    async def _unlist(self, node: str, infos: list[MatchSummary]) -> None:
        if len(infos) == 1:
            await self._unlist_one(*_unlisting(node, infos[0]))
            return
        async with self.r.pipeline(transaction=True) as pipe:
            for info in infos:
                await self._unlist_one(*_unlisting(node, info), client=pipe)
            await pipe.execute()

    async def page(
        self, query: MatchQuery, after: Position | None, limit: int
    ) -> tuple[list[MatchSummary], Position | None]:
        """Up to ``limit`` summaries of unsealed running matches of live nodes fitting ``query``,
        newest started first, strictly after ``after``; and, when ``SCAN`` entries were looked at
        before ``limit`` were found, the position of the last one (the list goes on from there;
        None: the index holds no more, or ``limit`` were found)."""
        name = running_key(query.index_keys())
        top = "+inf" if after is None else repr(after[0])
        found: list[MatchSummary] = []
        last, offset, budget = after, 0, SCAN
        while budget > 0:
            count = min(budget, limit - len(found) + 16)
            # Ties of start time come in descending id order, as positions compare.
            pairs: list[tuple[bytes, float]] = await self.r.zrevrangebyscore(  # type: ignore[assignment]
                name, top, "-inf", start=offset, num=count + 1, withscores=True
            )
            more = len(pairs) > count  # one more than is looked at says whether the index goes on
            pairs = pairs[:count]
            offset += len(pairs)
            budget -= len(pairs)
            positions = [(float(score), text(member)) for member, score in pairs]
            fresh = [p for p in positions if after is None or p < after]
            for position, info in zip(fresh, await self._listed(p[1] for p in fresh), strict=True):
                last = position
                if info is not None and query.fits(info):
                    found.append(info)
                    if len(found) == limit:
                        return found, None
            if not more:
                return found, None
        return found, last

    async def _listed(self, match_ids: Iterable[str]) -> list[MatchSummary | None]:
        """The summaries of these matches, None for one that ended, whose node is dead, or that is
        sealed (an earlier version indexed sealed matches too)."""
        ids = list(match_ids)
        if not ids:
            return []
        raws = await self.r.mget([key("running-match", i) for i in ids])
        entries = [RunningEntry.from_json(raw) if raw is not None else None for raw in raws]
        shown = [e if e is not None and not e.sealed else None for e in entries]
        alive = await self._alive({e.node for e in shown if e is not None})
        return [e.info if e is not None and e.node in alive else None for e in shown]

    async def _alive(self, nodes: set[str]) -> dict[str, str]:
        """The live ones of ``nodes``, with the address each heartbeat gives."""
        names = sorted(nodes)
        async with self.r.pipeline(transaction=False) as pipe:
            for node in names:
                pipe.hget(key("node", node), "address")
            addresses = await pipe.execute()
        return {node: text(a) for node, a in zip(names, addresses, strict=True) if a is not None}

    async def find(self, match_id: str) -> RunningEntry | None:
        """The match if it runs on a live node (with that node's address), else None."""
        raw = await self.r.get(key("running-match", match_id))
        if raw is None:
            return None
        entry = RunningEntry.from_json(raw)
        address = (await self._alive({entry.node})).get(entry.node)
        return None if address is None else dataclasses.replace(entry, address=address)

    async def nodes_of(self, match_ids: Sequence[str]) -> list[str | None]:
        """The node each match is listed on (sealed ones too), None for one not listed: it ended,
        or its node was swept or restarted (``clear``). One round trip; it does not look at heartbeats."""
        if not match_ids:
            return []
        raws = await self.r.mget([key("running-match", m) for m in match_ids])
        return [None if raw is None else RunningEntry.from_json(raw).node for raw in raws]

    async def sweep(self) -> None:
        """Unlist up to ``SWEEP`` matches of each node that has running entries and no heartbeat."""
        nodes = {text(n) for n in await self.r.smembers(NODES_KEY)} - {self.node_id}
        if not nodes:
            return
        alive = await self._alive(nodes)
        for node in sorted(nodes - alive.keys()):
            await self.forget(node, SWEEP)

    async def clear(self) -> None:
        """Unlist whatever an earlier instance of this node left (call before it referees)."""
        while await self.forget(self.node_id, SWEEP) == SWEEP:
            pass

    async def prune(self, running: Container[str], now: float) -> None:
        """Unlist this node's listed matches that it does not run (``running``, read after the
        index) and that started ``PRUNE_SECONDS`` before ``now`` or more (a match is listed just
        before it runs): those whose unlisting at their end failed, Redis being away."""
        members: set[bytes] = await self.r.smembers(key("running-on", self.node_id))  # type: ignore[assignment]
        ids = [i for i in map(text, members) if i not in running]
        if not ids:
            return
        raws = await self.r.mget([key("running-match", i) for i in ids])
        entries = {i: RunningEntry.from_json(raw) for i, raw in zip(ids, raws, strict=True) if raw is not None}
        stale = [
            i
            for i in ids
            if i not in running and (i not in entries or now - entries[i].info.started_at >= PRUNE_SECONDS)
        ]
        if stale:
            await self._unlist(self.node_id, [entries[i].info for i in stale if i in entries])
            await self.r.srem(key("running-on", self.node_id), *stale)
            log.warning("unlisted %d matches this node no longer runs (their unlisting had failed)", len(stale))

    async def forget(self, node: str, most: int) -> int:
        """Unlist up to ``most`` of ``node``'s matches; returns how many (0: it has none left)."""
        members: list[bytes] = await self.r.srandmember(key("running-on", node), most)  # type: ignore[assignment]
        ids = [text(i) for i in members]
        if not ids:
            await self.r.srem(NODES_KEY, node)
            return 0
        raws = await self.r.mget([key("running-match", i) for i in ids])
        infos = [RunningEntry.from_json(raw).info for raw in raws if raw is not None]
        await self._unlist(node, infos)
        await self.r.srem(key("running-on", node), *ids)  # an id whose summary was gone already
        if len(ids) < most:
            await self.r.srem(NODES_KEY, node)
        return len(ids)
