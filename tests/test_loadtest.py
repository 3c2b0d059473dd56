"""``arena loadtest`` end to end, small and bounded: its own arena, bot processes, exact counts."""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from arena.cli.loadtest import LoadConfig, histogram_quantiles, run
from tests.grpc.harness import Arena
from tests.loadbots import check_load_bots


def test_a_small_load_test_plays_every_match_without_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """... and leaves nothing behind: the bots' tokens it hands its bot processes in files were left
    in a folder of /tmp after every run."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    console = Console(file=io.StringIO(), width=120)
    result = run(LoadConfig(bots=12, matches=60, concurrency=8, players=2, processes=2), console=console)
    assert not [path.name for path in tmp_path.glob("arena-load-*")]
    assert result.matches == 60
    assert result.errors == 0
    assert result.decisions == 60 * 33 * 2  # 2 players: 11 rounds of 3 turns, both seats each turn
    assert result.latency_p50 is not None and result.latency_p99 is not None
    assert 0 < result.latency_p50 <= result.latency_p99
    assert "60 matches (2 players) by 12 bots" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_load_test_of_another_game_plays_it_through_its_legal_actions() -> None:
    console = Console(file=io.StringIO(), width=120)
    result = run(
        LoadConfig(bots=6, matches=12, concurrency=4, game="coloretto", players=3, processes=1), console=console
    )
    assert result.matches == 12
    assert result.errors == 0
    assert result.abnormal_matches == 0
    assert result.decisions > 12 * 50  # a 3-player Coloretto game takes over a hundred decisions


@pytest.mark.timeout(60)
async def test_the_load_bots_answer_legally_and_echo_each_seat(arena: Arena, tmp_path: Path) -> None:
    """arena.cli.loadtest_bots (see tests/loadbots.py), stopped by closing its standard input."""
    await check_load_bots([sys.executable, "-m", "arena.cli.loadtest_bots"], arena, tmp_path)


def test_histogram_quantiles_interpolate_within_buckets() -> None:
    text = "\n".join(
        [
            "# TYPE x histogram",
            'x_bucket{le="0.1"} 50',
            'x_bucket{le="0.2"} 90',
            'x_bucket{le="+Inf"} 100',
            "x_count 100",
            "x_sum 10",
        ]
    )
    p50, p90, p99 = histogram_quantiles(text + "\n", "x", (0.5, 0.9, 0.99))
    assert p50 == 0.1
    assert p90 is not None and abs(p90 - 0.2) < 1e-9
    assert p99 == 0.2  # beyond the last finite bucket: its bound
