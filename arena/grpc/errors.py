"""The one table that maps the arena's domain errors to gRPC status codes (every error of ``arena.errors``
is in it, or never reaches a gRPC caller: tests/test_errors.py lists those and checks)."""

from __future__ import annotations

import grpc

from arena.errors import (
    ActionError,
    AdminRequiredError,
    ArenaError,
    AuthError,
    BotNotFoundError,
    BotUnavailableError,
    GameSetupError,
    InvalidNameError,
    InvalidPageTokenError,
    LadderSpecError,
    LeagueExistsError,
    LeagueNotFoundError,
    LeagueSpecError,
    LeaguesUnavailableError,
    LimitExceededError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchSealedError,
    NameTakenError,
    NodeStoppingError,
    NotRegisteredForGameError,
    RefereeGoneError,
    StoredDataError,
    TimeControlError,
    UnknownGameError,
    WireError,
)
from arena.store.redis_stores import STORE_UNREACHABLE

STATUS: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (AdminRequiredError, grpc.StatusCode.PERMISSION_DENIED),
    (AuthError, grpc.StatusCode.UNAUTHENTICATED),
    (NameTakenError, grpc.StatusCode.ALREADY_EXISTS),
    (BotNotFoundError, grpc.StatusCode.NOT_FOUND),
    (InvalidNameError, grpc.StatusCode.INVALID_ARGUMENT),
    (NotRegisteredForGameError, grpc.StatusCode.INVALID_ARGUMENT),
    (UnknownGameError, grpc.StatusCode.INVALID_ARGUMENT),
    (GameSetupError, grpc.StatusCode.INVALID_ARGUMENT),
    (ActionError, grpc.StatusCode.INVALID_ARGUMENT),
    (NodeStoppingError, grpc.StatusCode.UNAVAILABLE),
    (RefereeGoneError, grpc.StatusCode.UNAVAILABLE),
    (BotUnavailableError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchNotFinishedError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchSealedError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LeagueNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LeagueExistsError, grpc.StatusCode.ALREADY_EXISTS),
    (LeagueSpecError, grpc.StatusCode.INVALID_ARGUMENT),
    (LadderSpecError, grpc.StatusCode.INVALID_ARGUMENT),
    (TimeControlError, grpc.StatusCode.INVALID_ARGUMENT),
    (WireError, grpc.StatusCode.INVALID_ARGUMENT),
    (StoredDataError, grpc.StatusCode.DATA_LOSS),
    (InvalidPageTokenError, grpc.StatusCode.INVALID_ARGUMENT),
    (LeaguesUnavailableError, grpc.StatusCode.UNIMPLEMENTED),
    (LimitExceededError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (ArenaError, grpc.StatusCode.INVALID_ARGUMENT),
)
"""First match wins, so subclasses come before their bases."""


STORE_AWAY = "the arena's store is unreachable for now: try again shortly"
"""What a caller is told when the node cannot reach Redis (not the store's own words: they name its address)."""


def status_for(error: Exception) -> grpc.StatusCode | None:
    """The status code for a domain error, or UNAVAILABLE for a store that cannot be reached;
    None for anything else (a bug: INTERNAL)."""
    if isinstance(error, STORE_UNREACHABLE):
        return grpc.StatusCode.UNAVAILABLE
    for kind, code in STATUS:
        if isinstance(error, kind):
            return code
    return None


def details_for(error: Exception) -> str:
    """What a caller is told of an error that has a status code (``status_for``)."""
    return STORE_AWAY if isinstance(error, STORE_UNREACHABLE) else str(error)
