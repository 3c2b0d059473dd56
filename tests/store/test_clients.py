"""The client book (arena.store.clients): in memory and on a real redis-server, the same answers."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from arena.store.clients import MAX_CLIENTS, MAX_TEXT, ClientBook, ClientSeen, RedisClientBook


@pytest.fixture
def book(client: aioredis.Redis) -> ClientBook:
    return RedisClientBook(client)


async def test_clients_are_listed_last_seen_first_with_one_entry_per_name_and_version(book: ClientBook) -> None:
    await book.seen("ann", "arena-bot", "1.0", 10.0)
    await book.seen("ann", "arena-bot-go", "0.3", 11.0)
    await book.seen("ann", "arena-bot", "1.0", 12.0)  # seen again: one entry, its time moves on
    await book.seen("bob", "rawbot", "", 13.0)
    assert await book.clients("ann") == [ClientSeen("arena-bot", "1.0", 12.0), ClientSeen("arena-bot-go", "0.3", 11.0)]
    assert await book.clients("bob") == [ClientSeen("rawbot", "", 13.0)]
    assert await book.clients("nobody") == []


async def test_a_bot_cannot_grow_the_book_with_long_or_ever_new_client_strings(book: ClientBook) -> None:
    await book.seen("ann", "n" * 1000, "v" * 1000, 1.0)
    [long] = await book.clients("ann")
    assert (len(long.name), len(long.version)) == (MAX_TEXT, MAX_TEXT)
    for n in range(MAX_CLIENTS + 5):
        await book.seen("ann", f"client{n}", "1", 10.0 + n)
    kept = await book.clients("ann")
    assert [c.name for c in kept] == [f"client{n}" for n in reversed(range(5, MAX_CLIENTS + 5))]
