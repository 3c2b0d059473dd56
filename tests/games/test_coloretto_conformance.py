"""The Coloretto engine passes every shared conformance case, and a corrupted case fails naming its id."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from arena.errors import MalformedCaseFileError
from arena.games.coloretto.conformance import check_file
from tests.games.casefiles import COLORETTO_PLAYTHROUGHS, COLORETTO_SCORING


def document(path: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", [COLORETTO_PLAYTHROUGHS, COLORETTO_SCORING], ids=lambda p: p.name)
def test_every_shared_case_matches(path: Any) -> None:
    data = document(path)
    assert data["cases"], "the shared file has cases"
    assert check_file(data) == []


def test_a_wrong_final_score_is_reported_with_its_case_id_and_field() -> None:
    data = document(COLORETTO_PLAYTHROUGHS)
    bad = copy.deepcopy(data)
    bad["cases"][1]["games"][0]["scores"][0] += 1
    problems = check_file(bad)
    case_id = data["cases"][1]["id"]
    assert len(problems) == 1
    assert problems[0].startswith(f"{case_id}: game 1 scores: expected")


def test_a_wrong_legal_set_is_the_first_differing_field() -> None:
    data = document(COLORETTO_PLAYTHROUGHS)
    bad = copy.deepcopy(data)
    step = bad["cases"][0]["games"][0]["steps"][2]
    step["legal"] = [*step["legal"], "take 4"]
    bad["cases"][0]["games"][0]["scores"][0] += 1  # a later difference is not reported
    assert check_file(bad) == [
        f"{data['cases'][0]['id']}: game 1 step 2 legal: expected {sorted(step['legal'])!r}, "
        f"engine {sorted(data['cases'][0]['games'][0]['steps'][2]['legal'])!r}"
    ]


def test_a_wrong_round_checkpoint_names_the_round_and_field() -> None:
    bad = document(COLORETTO_PLAYTHROUGHS)
    case = bad["cases"][2]
    case["games"][0]["rounds"][1]["pile_left"] += 1
    assert check_file(bad) == [
        f"{case['id']}: game 1 round 2 pile_left: expected {case['games'][0]['rounds'][1]['pile_left']}, "
        f"engine {case['games'][0]['rounds'][1]['pile_left'] - 1}"
    ]


def test_a_wrong_draw_is_reported() -> None:
    bad = document(COLORETTO_PLAYTHROUGHS)
    case = bad["cases"][3]
    step = next(s for s in case["games"][0]["steps"] if s["action"] == "draw")
    step["cards"] = ["LR", *step["cards"]]
    (problem,) = check_file(bad)
    assert problem.startswith(f"{case['id']}: game 1 step ") and " cards: expected ['LR', " in problem


def test_a_wrong_scoring_case_is_reported_with_its_id() -> None:
    bad = document(COLORETTO_SCORING)
    bad["cases"][4]["score"] += 3
    case = bad["cases"][4]
    assert check_file(bad) == [f"{case['id']}: score: expected {case['score']}, engine {case['score'] - 3}"]


def test_a_case_the_engine_rejects_is_a_line_not_a_crash() -> None:
    bad = document(COLORETTO_PLAYTHROUGHS)
    case = bad["cases"][0]
    case["games"][0]["deck"] = case["games"][0]["deck"][:-1]
    (problem,) = check_file(bad)
    assert problem.startswith(f"{case['id']}: engine raised GameSetupError: ")


def test_a_file_of_neither_format_is_malformed() -> None:
    with pytest.raises(MalformedCaseFileError):
        check_file({"cases": [{"id": "x"}]})
    with pytest.raises(MalformedCaseFileError):
        check_file([])
