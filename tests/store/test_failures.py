"""The arena's failure counts (arena/store/failures.py) on the session's real redis-server."""

from __future__ import annotations

import socket

import redis.asyncio as aioredis

from arena.store.failures import FailureKind, SharedFailures


async def test_failures_count_over_nodes_and_kinds_apart(client: aioredis.Redis) -> None:
    one, other = SharedFailures(client, 60.0), SharedFailures(client, 60.0)
    hello_one, hello_other = one.counter(FailureKind.HELLO), other.counter(FailureKind.HELLO)
    assert [await hello_one("10.0.0.1"), await hello_other("10.0.0.1")] == [1, 2]
    assert await other.counter(FailureKind.ADMIN_TOKEN)("10.0.0.1") == 1
    assert await hello_one("10.0.0.2") == 1
    ttl = await client.pttl(next(iter([k async for k in client.scan_iter("*failures:hello*10.0.0.1*")])))
    assert 0 < ttl <= 60_000


async def test_a_store_that_cannot_be_reached_counts_nothing() -> None:
    with socket.socket() as probe:  # a port on which nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gone = aioredis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    try:
        assert await SharedFailures(gone, 60.0).counter(FailureKind.HELLO)("10.0.0.1") == 0
    finally:
        await gone.aclose()
