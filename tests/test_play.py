"""``arena play``: an author's Bot class plays built-in bots in this process, no server, no Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena import catalogue

BOT = '''
from arena_bot import Bot, Turn


class Greedy(Bot):
    """Always the last legal action."""

    def act(self, turn: Turn) -> str:
        assert turn.observation is not None and turn.seat in (0, 1, 2)
        return turn.legal_actions[-1]
'''


def play(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_SERVER"] = "127.0.0.1:1"  # nothing listens there: a play must not need it
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env=env,
    )


@pytest.mark.parametrize("game", catalogue.names())
def test_a_bot_file_plays_built_in_bots_and_the_match_is_printed(game: str, tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(BOT)
    seats = catalogue.entry(game).default_players
    players = ["mybot.py", *(("random", "heuristic") * seats)][:seats]
    result = play("--game", game, *players, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("seat 0: mybot.py, seat 1: random") and "not a legal action" not in result.stdout
    assert len(result.stdout.splitlines()) > 10


def test_an_illegal_answer_is_reported_and_the_first_legal_action_played(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BOT.replace("turn.legal_actions[-1]", '"nonsense"'))
    result = play("bad.py:Greedy", "random", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "seat 0 (bad.py:Greedy): 'nonsense' is not a legal action; the referee plays" in result.stdout


def test_a_player_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    result = play("nothere.py", "random", cwd=tmp_path)
    assert result.returncode == 2 and "no bot file 'nothere.py'" in result.stderr and "Traceback" not in result.stderr
    unknown = play("randm", "random", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown player 'randm'" in unknown.stderr


def test_rules_options_reach_the_local_match_and_a_bad_one_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(BOT)
    grey = play("--game", "azul", "--option", "wall=grey", "mybot.py", "random", cwd=tmp_path)
    assert grey.returncode == 0, grey.stderr
    assert "not a legal action" not in grey.stdout and ":" in grey.stdout
    bad = play("--game", "azul", "--option", "wall=purple", "mybot.py", "random", cwd=tmp_path)
    assert bad.returncode == 2 and "purple" in bad.stderr and "Traceback" not in bad.stderr
