"""Reading a conformance case file's JSON values, one clear ``MalformedCaseFileError`` per bad value:
the helpers every game's ``conformance`` module shares."""

from __future__ import annotations

from typing import Any

from arena.errors import MalformedCaseFileError


def is_int(value: object) -> bool:
    """Whether ``value`` is a JSON integer (``True`` and ``False`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def field(raw: dict[str, Any], key: str) -> Any:
    """``raw[key]``; raises ``MalformedCaseFileError`` naming the key when it is missing."""
    if key not in raw:
        raise MalformedCaseFileError(f'missing "{key}"')
    return raw[key]


def as_list(value: object, what: str) -> list[Any]:
    """``value`` if it is a list; raises ``MalformedCaseFileError`` naming ``what`` and the type otherwise."""
    if not isinstance(value, list):
        raise MalformedCaseFileError(f"{what} must be a list, not {type(value).__name__}")
    return value
