"""One home per error: every exception the arena defines is an ArenaError that arena.errors exports,
lists in its docstring tree, and the gRPC layer maps to a status or marks as never crossing the wire."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from typing import Final

import pytest

import arena
import arena.errors
from arena.errors import (
    ArenaError,
    BadFilterError,
    LeaseLostError,
    MainJobError,
    MalformedCaseFileError,
    NotFoundError,
    OperatorError,
    PlayerError,
    SeatGoneError,
    SprtError,
    SprtRunError,
    StartupError,
    TooManyErrorsError,
)
from arena.grpc.errors import STATUS

LOCAL_ONLY: Final[tuple[type[ArenaError], ...]] = (
    SeatGoneError,  # the referee forfeits the seat
    LeaseLostError,  # the referee ends the match aborted
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


def _defined_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(arena.__path__, "arena."):
        if info.name.startswith("arena.v1"):
            continue  # generated protobuf code
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
                and not name.startswith("_")  # a module's private control-flow signal never reaches a caller
            ):
                found[f"{info.name}.{name}"] = value
    return sorted(found.values(), key=lambda kind: (kind.__module__, kind.__name__))


EXCEPTIONS = _defined_exceptions()


def test_the_walk_finds_the_tree() -> None:
    assert ArenaError in EXCEPTIONS and len(EXCEPTIONS) > 20


@pytest.mark.parametrize("kind", EXCEPTIONS, ids=lambda kind: f"{kind.__module__}.{kind.__name__}")
def test_every_exception_is_an_arena_error_at_home(kind: type[BaseException]) -> None:
    assert issubclass(kind, ArenaError), f"{kind.__module__}.{kind.__name__} is not an ArenaError"
    assert kind.__module__ == "arena.errors", f"{kind.__name__} is defined in {kind.__module__}, not arena.errors"
    assert getattr(arena.errors, kind.__name__) is kind


def _tree_names() -> list[str]:
    doc = arena.errors.__doc__ or ""
    tree = doc.split("::", 1)[1].split("\n\n", 2)[1]
    return [match.group(1) for match in re.finditer(r"^[\s│├└─]*(\w+Error)\b", tree, re.MULTILINE)]


def test_the_docstring_tree_lists_each_error_once() -> None:
    names = _tree_names()
    assert len(names) == len(set(names)), names
    assert sorted(names) == sorted(kind.__name__ for kind in EXCEPTIONS)


@pytest.mark.parametrize("kind", EXCEPTIONS, ids=lambda kind: kind.__name__)
def test_the_grpc_table_covers_each(kind: type[BaseException]) -> None:
    mapped = [base for base, _ in STATUS if base is not ArenaError and issubclass(kind, base)]
    local = [base for base in LOCAL_ONLY if issubclass(kind, base)]
    assert kind is ArenaError or bool(mapped) != bool(local), (kind.__name__, mapped, local)
