"""Counts in words, with the plural right: ``counted(1, "match")`` is "1 match", ``counted(2, "match")``
"2 matches", ``counted(5, "queued match")`` "5 queued matches"."""

from __future__ import annotations


def plural(noun: str) -> str:
    """The plural of an English noun phrase (its last word): matches, cases, bots."""
    head, _, last = noun.rpartition(" ")
    ending = "es" if last.endswith(("s", "x", "z", "ch", "sh")) else "s"
    return f"{head} {last}{ending}" if head else last + ending


def counted(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` followed by ``singular`` or its plural (``plural_form``, else :func:`plural`)."""
    if count == 1:
        return f"{count} {singular}"
    return f"{count} {plural_form or plural(singular)}"
