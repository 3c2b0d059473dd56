"""The wire contract stays compatible with the last released one (proto/released.binpb), checked by ``buf breaking``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUF = Path(sys.executable).parent / "buf"
RELEASED = ROOT / "proto" / "released.binpb"


def breaking(workspace: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), "breaking", "--against", str(RELEASED)],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_contract_does_not_break_released_clients() -> None:
    result = breaking(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_breaking_change_is_caught(tmp_path: Path) -> None:
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    envelope = tmp_path / "proto" / "arena" / "v1" / "observation.proto"
    text = envelope.read_text(encoding="utf-8")
    # Renumbering a released field breaks every client that knows it.
    envelope.write_text(text.replace("Game5211Observation game_5211 = 1;", "Game5211Observation game_5211 = 9;"))
    result = breaking(tmp_path)
    assert result.returncode != 0
    assert "game_5211" in result.stdout + result.stderr
