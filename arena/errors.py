"""The arena's exception hierarchy: every error the arena raises on purpose, defined here.

Every error the arena raises on purpose derives from :class:`ArenaError` and is defined in this module
(the layer that raises it imports it from here)::

    ArenaError
    ├── ActionError (also ValueError)        a bot's action was rejected; the state is unchanged
    │   ├── InvalidActionError               it does not parse in the game's notation
    │   └── IllegalActionError               it parses but is not legal for that seat now
    ├── GameSetupError (also ValueError)     a match cannot be set up (player count, deck, options)
    ├── UnknownGameError (also KeyError)     no game is registered under that name
    ├── MalformedCaseFileError (ValueError)  a conformance case file follows none of the game's formats
    ├── TimeControlError (also ValueError)   a time control that cannot be one (arena.referee.timecontrol)
    ├── SeatGoneError                        a seat's bot is gone for good: forfeit it (arena.referee)
    ├── LeaseLostError                       a node can no longer count on a match's lease: it stops it
    ├── LeagueSpecError (also ValueError)    a league spec is inconsistent (arena.league.schedule)
    ├── SprtError (also ValueError)          SPRT parameters that make no test (arena.league.sprt)
    ├── WireError (also ValueError)          a wire message does not convert (arena.wire)
    ├── StoredDataError (also ValueError)    stored data (a spec, a record, a relay message) does not read back
    ├── AuthError                            a token is missing, unknown or not allowed (arena.service.auth)
    │   └── AdminRequiredError               the call needs the admin token
    ├── NameTakenError                       a bot of that name is registered already
    ├── BotNotFoundError                     no bot of that name is registered
    ├── InvalidNameError (also ValueError)   a bot name does not fit the allowed pattern
    ├── NotRegisteredForGameError            a bot is asked to play a game it is not registered for
    ├── LimitExceededError                   a client asked for more than a limit allows (arena.service.limits)
    ├── TooManyErrorsError                   a bot stream sent too many unusable messages in a row: closed
    ├── BotUnavailableError                  a bot named for a match cannot play it now (arena.service.matches)
    │   ├── BotAbsentError                   it is connected to no node
    │   ├── BotBusyError                     it has no free match slot
    │   └── NodeStoppingError                this node is shutting down: it starts no more matches
    ├── MatchNotFoundError (also KeyError)   no match with that id on this node
    ├── InvalidPageTokenError (ValueError)   a page token that no list gave
    ├── MatchNotFinishedError                a running match's record is not released before its end
    │   └── MatchElsewhereError              it runs on another node of the arena (named)
    ├── RefereeGoneError                     the node refereeing a watched match stopped answering
    ├── MatchSealedError                     a rotation of a duplicate deal still being played
    ├── LeagueNotFoundError (also KeyError)  no league with that id (arena.service.leagues)
    │   └── LadderNotFoundError              no ladder with that id (arena.service.ladders)
    ├── LeagueExistsError                    a league with that id exists already
    │   └── LadderExistsError                a ladder with that id exists already
    ├── LeaguesUnavailableError              the node runs without Redis, so it has no leagues
    ├── LadderSpecError (also ValueError)    a ladder that cannot be created as asked
    ├── NotFoundError (also KeyError)        the web site has nothing at that address (404; arena.web)
    ├── BadFilterError (also ValueError)     a web filter or page value that cannot be one (400)
    ├── StartupError                         a node cannot start (arena.serve.startup): one line for the
    │   ├── NodeIdTakenError                 operator; another live node holds this node id
    │   ├── FolderInUseError                 another process runs an embedded Redis in this folder
    │   ├── FrontError                       the node's front (arena serve --front) refused to start
    │   └── LimitsError (also ValueError)    a limit flag out of range, or above the open-files limit
    ├── OperatorError                        an operator's mistake on the command line (arena.cli)
    │   └── AdminTokenMissingError           no admin token anywhere the command looks
    ├── PlayerError                          a player named to ``arena play`` that is no bot (arena.cli.play)
    ├── MainJobError                         the main job cannot finish (arena.cli.mainjob)
    └── SprtRunError                         an SPRT run cannot go on (arena.cli.sprt_client)

Domain errors carry no transport codes; the gRPC layer maps them to status codes in one table
(``arena.grpc.errors``); tests/test_errors.py names the ones that never cross the wire.
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


class MalformedCaseFileError(ArenaError, ValueError):
    """A conformance case file is not JSON or follows none of the game's case formats."""


class TimeControlError(ArenaError, ValueError):
    """A time control that cannot be one (a non-positive allowance, a negative bank or grace, no strikes)."""


class SeatGoneError(ArenaError):
    """The seat's bot is gone for good (disconnected past the grace period): forfeit it."""


class LeaseLostError(ArenaError):
    """The node playing a match has not renewed its lease in the queue for most of the lease
    (Redis lost, or the node stalled): another node may take the match over, so this run stops."""


class LeagueSpecError(ArenaError, ValueError):
    """A league spec is inconsistent (too few bots, unknown candidate, bad counts)."""


class SprtError(ArenaError, ValueError):
    """SPRT parameters that make no test (the message names them)."""


