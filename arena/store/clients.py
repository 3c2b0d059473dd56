"""Which client programs each bot connected with (its Hello's ``client_name`` and ``client_version``).

Shown on the bot's page ("languages and clients"). Bot-supplied text: cut to ``MAX_TEXT`` characters,
and at most ``MAX_CLIENTS`` distinct clients are kept per bot (the oldest seen forgotten), so a bot
cannot grow the store by changing its client string. Redis: ``arena:clients:{bot}`` is a hash from
``name\\x1fversion`` to the last time it was seen.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

import redis.asyncio as aioredis

from arena.store.redis_stores import key, text

MAX_TEXT = 64
MAX_CLIENTS = 8
SEPARATOR = "\x1f"


@dataclasses.dataclass(frozen=True, slots=True)
class ClientSeen:
    """One client program a bot connected with, and when it last did."""

    name: str
    version: str
    last_seen: float


class ClientBook(Protocol):
    """Where the clients bots connect with are noted."""

    async def seen(self, bot: str, name: str, version: str, at: float) -> None:
        """Note that ``bot`` connected with this client at ``at`` (wall-clock seconds)."""
        ...

    async def clients(self, bot: str) -> list[ClientSeen]:
        """The clients ``bot`` connected with, last seen first."""
        ...


def _trim(values: dict[str, float]) -> list[str]:
    """The entries past ``MAX_CLIENTS``, oldest first."""
    ordered = sorted(values, key=lambda k: values[k], reverse=True)
    return ordered[MAX_CLIENTS:]


def _parse(field: str, at: float) -> ClientSeen:
    name, _, version = field.partition(SEPARATOR)
    return ClientSeen(name, version, at)


class RedisClientBook:
    """Clients in one small hash per bot."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client

    async def seen(self, bot: str, name: str, version: str, at: float) -> None:
        """Note the client, forgetting the oldest past ``MAX_CLIENTS``."""
        name_key = key("clients", bot)
        await self._r.hset(name_key, f"{name[:MAX_TEXT]}{SEPARATOR}{version[:MAX_TEXT]}", repr(at))
        if int(await self._r.hlen(name_key)) > MAX_CLIENTS:
            values = {text(k): float(text(v)) for k, v in (await self._r.hgetall(name_key)).items()}
            old = _trim(values)
            if old:
                await self._r.hdel(name_key, *old)

    async def clients(self, bot: str) -> list[ClientSeen]:
        """Last seen first."""
        values = await self._r.hgetall(key("clients", bot))
        found = [_parse(text(k), float(text(v))) for k, v in values.items()]
        return sorted(found, key=lambda c: -c.last_seen)[:MAX_CLIENTS]
