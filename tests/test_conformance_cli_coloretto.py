"""``arena conformance coloretto``: the real command on the shared Coloretto case files, and on corrupted copies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "coloretto"
SCORING = SHARED / "scoring.json"
PLAYTHROUGHS = SHARED / "playthroughs.json"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "conformance", "coloretto", *map(str, args)],
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


def test_the_shared_files_pass() -> None:
    result = run_cli(SCORING, PLAYTHROUGHS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MISMATCH" not in result.stdout
    cases = len(load(SCORING)["cases"]) + len(load(PLAYTHROUGHS)["cases"])
    assert f"coloretto conformance OK: all {cases} cases match" in result.stdout


def test_a_corrupted_scoring_case_fails_with_its_id_and_field(tmp_path: Path) -> None:
    data = load(SCORING)
    case = data["cases"][3]
    case["score"] += 1
    result = run_cli(write(tmp_path, "corrupt.json", data))
    assert result.returncode == 1, result.stdout
    assert f"MISMATCH {case['id']} (corrupt.json): score: expected {case['score']}" in result.stdout
    assert f"1 of {len(data['cases'])} cases mismatch" in result.stdout


def test_a_corrupted_playthrough_fails_with_its_id_and_first_differing_field(tmp_path: Path) -> None:
    data = load(PLAYTHROUGHS)
    case = data["cases"][-1]
    case["totals"][0] += 5
    path = write(tmp_path, "corrupt.json", data)
    result = run_cli(SCORING, path)
    assert result.returncode == 1, result.stdout
    mismatches = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert mismatches == [mismatches[0]]
    assert mismatches[0].startswith(f"MISMATCH {case['id']} (corrupt.json): totals: expected")


def test_a_malformed_file_is_one_error_line_and_exit_2(tmp_path: Path, capsys: Any) -> None:
    path = write(tmp_path, "bad.json", {"cases": [{"id": "x", "neither": 1}]})
    assert main(["conformance", "coloretto", str(SCORING), str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"error: malformed case file {path}:")
    assert "MISMATCH" not in out and "cases match" not in out
