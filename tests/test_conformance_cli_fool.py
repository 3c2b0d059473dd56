"""``arena conformance fool``: the real command on the shared FOOL! case files, and on corrupted copies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.cli.main import main

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "fool"
FILES = sorted(SHARED.glob("*.json"))
TRICKS = SHARED / "tricks.json"
PLAYTHROUGHS = SHARED / "playthroughs.json"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "conformance", "fool", *map(str, args)],
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
    assert {p.name for p in FILES} == {"legal-plays.json", "playthroughs.json", "tricks.json"}
    result = run_cli(*FILES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MISMATCH" not in result.stdout
    cases = sum(len(load(path)["cases"]) for path in FILES)
    assert f"fool conformance OK: all {cases} cases match" in result.stdout


def test_a_corrupted_trick_case_fails_naming_it_and_the_field(tmp_path: Path) -> None:
    data = load(TRICKS)
    case = data["cases"][2]
    wrong = (case["winner"] + 1) % case["players"]
    case["winner"] = wrong
    result = run_cli(write(tmp_path, "corrupt.json", data))
    assert result.returncode == 1, result.stdout
    assert f"MISMATCH {case['id']} (corrupt.json): winner: expected {wrong}" in result.stdout
    assert f"1 of {len(data['cases'])} cases mismatch" in result.stdout


def test_a_corrupted_playthrough_fails_with_its_id_and_first_differing_checkpoint(tmp_path: Path) -> None:
    data = load(PLAYTHROUGHS)
    case = data["cases"][1]
    case["rounds"][0]["tricks"][0]["fools"] = [case["rounds"][0]["tricks"][0]["winner"]]
    result = run_cli(TRICKS, write(tmp_path, "corrupt.json", data))
    assert result.returncode == 1, result.stdout
    mismatches = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert len(mismatches) == 1, result.stdout
    assert mismatches[0].startswith(f"MISMATCH {case['id']} (corrupt.json): "), mismatches
    assert "fools" in mismatches[0]


def test_a_malformed_file_is_one_error_line_and_exit_2(tmp_path: Path, capsys: Any) -> None:
    path = write(tmp_path, "bad.json", {"cases": [{"id": "x", "neither": 1}]})
    assert main(["conformance", "fool", str(TRICKS), str(path)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"error: malformed case file {path}:")
    assert "MISMATCH" not in out
    assert "cases match" not in out
