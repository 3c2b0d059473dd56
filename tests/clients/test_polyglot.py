"""Bots of different languages at one table: Python, TypeScript, Go, Rust and Java in one 5-player
match, then C++ with them in another — real processes against a real arena server."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.referee.timecontrol import TimeControl
from arena.v1 import common_pb2
from arena.wire import record as wire_record
from tests.clients.kits import build_kit, python_bot, running_bots
from tests.grpc.harness import Arena, eventually

TC = TimeControl(decision_seconds=5.0, bank_seconds=10.0, max_strikes=3, grace_seconds=10.0)
KIT_LANGUAGES = ("typescript", "go", "rust", "java", "cpp")


@pytest.fixture(scope="session")
def kits() -> dict[str, Path]:
    """Every kit built (each build is incremental: seconds when nothing changed)."""
    return {language: build_kit(language) for language in KIT_LANGUAGES}


async def play(arena: Arena, names: list[str], seed: int) -> common_pb2.Outcome:
    match_id = await arena.start_match(names, seed=seed, tc=TC)
    await eventually(lambda: match_id not in arena.node.matches.running, 120)
    record = await arena.record(match_id)
    wire_record.check_record(record)
    assert not record.rejections, list(record.rejections)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    return record.outcome


@pytest.mark.timeout(1200)
async def test_six_languages_share_tables(arena: Arena, kits: dict[str, Path], tmp_path: Path) -> None:
    lineup = [
        ("py", python_bot("heuristic")),
        ("ts", [str(kits["typescript"]), "--strategy", "heuristic"]),
        ("go", [str(kits["go"]), "--strategy", "heuristic"]),
        ("rs", [str(kits["rust"]), "--strategy", "heuristic"]),
        ("java", [str(kits["java"]), "--strategy", "heuristic"]),
        ("cpp", [str(kits["cpp"]), "--strategy", "heuristic"]),
    ]
    async with running_bots(arena, tmp_path, lineup) as processes:
        first = await play(arena, ["py", "ts", "go", "rs", "java"], seed=1)
        second = await play(arena, ["cpp", "java", "rs", "go", "ts"], seed=2)
        for outcome in (first, second):
            assert sorted(outcome.placings)[0] == 1
        by_name = {p.name: p for p in processes}
        for name in ("ts", "go", "rs", "java", "cpp"):
            assert await by_name[name].line("ended ")
            assert not [line for line in by_name[name].lines if line.startswith("rejected ")]
