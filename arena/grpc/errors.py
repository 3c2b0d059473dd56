"""The one table that maps the arena's domain errors to gRPC status codes, and the errors that never
reach a gRPC caller (every error of ``arena.errors`` is in one or the other; tests/test_errors.py checks)."""

from __future__ import annotations

import grpc

from arena.errors import (
    ActionError,
    AdminRequiredError,
    ArenaError,
    AuthError,
    BadFilterError,
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
    MainJobError,
    MalformedCaseFileError,
    MatchNotFinishedError,
    MatchNotFoundError,
    MatchSealedError,
    NameTakenError,
    NotFoundError,
    NotRegisteredForGameError,
    OperatorError,
    PlayerError,
    SeatGoneError,
    SprtError,
    SprtRunError,
    StartupError,
    StoredDataError,
    TimeControlError,
    TooManyErrorsError,
    UnknownGameError,
    WireError,
)

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

LOCAL_ONLY: tuple[type[ArenaError], ...] = (
    SeatGoneError,  # the referee forfeits the seat
    TooManyErrorsError,  # the Connect servicer closes the stream with its text
    MalformedCaseFileError,  # arena conformance
    SprtError,  # arena sprt
    NotFoundError,  # the web site: 404
    BadFilterError,  # the web site: 400
    StartupError,  # arena serve: one line and a non-zero exit
    OperatorError,  # the command line: one line and a non-zero exit
    PlayerError,  # arena play
    MainJobError,  # arena main-job
    SprtRunError,  # arena sprt
)
"""The errors that never reach a gRPC caller: handled where they are raised, or raised only by the
operator's tools and the web site (which say them in their own way)."""


def status_for(error: Exception) -> grpc.StatusCode | None:
    """The status code for a domain error; None for anything else (a bug: INTERNAL)."""
    for kind, code in STATUS:
        if isinstance(error, kind):
            return code
    return None
