"""The arena's exception hierarchy.

Every error the arena raises on purpose derives from :class:`ArenaError`::

    ArenaError
    ├── ActionError (also ValueError)      a bot's action was rejected; the state is unchanged
    │   ├── InvalidActionError             it does not parse in the game's notation
    │   └── IllegalActionError             it parses but is not legal for that seat now
    ├── GameSetupError (also ValueError)   a match cannot be set up (player count, deck, options)
    ├── UnknownGameError (also KeyError)   no game is registered under that name
    ├── WireError (also ValueError)        a wire message does not convert (arena.wire)
    ├── LeagueSpecError (also ValueError)  a league spec is inconsistent (arena.league.schedule)
    ├── StartupError                       a node cannot start (arena.startup): one line for the
    │   └── NodeIdTakenError               operator; another live node holds this node id
    └── the services' errors               auth, bots and matches (arena.service.*), mapped to gRPC
                                           status codes in one table (arena.grpc.errors)

Domain errors carry no transport codes; the gRPC layer maps them to status codes in one table.
This module imports nothing from the rest of the arena, so every layer may use it.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every error the arena raises on purpose."""


class ActionError(ArenaError, ValueError):
    """A proposed action was rejected; the state it was applied to is unchanged."""


class InvalidActionError(ActionError):
    """The action text does not parse in the game's notation."""


class IllegalActionError(ActionError):
    """The action parses but is not legal for that seat at this point of the match."""


class GameSetupError(ArenaError, ValueError):
    """A match cannot be set up as asked (player count, deck order or options)."""


class UnknownGameError(ArenaError, KeyError):
    """No game is registered under the requested name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class StartupError(ArenaError):
    """A node cannot start; the message says what failed and what to check, in one line."""


class NodeIdTakenError(StartupError):
    """Another live node holds this node id."""


ECHO_LIMIT = 80
"""Characters of any client input an error message, a rejection reason or a record repeats (documented
in the proto files): a 60 KB value must not make a status or a reply too big to send."""


def echo(value: str, limit: int = ECHO_LIMIT) -> str:
    """Client input quoted for a message, cut to ``limit`` characters (saying how long it was)."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value)} characters)"


def clip(value: str, limit: int = ECHO_LIMIT) -> str:
    """Client input as it is, for a message, cut to ``limit`` characters (saying how long it was)."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}... ({len(value)} characters)"
