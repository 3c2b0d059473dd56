"""Counts in words, with the plural right: ``counted(1, "match")`` is "1 match", ``counted(2, "match")``
"2 matches"."""

from __future__ import annotations

IRREGULAR = {"match": "matches", "mismatch": "mismatches"}


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` followed by ``singular`` or its plural (``plural``, else the known one, else +s)."""
    if count == 1:
        return f"{count} {singular}"
    return f"{count} {plural or IRREGULAR.get(singular, singular + 's')}"
