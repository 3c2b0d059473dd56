"""The shared Azul conformance files (shared/conformance/azul/) pass, and a corrupted case fails by id."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from arena.errors import MalformedCaseFileError
from arena.games.azul.conformance import check_file
from tests.games.casefiles import SHARED_5211

SHARED_AZUL = SHARED_5211.parent / "azul"
PLAYTHROUGHS = SHARED_AZUL / "playthroughs.json"
WALL_TILING = SHARED_AZUL / "wall-tiling.json"


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", [PLAYTHROUGHS, WALL_TILING], ids=lambda p: p.name)
def test_every_shared_case_matches(path: Path) -> None:
    data = load(path)
    assert data["cases"], "the file has cases"
    assert check_file(data) == []


def test_the_playthroughs_cover_every_player_count_and_both_walls() -> None:
    cases = load(PLAYTHROUGHS)["cases"]
    assert {case["players"] for case in cases} == {2, 3, 4}
    assert {case["options"]["wall"] for case in cases} == {"standard", "grey"}
    assert any(case["refills"] for case in cases)


def corrupted(path: Path, index: int, change: Any) -> dict[str, Any]:
    data = copy.deepcopy(load(path))
    change(data["cases"][index])
    return data


def test_a_corrupted_playthrough_fails_naming_its_id_and_field() -> None:
    def wrong_points(case: dict[str, Any]) -> None:
        case["rounds"][1]["placements"][0][0][2] += 1

    def wrong_count(case: dict[str, Any]) -> None:
        case["rounds"][0]["offers"][3]["n_legal"] -= 1

    def wrong_winner(case: dict[str, Any]) -> None:
        case["final"]["winners"] = [1]

    def wrong_refill(case: dict[str, Any]) -> None:
        case["refills"][0] = case["refills"][0][1:]

    for index, change, field in (
        (0, wrong_points, "round 2 placements"),
        (1, wrong_count, "round 1 offer 4 n_legal"),
        (2, wrong_winner, "final winners"),
        (1, wrong_refill, "engine rejected the fixture"),
    ):
        data = corrupted(PLAYTHROUGHS, index, change)
        problems = check_file(data)
        case_id = data["cases"][index]["id"]
        assert len(problems) == 1, problems
        assert problems[0].startswith(f"{case_id}: {field}"), problems


def test_a_corrupted_wall_tiling_case_fails_naming_its_id_and_field() -> None:
    def wrong_lid(case: dict[str, Any]) -> None:
        case["to_lid"] = []

    def illegal_action(case: dict[str, Any]) -> None:
        case["action"] = "1:1"

    for index, change, field in ((1, wrong_lid, "to_lid"), (8, illegal_action, "action: engine rejected '1:1'")):
        data = corrupted(WALL_TILING, index, change)
        problems = check_file(data)
        assert problems == [p for p in problems if p.startswith(f"{data['cases'][index]['id']}: {field}")]
        assert len(problems) == 1


def test_a_file_of_another_format_is_refused() -> None:
    with pytest.raises(MalformedCaseFileError, match="unknown format"):
        check_file({"format": "5211 round scoring", "cases": []})
    with pytest.raises(MalformedCaseFileError, match="cases"):
        check_file({"format": load(WALL_TILING)["format"]})
