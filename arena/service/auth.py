"""Bot identity: names and tokens. Tokens are random and stored only as hashes."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from typing import Protocol

from arena.errors import ArenaError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class AuthError(ArenaError):
    """A token is missing, unknown or not allowed to do this."""


class AdminRequiredError(AuthError):
    """The call needs the admin token."""


class NameTakenError(ArenaError):
    """A bot of that name is already registered."""


class InvalidNameError(ArenaError, ValueError):
    """A bot name does not fit the allowed pattern."""


class NotRegisteredForGameError(ArenaError):
    """A bot is asked to play a game it is not registered for (or is not registered at all)."""


def hash_token(token: str) -> str:
    """The stored form of a token (SHA-256; tokens carry 256 random bits, so no salt is needed)."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenStore(Protocol):
    """Where bot names and token hashes live (in memory, or Redis)."""

    async def add(self, name: str, token_hash: str) -> bool:
        """Store a new bot; False if the name exists."""
        ...

    async def games_of(self, name: str) -> frozenset[str] | None:
        """The games a bot is registered for (empty: every game); None if there is no such bot."""
        ...

    async def name_for(self, token_hash: str) -> str | None:
        """The bot with this token hash, if any."""
        ...

    async def names(self) -> list[str]:
        """Every registered bot name."""
        ...


class MemoryTokenStore:
    """Token hashes in a dict (a single node without Redis, and tests)."""

    def __init__(self) -> None:
        self._by_hash: dict[str, str] = {}
        self._names: set[str] = set()

    async def add(self, name: str, token_hash: str) -> bool:
        """Store a new bot; False if the name exists."""
        if name in self._names:
            return False
        self._names.add(name)
        self._by_hash[token_hash] = name
        return True

    async def games_of(self, name: str) -> frozenset[str] | None:
        """Every game (empty) for a registered bot; None if there is no such bot."""
        return frozenset() if name in self._names else None

    async def name_for(self, token_hash: str) -> str | None:
        """The bot with this token hash, if any."""
        return self._by_hash.get(token_hash)

    async def names(self) -> list[str]:
        """Every registered bot name."""
        return sorted(self._names)


class BotRegistry:
    """Registers bots and authenticates their tokens."""

    def __init__(self, store: TokenStore, admin_token: str | None = None, open_registration: bool = False) -> None:
        self._store = store
        self._admin_hash = hash_token(admin_token) if admin_token else None
        self.open_registration = open_registration

    def is_admin(self, token: str | None) -> bool:
        """Whether ``token`` is the admin token."""
        if self._admin_hash is None or not token:
            return False
        return hmac.compare_digest(hash_token(token), self._admin_hash)

    def check_admin(self, token: str | None) -> None:
        """Raise ``AuthError`` unless ``token`` is the admin token."""
        if not self.is_admin(token):
            raise AdminRequiredError("this call needs the admin token (metadata 'authorization: Bearer <token>')")

    async def register(self, name: str, admin_token: str | None = None) -> str:
        """Register a bot and return its token (shown once, never stored in clear)."""
        if not self.open_registration:
            self.check_admin(admin_token)
        if not NAME_PATTERN.match(name):
            raise InvalidNameError(
                f"invalid bot name {name[:80]!r}: use 1-64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit"
            )
        token = secrets.token_urlsafe(32)
        if not await self._store.add(name, hash_token(token)):
            raise NameTakenError(f"a bot named {name!r} is already registered")
        return token

    async def authenticate(self, token: str) -> str:
        """The name of the bot holding ``token``; raises ``AuthError``."""
        name = await self._store.name_for(hash_token(token)) if token else None
        if name is None:
            raise AuthError("unknown bot token")
        return name

    async def names(self) -> list[str]:
        """Every registered bot."""
        return await self._store.names()

    async def check_plays(self, names: Iterable[str], game: str) -> None:
        """Raise ``NotRegisteredForGameError`` unless every bot named is registered for ``game``
        (one bounded lookup per bot, never a scan of every bot)."""
        for name in dict.fromkeys(names):
            games = await self._store.games_of(name)
            if games is None:
                raise NotRegisteredForGameError(f"no bot named {name[:80]!r} is registered")
            if games and game not in games:
                raise NotRegisteredForGameError(f"bot {name[:80]!r} is not registered for game {game[:80]!r}")
