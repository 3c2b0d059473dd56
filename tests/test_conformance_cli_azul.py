"""``arena conformance azul``: the real command on the shared Azul case files, and on corrupted copies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "azul"
WALL_TILING = SHARED / "wall-tiling.json"
PLAYTHROUGHS = SHARED / "playthroughs.json"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "conformance", "azul", *map(str, args)],
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
    result = run_cli(WALL_TILING, PLAYTHROUGHS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MISMATCH" not in result.stdout
    cases = len(load(WALL_TILING)["cases"]) + len(load(PLAYTHROUGHS)["cases"])
    assert f"azul conformance OK: all {cases} cases match" in result.stdout


def test_a_corrupted_wall_tiling_case_fails_with_its_id_and_field(tmp_path: Path) -> None:
    data = load(WALL_TILING)
    case = data["cases"][3]
    case["score_after"] += 1
    result = run_cli(write(tmp_path, "corrupt.json", data))
    assert result.returncode == 1, result.stdout
    assert f"MISMATCH {case['id']} (corrupt.json): score_after: expected {case['score_after']}" in result.stdout
    assert f"1 of {len(data['cases'])} cases mismatch" in result.stdout


def test_a_corrupted_playthrough_fails_with_its_id_and_first_differing_field(tmp_path: Path) -> None:
    data = load(PLAYTHROUGHS)
    case = data["cases"][-1]
    case["rounds"][0]["offers"][0]["n_legal"] += 1
    path = write(tmp_path, "corrupt.json", data)
    result = run_cli(WALL_TILING, path)
    assert result.returncode == 1, result.stdout
    mismatches = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert len(mismatches) == 1
    expected = case["rounds"][0]["offers"][0]["n_legal"]
    assert mismatches[0].startswith(f"MISMATCH {case['id']} (corrupt.json): round 1 offer 1 n_legal")
    assert f"expected {expected}, engine {expected - 1}" in mismatches[0]


def test_a_malformed_file_is_one_error_line_and_exit_2(tmp_path: Path, capsys: Any) -> None:
    path = write(tmp_path, "bad.json", {"format": "chess openings", "cases": []})
    assert main(["conformance", "azul", str(WALL_TILING), str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"error: malformed case file {path}:")
    assert "MISMATCH" not in out and "cases match" not in out
