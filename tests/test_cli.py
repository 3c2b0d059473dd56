"""The command line: every subcommand's help renders (argparse formats help lazily)."""

from __future__ import annotations

import argparse

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
