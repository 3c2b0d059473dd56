"""Bot identity: names and tokens. Tokens are random and stored only as hashes."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from arena.errors import (
    AdminRequiredError,
    AuthError,
    BotNotFoundError,
    InvalidNameError,
    NameTakenError,
    NotRegisteredForGameError,
    UnknownGameError,
    echo,
)
from arena.games.lookup import GAMES

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?:@[A-Za-z0-9][A-Za-z0-9_.-]{0,31})?")
"""A bot name, matched in full (``fullmatch``: no trailing newline). Unique regardless of case.
``name@version`` (one ``@``, a version of up to 32 characters) names a version of bot ``name``
(``arena.ladder.versions``)."""


ADMIN_REQUIRED = "this call needs the admin token (metadata 'authorization: Bearer <token>')"
"""What a call that needs the admin token is told without it."""

TOKEN_PREFIX = "arena_"
"""Every token the arena makes starts with this: never with '-' (so no command line mistakes it for
an option), and recognisable to secret scanners."""


def new_token() -> str:
    """A fresh secret token: the prefix and 256 random bits."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def registered_games(games: Iterable[str]) -> frozenset[str]:
    """The games a bot registers for (empty = every game the arena has); raises ``UnknownGameError``."""
    wanted = frozenset(games)
    unknown = sorted(wanted - GAMES.keys())
    if unknown:
        shown = ", ".join(echo(game) for game in unknown[:3])
        raise UnknownGameError(f"unknown game {shown}; this arena plays {', '.join(sorted(GAMES))}")
    return wanted or frozenset(GAMES)


def hash_token(token: str) -> str:
    """The stored form of a token (SHA-256; tokens carry 256 random bits, so no salt is needed)."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenStore(Protocol):
    """Where bot names and token hashes live (Redis; a protocol so the registry names no client)."""

    async def add(self, name: str, token_hash: str, games: frozenset[str]) -> bool:
        """Store a new bot and its games; False if the name exists, regardless of case."""
        ...

    async def games_of(self, name: str) -> frozenset[str] | None:
        """The games a bot is registered for (empty: every game); None if there is no such bot."""
        ...

    async def games_of_each(self, names: Sequence[str]) -> list[frozenset[str] | None]:
        """``games_of`` for each name, in order, in one round trip."""
        ...

    async def name_for(self, token_hash: str) -> str | None:
        """The bot with this token hash, if any."""
        ...

    async def names_for(self, token_hashes: Sequence[str]) -> list[str | None]:
        """``name_for`` for each hash, in order, in one round trip."""
        ...

    async def replace(self, name: str, token_hash: str | None) -> bool:
        """Give a bot a new token hash (None: no token at all), forgetting the old one at once;
        False if no bot has that name."""
        ...


class BotRegistry:
    """Registers bots and authenticates their tokens."""

    def __init__(self, store: TokenStore, admin_token: str | None = None, open_registration: bool = False) -> None:
        self._store = store
        self.make_token: Callable[[], str] = new_token
        """Where new tokens come from (a test may choose awkward ones, e.g. starting with '-')."""
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
            raise AdminRequiredError(ADMIN_REQUIRED)

    async def register(self, name: str, admin_token: str | None = None, games: Iterable[str] = ()) -> str:
        """Register a bot for ``games`` (empty = every game, see ``registered_games``) and return its
        token (shown once, never stored in clear).

        Raises ``AdminRequiredError`` without the admin token (unless registration is open), ``InvalidNameError``
        for a name outside the pattern, ``NameTakenError`` for a name in use.
        """
        if not self.open_registration:
            self.check_admin(admin_token)
        if not NAME_PATTERN.fullmatch(name):
            raise InvalidNameError(
                f"invalid bot name {echo(name)}: use 1-64 letters, digits, '.', '_' or '-', "
                "starting with a letter or digit, optionally followed by @version (1-32 of the same)"
            )
        plays = registered_games(games)
        token = self.make_token()
        if not await self._store.add(name, hash_token(token), plays):
            raise NameTakenError(
                f"a bot named {echo(name)} is already registered (names are unique regardless of case)"
            )
        return token

    async def revoke(self, name: str, admin_token: str | None) -> None:
        """Revoke a bot's token (admin only): it stops working at once; the name stays the bot's.

        Raises ``AdminRequiredError`` without the admin token, ``BotNotFoundError`` for an unknown name.
        """
        self.check_admin(admin_token)
        if not await self._store.replace(name, None):
            raise BotNotFoundError(f"no bot named {name[:80]!r} is registered")

    async def rotate(self, name: str, admin_token: str | None) -> str:
        """Give a bot a new token (admin only) and return it, once; the old one stops working.

        Raises ``AdminRequiredError`` without the admin token, ``BotNotFoundError`` for an unknown name.
        """
        self.check_admin(admin_token)
        token = self.make_token()
        if not await self._store.replace(name, hash_token(token)):
            raise BotNotFoundError(f"no bot named {name[:80]!r} is registered")
        return token

    async def check_registered(self, name: str) -> None:
        """Raise ``BotNotFoundError`` unless a bot of that name is registered."""
        if await self._store.games_of(name) is None:
            raise BotNotFoundError(f"no bot named {name[:80]!r} is registered")

    async def authenticate(self, token: str) -> str:
        """The name of the bot holding ``token``; raises ``AuthError``."""
        name = await self._store.name_for(hash_token(token)) if token else None
        if name is None:
            raise AuthError("unknown bot token")
        return name

    async def holders(self, tokens: Sequence[str]) -> list[str | None]:
        """The bot holding each token, in order (None for one that opens nothing), in one round trip."""
        return await self._store.names_for([hash_token(token) for token in tokens])

    async def games_of(self, name: str) -> frozenset[str]:
        """The games a bot is registered for; raises ``NotRegisteredForGameError`` for an unknown bot."""
        games = await self._store.games_of(name)
        if games is None:
            raise NotRegisteredForGameError(f"no bot named {echo(name)} is registered")
        return games or frozenset(GAMES)

    async def check_plays(self, names: Iterable[str], game: str) -> None:
        """Raise ``NotRegisteredForGameError`` unless every bot named is registered for ``game``
        (one bounded lookup per bot, all in one round trip, never a scan of every bot)."""
        unique = list(dict.fromkeys(names))
        if not unique:
            return
        for name, games in zip(unique, await self._store.games_of_each(unique), strict=True):
            if games is None:
                raise NotRegisteredForGameError(f"no bot named {echo(name)} is registered")
            if game not in (games or GAMES):
                raise NotRegisteredForGameError(f"bot {echo(name)} is not registered for game {echo(game)}")
