"""One real redis-server for a module of store tests; each test gets a client on an emptied database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import connect


@pytest.fixture(scope="module")
def module_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """The arena's embedded redis-server, shared by one test module (cheaper than one a test)."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def client(module_redis: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    """A client of the module's redis-server, whose database the test starts empty."""
    redis = connect(module_redis.url)
    await redis.flushdb()
    try:
        yield redis
    finally:
        await redis.aclose()
