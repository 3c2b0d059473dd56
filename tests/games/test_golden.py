"""The golden playthroughs in tests/games/golden/ still match what the engine plays."""

from __future__ import annotations

import json

import pytest

from arena import catalogue
from arena.games import get_game
from tests.games.golden import GAMES, GOLDEN_DIR, GoldenGame, first_difference, record, render

REGENERATE = "If the change was intended, run `make golden` and review and commit the diff."


@pytest.mark.parametrize("golden", GAMES, ids=[g.path.stem for g in GAMES])
def test_golden_playthrough(golden: GoldenGame) -> None:
    assert golden.path.exists(), f"{golden.path.name} is missing. {REGENERATE}"
    expected = golden.path.read_text(encoding="utf-8")
    actual = render(record(golden))
    if actual != expected:
        pytest.fail(
            f"{golden.path.name}: the engine no longer plays this golden game the same way; "
            f"{first_difference(expected, actual)}\n{REGENERATE}",
            pytrace=False,
        )


def test_golden_files_are_valid_json_and_listed() -> None:
    listed = {g.path.name for g in GAMES}
    assert {p.name for p in GOLDEN_DIR.glob("*.json")} == listed, f"stray or missing golden files. {REGENERATE}"
    for golden in GAMES:
        data = json.loads(golden.path.read_text(encoding="utf-8"))
        assert data["players"] == golden.players
        assert render(data) == golden.path.read_text(encoding="utf-8")


@pytest.mark.parametrize("game", catalogue.names())
def test_golden_games_cover_every_game_and_player_count(game: str) -> None:
    assert sorted(g.players for g in GAMES if g.game == game) == list(get_game(game).player_counts)
