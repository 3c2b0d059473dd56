"""The one table that maps the arena's domain errors to gRPC status codes."""

from __future__ import annotations

import grpc

from arena.errors import ActionError, ArenaError, GameSetupError, UnknownGameError
from arena.league.schedule import LeagueSpecError
from arena.service.auth import (
    AdminRequiredError,
    AuthError,
    BotNotFoundError,
    InvalidNameError,
    NameTakenError,
    NotRegisteredForGameError,
)
from arena.service.leagues import LeagueNotFoundError, LeaguesUnavailableError
from arena.service.limits import LimitExceededError
from arena.service.matches import BotUnavailableError, MatchNotFinishedError, MatchNotFoundError, MatchSealedError

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
    (BotUnavailableError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchNotFinishedError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchSealedError, grpc.StatusCode.FAILED_PRECONDITION),
    (MatchNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LeagueNotFoundError, grpc.StatusCode.NOT_FOUND),
    (LeagueSpecError, grpc.StatusCode.INVALID_ARGUMENT),
    (LeaguesUnavailableError, grpc.StatusCode.UNIMPLEMENTED),
    (LimitExceededError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (ArenaError, grpc.StatusCode.INVALID_ARGUMENT),
)
"""First match wins, so subclasses come before their bases."""


def status_for(error: Exception) -> grpc.StatusCode | None:
    """The status code for a domain error; None for anything else (a bug: INTERNAL)."""
    for kind, code in STATUS:
        if isinstance(error, kind):
            return code
    return None
