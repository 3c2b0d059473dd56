"""Bot tokens over gRPC: the admin revokes or rotates one; a revoked or rotated-away token's live
connection is closed (UNAUTHENTICATED) and it can no longer Hello; tokens never start with '-'."""

from __future__ import annotations

import asyncio

import grpc
import pytest
import redis.asyncio as aioredis

from arena.service.auth import BotRegistry, TokenStore, hash_token
from arena.store.redis_stores import RedisTokenStore
from arena.v1 import common_pb2, registry_pb2, registry_pb2_grpc
from tests.grpc.harness import ADMIN_METADATA, Arena
from tests.grpc.rawbot import RawBot


def registry(arena: Arena) -> registry_pb2_grpc.RegistryServiceAsyncStub:
    return registry_pb2_grpc.RegistryServiceStub(arena.channel)


async def hello(arena: Arena, token: str) -> RawBot:
    """A bot that says Hello with ``token``; returns once it is welcomed or refused."""
    bot = RawBot(arena.address, token).start()
    arena.bots.append(bot)
    welcomed = asyncio.ensure_future(bot.welcomed.wait())
    assert bot._task is not None  # start() made it
    await asyncio.wait([welcomed, bot._task], timeout=10, return_when=asyncio.FIRST_COMPLETED)
    welcomed.cancel()
    return bot


async def test_tokens_start_with_the_arena_prefix_never_a_dash(arena: Arena) -> None:
    tokens = [await arena.register(f"b{i}") for i in range(64)]
    assert all(token.startswith("arena_") and len(token) >= 48 for token in tokens)


async def test_a_revoked_token_is_disconnected_and_cannot_hello_again(arena: Arena) -> None:
    token = await arena.register("alice")
    bot = await hello(arena, token)
    assert bot.welcomed.is_set()
    await registry(arena).RevokeToken(registry_pb2.RevokeTokenRequest(name="alice"), metadata=ADMIN_METADATA)
    await asyncio.wait_for(bot._task, 5)  # type: ignore[arg-type]
    assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked" in (bot.error.details() or "")
    again = await hello(arena, token)
    assert not again.welcomed.is_set()
    assert again.error is not None and again.error.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as taken:  # the name stays the bot's
        await arena.register("alice")
    assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS


async def test_rotating_a_token_closes_the_old_ones_connection_and_the_new_one_plays(arena: Arena) -> None:
    old = await arena.register("bob")
    bot = await hello(arena, old)
    response = await registry(arena).RotateToken(registry_pb2.RotateTokenRequest(name="bob"), metadata=ADMIN_METADATA)
    new = response.token
    assert new.startswith("arena_") and new != old
    await asyncio.wait_for(bot._task, 5)  # type: ignore[arg-type]
    assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAUTHENTICATED
    refused = await hello(arena, old)
    assert refused.error is not None and refused.error.code() == grpc.StatusCode.UNAUTHENTICATED
    renewed = await hello(arena, new)
    assert renewed.welcomed.is_set()
    await arena.connect("carol")
    match_id = await arena.start_match(["bob", "carol"], seed=3)
    ended = await renewed.wait_ended(match_id)
    assert ended.outcome.termination == common_pb2.TERMINATION_NORMAL


async def test_revoke_and_rotate_need_the_admin_token_and_a_registered_bot(arena: Arena) -> None:
    token = await arena.register("dave")
    for call in (
        registry(arena).RevokeToken(registry_pb2.RevokeTokenRequest(name="dave")),
        registry(arena).RotateToken(
            registry_pb2.RotateTokenRequest(name="dave"), metadata=(("authorization", f"Bearer {token}"),)
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as denied:
            await call
        assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert (await hello(arena, token)).welcomed.is_set()  # nothing changed
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await registry(arena).RotateToken(registry_pb2.RotateTokenRequest(name="nobody"), metadata=ADMIN_METADATA)
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert "'nobody'" in (missing.value.details() or "")


async def test_a_connection_is_closed_when_its_token_is_revoked_elsewhere(arena: Arena) -> None:
    """Another node sharing the store revokes the token: this node notices within a keep-alive."""
    token = await arena.register("erin")
    bot = await hello(arena, token)
    await arena.node.registry.revoke("erin", "admin-secret-for-tests")  # the store only: no local close
    await asyncio.wait_for(bot._task, 5)  # type: ignore[arg-type]
    assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.fixture
def store(arena_client: aioredis.Redis) -> TokenStore:
    return RedisTokenStore(arena_client)


async def test_the_token_store_revokes_and_rotates(store: TokenStore) -> None:
    bots = BotRegistry(store, "admin")
    first = await bots.register("frank", "admin")
    assert await bots.authenticate(first) == "frank"
    second = await bots.rotate("frank", "admin")
    assert await store.name_for(hash_token(first)) is None
    assert await bots.authenticate(second) == "frank"
    await bots.revoke("frank", "admin")
    assert await store.name_for(hash_token(second)) is None
    assert await store.games_of("frank") is not None  # revoked, still registered
    third = await bots.rotate("frank", "admin")  # a revoked bot can be given a token again
    assert await bots.authenticate(third) == "frank"