class WireError(ArenaError, ValueError):
    """A wire message does not convert to an engine value (missing, unknown or malformed field)."""


class StoredDataError(ArenaError, ValueError):
    """Stored data does not read back: a league's spec, a match record or a relay message with a
    missing field, a value of the wrong type or an unknown kind (the message names it)."""


class AuthError(ArenaError):
    """A token is missing, unknown or not allowed to do this."""


class AdminRequiredError(AuthError):
    """The call needs the admin token."""


OUTSIDE_ADMIN_NETWORKS = "the admin token is accepted only from "
"""How a call that says a token from outside ``--admin-network`` is told so (the networks follow):
the CLI then gives no hint about passing the token, which was not compared."""


class NameTakenError(ArenaError):
    """A bot of that name is already registered."""


class BotNotFoundError(ArenaError):
    """No bot of that name is registered."""


class InvalidNameError(ArenaError, ValueError):
    """A bot name does not fit the allowed pattern."""


class NotRegisteredForGameError(ArenaError):
    """A bot is asked to play a game it is not registered for (or is not registered at all)."""


class LimitExceededError(ArenaError):
    """A client asked for more than a limit allows (mapped to RESOURCE_EXHAUSTED)."""


class TooManyErrorsError(ArenaError):
    """A connection kept sending unusable messages and is closed."""


class BotUnavailableError(ArenaError):
    """A bot named for a match is not connected, does not play the game, or has no free slot."""


class BotAbsentError(BotUnavailableError):
    """A bot named for a match is connected to no node of the arena."""

    def __init__(self, bot: str) -> None:
        super().__init__(f"bot {bot[:80]!r} is not connected")
        self.bot = bot


class BotBusyError(BotUnavailableError):
    """A bot named for a match plays as many matches as it asked for; a slot frees when one ends."""

    def __init__(self, bot: str, why: str) -> None:
        super().__init__(f"bot {bot[:80]!r} has no free match slot: {why}")
        self.bot = bot


class NodeStoppingError(BotUnavailableError):
    """The node is shutting down: it lets its matches end and starts no more."""


class MatchNotFoundError(ArenaError, KeyError):
    """No match with that id on this node."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "match not found"


class InvalidPageTokenError(ArenaError, ValueError):
    """A page token that no list gave (mapped to INVALID_ARGUMENT)."""


class MatchNotFinishedError(ArenaError):
    """The record of a running match is not released before its end (it would leak hidden state)."""


class MatchElsewhereError(MatchNotFinishedError):
    """The match runs on another node of the arena (``node``, ``address``): its record is released there
    at its end; this node relays its spectators' events."""

    def __init__(self, message: str, node: str, address: str) -> None:
        super().__init__(message)
        self.node = node
        self.address = address


class RefereeGoneError(ArenaError):
    """The node refereeing a match that this node relays to a spectator has no heartbeat any more: the
    spectator's stream ends (mapped to UNAVAILABLE)."""


class MatchSealedError(ArenaError):
    """The match is a rotation of a duplicate deal still being played: nothing of it is released yet."""


class LeagueNotFoundError(ArenaError, KeyError):
    """No league with that id."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "league not found"


class LadderNotFoundError(LeagueNotFoundError):
    """No ladder with that id."""


class LeagueExistsError(ArenaError):
    """A league with that id exists already (mapped to ALREADY_EXISTS)."""


class LadderExistsError(LeagueExistsError):
    """A ladder with that id exists already."""


class LeaguesUnavailableError(ArenaError):
    """The node runs without Redis, so it has no leagues."""


class LadderSpecError(ArenaError, ValueError):
    """A ladder that cannot be created as asked."""


class NotFoundError(ArenaError, KeyError):
    """Nothing at that address (the page answers 404)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class BadFilterError(ArenaError, ValueError):
    """A filter or page value that cannot be one (the page answers 400)."""


class StartupError(ArenaError):
    """A node cannot start; the message says what failed and what to check, in one line."""


class NodeIdTakenError(StartupError):
    """Another live node holds this node id."""


class FolderInUseError(StartupError):
    """Another process runs an embedded Redis in this folder (it holds the folder's lock): ``holder``
    is its process id, as it wrote it."""

    def __init__(self, folder: str, holder: str) -> None:
        super().__init__(f"{folder} is in use by process {holder or 'unknown'}")
        self.folder = folder
        self.holder = holder


class FrontError(StartupError):
    """The node's front (``arena serve --front``) refused to start; the message is its own last word
    on why (a TLS file it cannot read, an address it cannot listen on)."""


class LimitsError(StartupError, ValueError):
    """A limit flag that is not positive, or ``--max-connections`` above the open-files limit."""


class OperatorError(ArenaError):
    """An operator's mistake on the command line: one line, exit status 2."""


class AdminTokenMissingError(OperatorError):
    """No admin token anywhere the command looks (exit status 1: nothing was wrong with the usage)."""


class PlayerError(ArenaError):
    """A player named on the command line that is neither a built-in bot nor a loadable Bot class."""


class MainJobError(ArenaError):
    """The main job cannot finish: a bot died or the league stalled (the message says which)."""


class SprtRunError(ArenaError):
    """The test cannot go on (a bot is not connected, the arena refused a match): one line."""


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
