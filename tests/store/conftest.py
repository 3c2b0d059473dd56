"""Store tests run on the session's real redis-server (``arena_redis``, tests/grpc/harness.py): each
test gets a client on an emptied database."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis


@pytest.fixture
def client(arena_client: aioredis.Redis) -> aioredis.Redis:
    """A client of the session's redis-server, whose database the test starts empty."""
    return arena_client
