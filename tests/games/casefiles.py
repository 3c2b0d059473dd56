"""Where the shared 5211 conformance case files are, and how tests read them.

The repository sits beside ``shared/`` (locally and in CI), so the files are found relative to
this file rather than the working directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SHARED_5211 = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "5211"
ROUND_SCORING = SHARED_5211 / "round-scoring.json"
PLAYTHROUGHS = SHARED_5211 / "playthroughs.json"


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The ``cases`` list of a shared case file."""
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return cases


SHARED_COLORETTO = SHARED_5211.parent / "coloretto"
COLORETTO_PLAYTHROUGHS = SHARED_COLORETTO / "playthroughs.json"
COLORETTO_SCORING = SHARED_COLORETTO / "scoring.json"
