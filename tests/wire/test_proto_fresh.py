"""The generated code in arena/v1/ must match proto/arena/v1/*.proto: regenerate and compare."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "arena" / "v1"


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    expected = _files(tmp_path / "arena" / "v1")
    actual = _files(GENERATED)
    assert expected, "the generator produced nothing"
    stale = sorted(name for name in expected.keys() | actual.keys() if expected.get(name) != actual.get(name))
    assert not stale, f"arena/v1 is stale, run make proto: {stale}"
