"""The command line: every subcommand's help renders (argparse formats help lazily); a usage mistake
is one line and exit code 2."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from arena.cli import build_parser


def subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += subcommands(sub)
    return found


def test_every_help_renders(capsys: pytest.CaptureFixture[str]) -> None:
    parsers = subcommands(build_parser())
    assert len(parsers) >= 14
    for parser in parsers:
        text = parser.format_help()
        assert parser.prog in text
    names = {p.prog.split(" ", 1)[1] for p in parsers if " " in p.prog}
    assert {"run", "serve", "register", "match", "bot", "league create", "leaderboard", "nodes", "loadtest"} <= names


@pytest.mark.parametrize("games", ["0", "-3", "many"])
def test_league_create_refuses_a_bad_games_count_in_one_line(games: str) -> None:
    command = [sys.executable, "-m", "arena.cli", "league", "create", "a", "b", "--games", games]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("arena league create: argument --games:"), lines
    assert repr(games) in lines[0] and "at least 1" in lines[0]
    assert "Traceback" not in done.stderr


def test_league_create_refuses_too_few_players_in_one_line() -> None:
    command = [sys.executable, "-m", "arena.cli", "league", "create", "a", "b", "--players", "0"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "arena league create: argument --players: '0' is not a whole number of at least 2 (see --help)"
    ]
