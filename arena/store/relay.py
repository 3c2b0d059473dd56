"""The relay's Redis side: each node's inbox stream, and which node each connected bot is on.

Each node has an inbox, a Redis stream ``arena:relay:{node}``, which other nodes post to and it alone
reads; where each bot is connected is kept by its home node (``arena:botat:{bot}``, with its capacity
and games, refreshed with the node's heartbeat and expiring when the node dies). The relay itself
(``arena.service.relay``) speaks only through these two classes.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis

from arena.store.match_queue import Entry
from arena.store.redis_stores import key, text

log = logging.getLogger("arena.service.relay")  # the relay's log, as before its Redis side moved here

INBOX_LENGTH = 100_000
"""Each inbox is trimmed to about this many messages."""
PRESENCE_SECONDS = 15
"""A bot's whereabouts expire this long after its node last refreshed them."""
PRESENCE_CHUNK = 250
"""Bots announced by one script call: the loop and Redis run other work between two."""

_HERE = """
local node, ttl, expiry = ARGV[1], ARGV[2], ARGV[3]
local online = KEYS[#KEYS]
local back = {}
for i = 1, #KEYS - 1, 3 do
  local at = i + 3
  if redis.call('GET', KEYS[i]) ~= node then table.insert(back, ARGV[at + 2]) end
  redis.call('SET', KEYS[i], node, 'EX', ttl)
  redis.call('SET', KEYS[i + 1], ARGV[at], 'EX', ttl)
  redis.call('SET', KEYS[i + 2], ARGV[at + 1], 'EX', ttl)
  redis.call('ZADD', online, expiry, ARGV[at + 2])
end
return back
"""

_FORGET_IF_MINE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('ZREM', KEYS[4], ARGV[2])
  return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
end
return 0
"""


class BotDirectory:
    """Which node each connected bot is on."""

    def __init__(self, client: aioredis.Redis, node_id: str) -> None:
        self.r = client
        self.node_id = node_id
        self._forget = client.register_script(_FORGET_IF_MINE)
        self._here = client.register_script(_HERE)

    async def here(self, bots: Mapping[str, int], plays: Mapping[str, Iterable[str]] | None = None) -> list[str]:
        """These bots are connected to this node, each with the matches at once it asked for and
        the games its connection plays (refreshes their entries; ``arena:online`` lists them all
        for the ladders' matchmaker). One script call for each ``PRESENCE_CHUNK`` bots: a pipeline of
        four commands a bot held the loop for about a second at every heartbeat of a node with 10,000.
        Returns the bots that were not said to be here: new ones, and ones whose entry had lapsed
        (the node stalled, or Redis was away, for longer than ``PRESENCE_SECONDS``)."""
        plays = plays or {}
        until = time.time() + PRESENCE_SECONDS
        names = list(bots)
        back: list[str] = []
        for start in range(0, len(names), PRESENCE_CHUNK):
            keys: list[str] = []
            args: list[str | int | float] = [self.node_id, PRESENCE_SECONDS, until]
            for bot in names[start : start + PRESENCE_CHUNK]:
                keys += (key("botat", bot), key("botcap", bot), key("botplays", bot))
                args += (bots[bot], json.dumps(sorted(plays.get(bot, ()))), bot)
            keys.append(key("online"))
            back += [text(bot) for bot in await self._here(keys=keys, args=args)]
        return back

    async def clear(self) -> int:
        """Forget the bots that an earlier instance under this node's id said were here (call before
        this one serves): the entries of a node that crashed, or stopped, outlive it by up to
        ``PRESENCE_SECONDS``, and would send their matches to this instance, which has not those bots.
        Returns how many were forgotten."""
        forgotten, cursor = 0, 0
        while True:
            cursor, members = await self.r.zscan(key("online"), cursor, count=500)
            bots = [text(member) for member, _score in members]
            homes = await self.r.mget([key("botat", bot) for bot in bots]) if bots else []
            mine = [
                bot for bot, home in zip(bots, homes, strict=True) if home is not None and text(home) == self.node_id
            ]
            if mine:
                async with self.r.pipeline(transaction=False) as pipe:
                    for bot in mine:
                        await self._forget(keys=self._keys(bot), args=[self.node_id, bot], client=pipe)
                    await pipe.execute()
            forgotten += len(mine)
            if not cursor:
                return forgotten

    async def gone(self, bot: str) -> None:
        """The bot left this node (unless it is already on another)."""
        await self._forget(keys=self._keys(bot), args=[self.node_id, bot])

    @staticmethod
    def _keys(bot: str) -> list[str]:
        """The keys ``_FORGET_IF_MINE`` reads and deletes for ``bot``."""
        return [key("botat", bot), key("botcap", bot), key("botplays", bot), key("online")]

    async def online(self) -> int:
        """How many bots are connected to the arena's nodes (entries not lapsed; one command)."""
        return int(await self.r.zcount(key("online"), time.time(), "+inf"))

    async def where(self, bot: str) -> str | None:
        """The node the bot is connected to, if any."""
        node = await self.r.get(key("botat", bot))
        return None if node is None else text(node)


class RelayStore:
    """The nodes' relay inboxes, seen from one node (``node_id``), and its bot directory."""

    def __init__(self, client: aioredis.Redis, node_id: str) -> None:
        self.r = client
        self.node_id = node_id
        self.directory = BotDirectory(client, node_id)

    async def post(self, node: str, messages: Sequence[Mapping[str, str]]) -> None:
        """Append ``messages`` to ``node``'s inbox, in order, in one round trip."""
        inbox = key("relay", node)
        async with self.r.pipeline(transaction=False) as pipe:
            for message in messages:
                pipe.xadd(inbox, dict(message), maxlen=INBOX_LENGTH, approximate=True)  # type: ignore[arg-type]
            await pipe.execute()

    async def tail(self) -> str:
        """The id of the last message in this node's inbox ("0-0" for none): read after it, a node
        sees everything posted from now on, with no gap between two reads."""
        newest = await self.r.xrevrange(key("relay", self.node_id), count=1)
        return text(newest[0][0]) if newest else "0-0"

    async def read(self, last: str, count: int, block_ms: int) -> list[Entry]:
        """This node's messages after the entry id ``last`` (start from ``tail()``), at most
        ``count``, waiting up to ``block_ms`` for the first."""
        reply = await self.r.xread({key("relay", self.node_id): last}, count=count, block=block_ms)
        streams: list[Any] = list(reply or [])  # RESP2: [[stream, [[id, fields], ...]]]
        found: list[Entry] = []
        for _stream, entries in streams:
            for entry_id, fields in entries:
                try:
                    found.append((text(entry_id), {text(k): text(v) for k, v in fields.items()}))
                except UnicodeDecodeError:
                    log.exception("bad relay message %s", entry_id)
        return found

    async def alive(self, nodes: Iterable[str]) -> dict[str, bool]:
        """Whether each node has a live heartbeat, in one round trip."""
        return {node: instance is not None for node, instance in (await self.instances(nodes)).items()}

    async def instances(self, nodes: Iterable[str]) -> dict[str, str | None]:
        """Each node's instance (``NodeDirectory.instance``: new at each start of a node, so a node
        restarted under its id has another), None for a node with no live heartbeat; one round trip."""
        names = list(nodes)
        async with self.r.pipeline(transaction=False) as pipe:
            for node in names:
                pipe.hget(key("node", node), "instance")
            found = await pipe.execute()
        return {node: None if held is None else text(held) for node, held in zip(names, found, strict=True)}
