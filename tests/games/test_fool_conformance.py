"""The FOOL! engine passes every shared conformance case, and the checker catches a corrupted one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from arena.errors import MalformedCaseFileError
from arena.games.fool.conformance import check_file
from tests.games.casefiles import SHARED_5211, load_cases

SHARED_FOOL = SHARED_5211.parent / "fool"
FILES = sorted(SHARED_FOOL.glob("*.json"))


def test_the_shared_fool_case_files_are_there() -> None:
    assert {path.name for path in FILES} >= {"legal-plays.json", "playthroughs.json", "tricks.json"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_shared_case_matches(path: Path) -> None:
    assert load_cases(path), "the file has cases"
    assert check_file(json.loads(path.read_text(encoding="utf-8"))) == []


def corrupted(name: str, change: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SHARED_FOOL / name).read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    change(data["cases"])
    return data


def test_a_corrupted_legal_set_fails_naming_its_case() -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[0]["legal"] = ["G5"]  # the wild is legal too

    assert check_file(corrupted("legal-plays.json", change)) == ["L0: legal: expected {G5}, engine {G5, W1}"]


def test_a_corrupted_fool_order_fails_naming_its_case() -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[6]["fools"] = [1, 2]  # the contract: Y3 (seat 2) first

    assert check_file(corrupted("tricks.json", change)) == ["T6: fools: expected [1, 2], engine [2, 1]"]


def test_a_corrupted_whole_game_fails_at_its_first_differing_field() -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        cases[2]["rounds"][1]["round_scores"][0] += 1
        cases[3]["rounds"][0]["tricks"][2]["legal"][1].append("B15")  # not in play at 7
        cases[4]["rounds"][0]["tricks"][4]["winner"] = cases[4]["rounds"][0]["tricks"][4]["fools"][0]

    problems = check_file(corrupted("playthroughs.json", change))
    assert len(problems) == 3
    assert problems[0].startswith("P2: round 2 round_scores: expected [")
    assert problems[1].startswith("P3: round 1 trick 3 play 2 legal: expected {")
    assert problems[2].startswith("P4: round 1 trick 5 winner: expected ")


def test_a_whole_game_with_a_swapped_play_fails_where_the_order_differs() -> None:
    def change(cases: list[dict[str, Any]]) -> None:
        plays = cases[0]["rounds"][0]["tricks"][1]["plays"]
        plays[0], plays[1] = plays[1], plays[0]

    problems = check_file(corrupted("playthroughs.json", change))
    assert problems == ["P0: round 1 trick 2 play 1 seat to move: expected [2], engine [1]"]


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"cases": [{"id": "X", "players": 3, "plays": []}]}, 'case X: "players" must be an integer from 4 to 8'),
        ({"cases": [{"id": "X", "players": 4, "trick_so_far": ["Q1"], "hand": [], "legal": []}]}, "'Q1'"),
        ({"cases": [{"id": "X", "players": 4}]}, "case X: not a whole game"),
        ({"cases": [{"id": "X", "players": 4, "trick_so_far": [], "hand": [], "legal": []}] * 2}, "appears twice"),
        ({"nothing": []}, '"cases" list'),
    ],
)
def test_a_malformed_file_is_one_clear_error(data: dict[str, Any], named: str) -> None:
    with pytest.raises(MalformedCaseFileError, match=named):
        check_file(data)
