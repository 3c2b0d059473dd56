"""``arena conformance``: the real command on the shared case files, and on corrupted copies."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli.conformance import run
from arena.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SHARED_5211 = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "5211"
ROUND_SCORING = SHARED_5211 / "round-scoring.json"
PLAYTHROUGHS = SHARED_5211 / "playthroughs.json"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "conformance", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_shared_files_pass() -> None:
    result = run_cli("5211", ROUND_SCORING, PLAYTHROUGHS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MISMATCH" not in result.stdout
    cases = len(load(ROUND_SCORING)["cases"]) + len(load(PLAYTHROUGHS)["cases"])
    assert f"all {cases} cases match" in result.stdout


def test_a_corrupted_round_scoring_case_fails_with_its_id(tmp_path: Path) -> None:
    data = load(ROUND_SCORING)
    case = next(c for c in data["cases"] if c["scoring"][0])
    case["scoring"][0][0] = "G6" if case["scoring"][0][0] != "G6" else "B6"
    result = run_cli("5211", write(tmp_path, "corrupt.json", data))
    assert result.returncode == 1, result.stdout
    assert f"MISMATCH {case['id']} " in result.stdout
    assert "seat 0 scoring" in result.stdout
    assert "FAILED: 1 of" in result.stdout


def test_a_corrupted_playthrough_fails_with_its_id(tmp_path: Path) -> None:
    data = load(PLAYTHROUGHS)
    case = data["cases"][-1]
    case["points"][0] += 1
    case["winners"] = [0]
    out = io.StringIO()
    assert run("5211", [str(write(tmp_path, "corrupt.json", data))], out) == 1
    text = out.getvalue()
    assert f"MISMATCH {case['id']} (corrupt.json): seat 0 points: expected" in text
    assert f"MISMATCH {case['id']} (corrupt.json): winners: expected [0]" in text


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda c: c["round_scoring"][0].__setitem__(0, ["Y6"]), "round 1 scoring"),
        (lambda c: c.__setitem__("rounds", c["rounds"] + 1), "rounds: expected"),
        (lambda c: c["actions"].pop(), "not over after all"),
        (lambda c: c["actions"].append(c["actions"][-1]), "the game ended after turn"),
        (lambda c: c["actions"][0][1].__setitem__(0, c["actions"][0][0][0]), "engine rejected an action"),
        (lambda c: c["score_pile_cards"].__setitem__(1, 99), "seat 1 score_pile_cards: expected 99"),
    ],
    ids=["round-scoring", "rounds", "too-few-turns", "too-many-turns", "illegal-action", "score-pile-cards"],
)
def test_playthrough_mismatches_are_described(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, expected: str
) -> None:
    data = load(PLAYTHROUGHS)
    case = data["cases"][0]
    change(case)
    code = main(["conformance", "5211", str(write(tmp_path, "p.json", data))])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"MISMATCH {case['id']} " in out
    assert expected in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        ("[]", 'a "cases" list'),
        ('{"cases": [1]}', "case #0 is not a JSON object"),
        ('{"cases": [{"id": "X", "players": 4}]}', "case X: neither a round-scoring case"),
        ('{"cases": [{"id": "X", "players": 9, "played": []}]}', '"players" must be an integer from 2 to 5'),
        ('{"cases": [{"id": "X", "players": 2, "played": [["B1"], ["B2"]]}]}', "must have 4 cards"),
        ('{"cases": [{"id": "X", "players": 2, "played": [["B1", "B1", "B1", "Q1"], []]}]}', "'Q1'"),
        ('{"cases": [{"id": "X", "players": 2, "deck": ["B1"], "actions": []}]}', '"deck" must list 100'),
    ],
)
def test_a_malformed_file_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert main(["conformance", "5211", str(ROUND_SCORING), str(path)]) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "one line, and no half-run before it"
    assert out.startswith(f"error: malformed case file {path}")
    assert expected in out


def test_duplicate_ids_are_malformed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = load(ROUND_SCORING)
    data["cases"].append(data["cases"][0])
    assert main(["conformance", "5211", str(write(tmp_path, "dup.json", data))]) == 2
    assert "appears twice" in capsys.readouterr().out


def test_missing_file_and_unknown_game(tmp_path: Path) -> None:
    result = run_cli("5211", tmp_path / "nope.json")
    assert result.returncode == 2
    assert result.stdout.startswith("error: cannot read")
    result = run_cli("chess", ROUND_SCORING)
    assert result.returncode == 2
    assert "unknown game 'chess'" in result.stdout
