"""FOOL! through the whole arena: an 8-player league of Python-SDK bot processes completes with a
leaderboard (``arena run --game fool --players 8``), and the command line's demo prints each trick."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest
from rich.console import Console

from arena.cli.mainjob import MainJob, default_lineup, run_main_job


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.slow
def test_an_eight_player_fool_league_of_sdk_bot_processes_ends_with_a_leaderboard() -> None:
    lineup = default_lineup("fool", 8)
    assert sorted(kind for _, kind in lineup) == ["heuristic"] * 4 + ["random"] * 4
    output = io.StringIO()
    job = MainJob(game="fool", players=8, games=2, stall_seconds=90)
    code = run_main_job(job, Console(file=output, width=200))
    said = output.getvalue()
    assert code == 0, said
    assert "fool, round-robin, 8 players a match" in said
    assert "2 matches in" in said
    board = said.rsplit("matches queued", 1)[1]
    for name, _ in lineup:
        assert name in board, name


def test_the_fool_demo_prints_each_trick_readably() -> None:
    done = _arena("demo", "--game", "fool", "--seed", "4")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(
        "seat 0: heuristic, seat 1: heuristic, seat 2: heuristic, seat 3: random, seat 4: random, "
        "seat 5: random; seed 4\n"
    )
    assert "FOOL!, 6 players, 72 cards in play, 12 a hand, one Fool a trick, a wild left costs 5" in out
    tricks = [line for line in out.splitlines() if line.lstrip().startswith("trick ")]
    assert len(tricks) > 10
    # Every trick: its cards by seat in play order, the lead colour, the winner and the Fool.
    shape = re.compile(
        r"^  trick +\d+  (\d:[GRYBW]\d+ *)+\| (green|red|yellow|blue|only wilds): seat \d wins, Fool seat \d"
    )
    assert all(shape.match(line) for line in tricks), [line for line in tricks if not shape.match(line)][:3]
    assert any("(sat out: " in line for line in tricks)
    assert "Round 1 (dealer seat " in out and "scoring (hands shown):" in out
    assert re.search(r"seat \d  left .* total ", out)
    assert "Result" in out and "Winner(s): seat " in out


def test_fool_is_for_four_to_eight_players_on_the_command_line() -> None:
    done = _arena("run", "--game", "fool", "--players", "9")
    assert done.returncode == 2
    assert done.stderr.strip() == "arena run: fool is for 4 to 8 players, not 9"
