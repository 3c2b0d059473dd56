"""``arena conformance GAME FILE...``: check a game's engine against shared conformance case files.

The game's catalogue entry holds its checker (``check_conformance``: a parsed case file in, one line
per mismatch out, each starting with the case id). This module reads the files, runs the checker
and prints. Exit status: 0 when every case matches, 1 when some case does not, 2 when the game is
unknown or has no checker, or a file cannot be read or is malformed (one line saying which and why;
then no case is reported, so a bad file is never a half-run).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from arena import catalogue
from arena.cli.wording import counted
from arena.errors import UnknownGameError

EXIT_OK: Final = 0
EXIT_MISMATCH: Final = 1
EXIT_ERROR: Final = 2


CASE_FILES = Path(__file__).resolve().parents[2] / "docs" / "conformance"
"""The public case files of every game, in the repository (``docs/conformance/GAME/*.json``)."""


def default_files(game: str) -> list[str]:
    """The repository's case files for ``game`` (none when the package is installed without them)."""
    return [str(path) for path in sorted((CASE_FILES / game).glob("*.json"))]


def run(game: str, paths: Sequence[str], out: TextIO) -> int:
    """Check every case in ``paths`` against ``game``'s engine, print mismatches and a summary."""
    try:
        entry = catalogue.entry(game)
    except UnknownGameError as error:
        print(f"error: {error}", file=out)
        return EXIT_ERROR
    paths = list(paths) or default_files(game)
    if not paths:
        print(
            f"error: no case files given, and none in {CASE_FILES / game}: pass FILE ..., "
            f"e.g. a clone's docs/conformance/{game}/*.json",
            file=out,
        )
        return EXIT_ERROR

    # Check every file before printing anything, so a bad file is one clear error, not a half-run.
    results: list[tuple[str, int, list[str]]] = []
    for path in paths:
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            print(f"error: cannot read {path}: {error}", file=out)
            return EXIT_ERROR
        except json.JSONDecodeError as error:
            print(f"error: malformed case file {path}: not valid JSON: {error}", file=out)
            return EXIT_ERROR
        try:
            problems = entry.check_conformance(document)
        except ValueError as error:
            print(f"error: malformed case file {path}: {error}", file=out)
            return EXIT_ERROR
        results.append((path, len(document["cases"]), problems))

    total = failed = 0
    for path, cases, problems in results:
        mismatched = {problem.split(": ", 1)[0] for problem in problems}
        for problem in problems:
            case_id, _, what = problem.partition(": ")
            print(f"MISMATCH {case_id} ({Path(path).name}): {what}", file=out)
        total += cases
        failed += len(mismatched)
        matched = cases - len(mismatched)
        print(
            f"{path}: {counted(cases, 'case')}, {matched} matched, {len(mismatched)} mismatched",
            file=out,
        )
    if failed:
        print(f"{game} conformance FAILED: {failed} of {total} cases mismatch", file=out)
        return EXIT_MISMATCH
    print(f"{game} conformance OK: all {total} cases match", file=out)
    return EXIT_OK
