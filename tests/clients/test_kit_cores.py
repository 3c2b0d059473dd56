"""The starter kits' SDK cores name no game: a game's types and names appear only in its per-game files.

Each kit's core (the connection, the turn, the command line) is read with its comments left out; none
may name a game's messages, its oneof field or its registry name. A new game then needs no change in a
core, only its optional helper file in each kit (see docs/adding-a-game.md).
"""

from __future__ import annotations

import re

import pytest

from arena import catalogue
from tests.clients.kits import CLIENTS

CORES = {
    "typescript": ("src/bot.ts", "src/proto.ts", "src/cli.ts"),
    "go": ("arenabot/bot.go", "cmd/bot/main.go"),
    "rust": ("src/client.rs", "src/lib.rs", "src/main.rs"),
    "java": tuple(
        f"src/main/java/arena/bot/{name}.java"
        for name in ("Client", "Turn", "MatchInfo", "MatchResult", "Main", "Bot", "Event", "Log")
    ),
    "cpp": ("include/arena/bot.h", "include/arena/cli.h", "src/sdk.cc", "src/cli.cc", "src/main.cc"),
}
"""Every kit's core files, relative to clients/<kit>."""

COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
RUST_TESTS = "#[cfg(test)]"


def code_of(language: str, path: str) -> str:
    """The file's text without its comments (and, in Rust, without its inline test module)."""
    text = (CLIENTS / language / path).read_text()
    if language == "rust" and RUST_TESTS in text:
        text = text[: text.index(RUST_TESTS)]
    return COMMENTS.sub("", text)


def game_names() -> re.Pattern[str]:
    """Any hosted game's registry name, oneof field or message prefix, in any case or spelling."""
    words = []
    for name in catalogue.names():
        words += [re.escape(name), re.escape(f"game_{name}"), re.escape(f"Game{name}"), re.escape(name.capitalize())]
    return re.compile("|".join(words), re.IGNORECASE)


@pytest.mark.parametrize("language", sorted(CORES))
def test_a_kit_core_names_no_game(language: str) -> None:
    pattern = game_names()
    found = {
        path: sorted({match.group(0) for match in pattern.finditer(code_of(language, path))})
        for path in CORES[language]
    }
    assert not {path: names for path, names in found.items() if names}, found


def test_the_check_sees_a_game_named_in_code() -> None:
    assert game_names().search(COMMENTS.sub("", 'const GAME = "coloretto"; // a comment naming 5211'))
    assert not game_names().search(COMMENTS.sub("", "const x = 1; // 5211 and coloretto /* Game5211 */"))
