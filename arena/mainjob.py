"""``arena run`` (``make run``): the whole arena on one machine, start to finish.

It starts an arena node with its embedded Redis (in a fresh temporary folder), connects the
starter bots — several instances of three strengths, each its own client process — runs a
round-robin league with a live progress bar, prints the final leaderboard with 95% intervals, and
stops everything it started.
"""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console

from arena.admin import create_league, get_leaderboard, leaderboard_table, register_bot, watch_league
from arena.loadtest import local_arena

DEFAULT_LINEUP: tuple[tuple[str, str], ...] = (
    ("heuristic-1", "heuristic"),
    ("heuristic-2", "heuristic"),
    ("hasty-1", "hasty"),
    ("hasty-2", "hasty"),
    ("random-1", "random"),
    ("random-2", "random"),
)
"""(bot name, starter bot) pairs: two of each strength, so equal bots should rate alike."""


@dataclasses.dataclass
class MainJob:
    """What ``arena run`` plays."""

    lineup: Sequence[tuple[str, str]] = DEFAULT_LINEUP
    players: int = 2
    games: int = 30
    seed: int = 5211
    concurrency: int = 8
    """Matches each bot plays at once."""


@contextlib.contextmanager
def bot_processes(address: str, tokens: dict[str, str], lineup: Sequence[tuple[str, str]], concurrency: int,
                  logs: Path) -> Iterator[list[subprocess.Popen[bytes]]]:  # fmt: skip
    """One ``python -m arena_bot`` process per bot; all stopped on exit."""
    processes = []
    try:
        for index, (name, kind) in enumerate(lineup):
            command = [sys.executable, "-m", "arena_bot", kind, "--server", address, "--token", tokens[name]]
            command += ["--concurrency", str(concurrency), "--seed", str(index)]
            log = (logs / f"{name}.log").open("wb")
            processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT))
        yield processes
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def run_main_job(job: MainJob, console: Console) -> int:
    """Start everything, play the league, print the table; 0 when every match ended normally."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-run-") as folder:
        data = Path(folder)
        console.print(f"[bold]Starting an arena node[/bold] with its embedded Redis in {data}")
        with local_arena(data / "data") as (address, metrics_url, _server):
            console.print(f"  serving on {address}; Prometheus metrics on {metrics_url}")
            tokens = {name: register_bot(address, name, None) for name, _ in job.lineup}
            kinds = ", ".join(f"{name} ({kind})" for name, kind in job.lineup)
            console.print(f"[bold]Connecting {len(job.lineup)} bots[/bold], each its own process: {kinds}")
            with bot_processes(address, tokens, job.lineup, job.concurrency, data):
                league = create_league(
                    address,
                    None,
                    bots=[name for name, _ in job.lineup],
                    players=job.players,
                    games=job.games,
                    seed=job.seed,
                    name="demo league",
                )
                console.print(
                    f"[bold]League {league.league_id}[/bold]: round-robin, {job.players} players a match, "
                    f"{job.games} games per pairing: {league.progress.total} matches queued"
                )
                watch_league(address, league.league_id, console)
                board = get_leaderboard(address, league.league_id)
        console.print()
        console.print(leaderboard_table(board))
        total = board.league.progress.total
        elapsed = time.monotonic() - started
        console.print(f"{total} matches in {elapsed:.0f} s, everything stopped. See README.md for what to do next.")
        abnormal = sum(entry.forfeits for entry in board.entries)
        return 0 if board.league.progress.done == total and abnormal == 0 else 1
