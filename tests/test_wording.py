"""Counts in words: the plural of the last word of a phrase."""

from __future__ import annotations

from arena.cli.wording import counted


def test_counts_take_the_right_plural() -> None:
    assert counted(1, "match") == "1 match"
    assert counted(5, "queued match") == "5 queued matches"
    assert counted(0, "case") == "0 cases"
    assert counted(2, "mismatch") == "2 mismatches"
    assert counted(3, "bot") == "3 bots"
