"""Bot registration and tokens (arena.service.auth), on the Redis token store."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from arena.errors import (
    AdminRequiredError,
    AuthError,
    BotNotFoundError,
    InvalidNameError,
    NameTakenError,
    NotRegisteredForGameError,
)
from arena.service.auth import BotRegistry, hash_token
from arena.store.redis_stores import RedisTokenStore

ADMIN = "the-admin-token"


async def test_registering_needs_the_admin_token_unless_registration_is_open(arena_client: aioredis.Redis) -> None:
    closed = BotRegistry(RedisTokenStore(arena_client), ADMIN)
    with pytest.raises(AdminRequiredError):
        await closed.register("ann")
    with pytest.raises(AdminRequiredError):
        await closed.register("ann", "wrong")
    token = await closed.register("ann", ADMIN)
    assert await closed.authenticate(token) == "ann"
    open_ = BotRegistry(RedisTokenStore(arena_client), ADMIN, open_registration=True)
    assert await open_.authenticate(await open_.register("bob")) == "bob"
    with pytest.raises(AdminRequiredError):
        open_.check_admin(None)  # open registration opens registering, not the admin's calls
    assert not BotRegistry(RedisTokenStore(arena_client)).is_admin("")


async def test_names_are_checked_unique_regardless_of_case_and_never_stored_in_clear(
    arena_client: aioredis.Redis,
) -> None:
    store = RedisTokenStore(arena_client)
    registry = BotRegistry(store, ADMIN)
    token = await registry.register("Ann@v2", ADMIN)
    assert hash_token(token) != token and await store.name_for(hash_token(token)) == "Ann@v2"
    with pytest.raises(NameTakenError, match="regardless of case"):
        await registry.register("ann@V2", ADMIN)
    with pytest.raises(InvalidNameError, match="invalid bot name '-ann'"):
        await registry.register("-ann", ADMIN)


async def test_revoking_and_rotating_stop_the_old_token_at_once(arena_client: aioredis.Redis) -> None:
    registry = BotRegistry(RedisTokenStore(arena_client), ADMIN)
    old = await registry.register("ann", ADMIN)
    new = await registry.rotate("ann", ADMIN)
    with pytest.raises(AuthError, match="unknown bot token"):
        await registry.authenticate(old)
    assert await registry.authenticate(new) == "ann"
    await registry.revoke("ann", ADMIN)
    with pytest.raises(AuthError):
        await registry.authenticate(new)
    with pytest.raises(BotNotFoundError, match="no bot named 'bob'"):
        await registry.rotate("bob", ADMIN)
    with pytest.raises(AdminRequiredError):
        await registry.revoke("ann", None)
    await registry.check_registered("ann")  # the name stays the bot's


async def test_a_bot_plays_the_games_it_is_registered_for_or_every_game(arena_client: aioredis.Redis) -> None:
    registry = BotRegistry(RedisTokenStore(arena_client), ADMIN)
    await registry.register("ann", ADMIN, ["5211"])
    await registry.register("bob", ADMIN)
    await registry.check_plays(["ann", "bob", "ann"], "5211")
    await registry.check_plays(["bob"], "azul")
    with pytest.raises(NotRegisteredForGameError, match="bot 'ann' is not registered for game 'azul'"):
        await registry.check_plays(["bob", "ann"], "azul")
    with pytest.raises(NotRegisteredForGameError, match="no bot named 'cat'"):
        await registry.check_plays(["cat"], "5211")
