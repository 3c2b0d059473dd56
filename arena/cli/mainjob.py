"""``arena run`` (``make run``): the whole arena on one machine, start to finish.

It starts an arena node with its embedded Redis (in a fresh temporary folder), connects the
starter bots — several instances of three strengths, each its own client process — runs a
round-robin league with a live progress bar, prints the final leaderboard with 95% intervals, and
stops everything it started. While the league plays, the node's web site shows it (the job prints
its address); ``keep_open`` (``arena run --keep-open``) keeps the arena, the bots and the site
running after the league until Ctrl-C, so the newcomer can click through what was just played.

Each bot gets its token in its environment (``$ARENA_BOT_TOKEN``), never on its command line. While
the league runs, the job watches its bots and the league: a bot that exits, or a league that makes
no progress for ``stall_seconds``, ends the job at once with one line naming the bot and its log
(the logs are kept when the job fails).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from rich.console import Console

from arena import catalogue
from arena.cli.admin import create_league, get_leaderboard, leaderboard_table, register_bot, watch_league
from arena.cli.loadtest import local_arena
from arena.errors import MainJobError
from arena.store.embedded import dies_with_parent, free_port
from arena.v1 import league_pb2

Arena = Callable[[Path], AbstractContextManager[tuple[str, str, object, str]]]
"""Starts an arena for a ``with`` block: yields (address, metrics URL, handle, admin token)."""


DEFAULT_WEB_PORT = 8080


def site_port(wanted: int) -> int:
    """``wanted`` if nothing listens there on 127.0.0.1, else a free port (0 stays 0: no site)."""
    if wanted == 0:
        return 0
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", wanted))
        except OSError:
            return free_port()
    return wanted


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def wait_for_ctrl_c(bots: Sequence[BotProcess]) -> None:
    """Sleep until Ctrl-C or SIGTERM (or a bot process ends: then raise ``MainJobError`` naming it).

    Both signals are taken here, whatever this process inherited: a shell starts a background job with
    SIGINT ignored, and Python then never raises ``KeyboardInterrupt``."""
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            for bot in bots:
                code = bot.process.poll()
                if code is not None:
                    raise MainJobError(f"bot {bot.name} exited with status {code}; see its log {bot.log}")
            time.sleep(0.5)
    except KeyboardInterrupt:
        return
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def default_lineup(game: str, players: int = 2) -> tuple[tuple[str, str], ...]:
    """(bot name, starter bot) pairs: two of each built-in policy of the game, so equal bots should rate
    alike, or as many more of each as fill a ``players``-player match."""
    policies = catalogue.entry(game).policies
    each = max(2, -(-players // len(policies)))
    return tuple((f"{policy}-{n}", policy) for policy in policies for n in range(1, each + 1))


@dataclasses.dataclass
class MainJob:
    """What ``arena run`` plays."""

    game: str = catalogue.DEFAULT_GAME
    lineup: Sequence[tuple[str, str]] = ()
    """(bot name, starter bot) pairs; empty = :func:`default_lineup` of the game."""
    players: int = 2
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """The game's rules options (``arena run --option KEY=VALUE``), e.g. ``{"wall": "grey"}`` for Azul."""
    games: int = 30
    seed: int = 1
    concurrency: int = 8
    """Matches each bot plays at once."""
    stall_seconds: float = 60.0
    """The job fails when no match of the league ends for this long."""
    arena: Arena | None = None
    """The arena it plays on: by default an ``arena serve`` process with its embedded Redis and web site."""
    web_port: int = DEFAULT_WEB_PORT
    """The default arena's web site port (a free one if it is taken; 0 for no site)."""
    keep_open: bool = False
    """Keep everything running after the league, until Ctrl-C."""


@dataclasses.dataclass
class BotProcess:
    """One starter bot's client process and where its output goes."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path


@contextlib.contextmanager
def bot_processes(address: str, tokens: dict[str, str], lineup: Sequence[tuple[str, str]], concurrency: int,
                  logs: Path, game: str) -> Iterator[list[BotProcess]]:  # fmt: skip
    """One ``python -m arena_bot`` process per bot, its token in its environment; all stopped on exit."""
    bots: list[BotProcess] = []
    processes = []
    try:
        for index, (name, kind) in enumerate(lineup):
            command = [*dies_with_parent(), sys.executable, "-m", "arena_bot", kind, "--server", address]
            command += ["--game", game, "--concurrency", str(concurrency), "--seed", str(index)]
            env = {**os.environ, "ARENA_BOT_TOKEN": tokens[name]}
            path = logs / f"{name}.log"
            with path.open("wb") as log:
                process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
            processes.append(process)
            bots.append(BotProcess(name, process, path))
        yield bots
    finally:
        for process in processes:
            process.terminate()
        deadline = time.monotonic() + 10  # one deadline for all: stopping never takes ten seconds a bot
        for process in processes:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class Watch:
    """Checks, at every poll of the league, that every bot process lives and that matches still end."""

    def __init__(self, bots: Sequence[BotProcess], stall_seconds: float) -> None:
        self.bots = bots
        self.stall_seconds = stall_seconds
        self.done = -1
        self.since = time.monotonic()

    def __call__(self, league: league_pb2.League) -> None:
        """Raise ``MainJobError`` naming the first dead bot, or the stall."""
        for bot in self.bots:
            code = bot.process.poll()
            if code is not None:
                raise MainJobError(f"bot {bot.name} exited with status {code}; see its log {bot.log}")
        if league.progress.done != self.done:
            self.done, self.since = league.progress.done, time.monotonic()
        elif time.monotonic() - self.since > self.stall_seconds:
            raise MainJobError(
                f"no match ended for {self.stall_seconds:g} s ({self.done}/{league.progress.total} done); "
                f"see the bots' logs in {self.bots[0].log.parent if self.bots else '?'}"
            )


OWNER_FILE = "owner"
"""In an ``arena run`` data folder: the pid and start time of the run using it."""


def _started(pid: int) -> str | None:
    """When the process started (clock ticks since boot, ``/proc/PID/stat``'s 22nd field): with its pid
    it names one process, where a pid alone may be reused; None if it is gone (or a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def own_folder(folder: Path) -> None:
    """Say that this process uses ``folder``, so that a later run can tell it was left behind."""
    (folder / OWNER_FILE).write_text(f"{os.getpid()} {_started(os.getpid())}\n")


def sweep_leftovers() -> int:
    """Remove the data folders that runs killed outright (SIGKILL, the OOM killer) left in the
    temporary folder: this user's, whose run is gone. Not the logs a failed run keeps on purpose
    (its error names them), nor a folder without an owner yet. Returns how many."""
    removed = 0
    for folder in Path(tempfile.gettempdir()).glob("arena-run-*"):
        if folder.name.startswith("arena-run-logs-"):
            continue
        try:
            if folder.is_symlink() or folder.stat().st_uid != os.getuid():
                continue
            pid, started = (folder / OWNER_FILE).read_text().split()
            gone = _started(int(pid)) != started
        except (OSError, ValueError):
            continue
        if gone:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def run_main_job(job: MainJob, console: Console) -> int:
    """Start everything, play the league, print the table; 0 when every match ended normally."""
    sweep_leftovers()
    logs = Path(tempfile.mkdtemp(prefix="arena-run-logs-"))
    try:
        code = _play(job, console, logs)
    except MainJobError as error:
        console.print(f"[bold red]arena run failed:[/bold red] {error}", highlight=False, soft_wrap=True)
        return 1
    shutil.rmtree(logs, ignore_errors=True)
    return code


def _play(job: MainJob, console: Console, logs: Path) -> int:
    started = time.monotonic()
    lineup = tuple(job.lineup) or default_lineup(job.game, job.players)
    port = site_port(job.web_port) if job.arena is None else 0
    arena = job.arena or functools.partial(local_arena, web_port=port)
    site = f"http://127.0.0.1:{port}/" if port else ""
    with tempfile.TemporaryDirectory(prefix="arena-run-") as folder:
        data = Path(folder)
        own_folder(data)
        console.print(f"[bold]Starting an arena node[/bold] with its embedded Redis in {data}")
        with arena(data / "data") as (address, metrics_url, _server, admin):
            console.print(f"  serving on {address}; Prometheus metrics on {metrics_url}")
            if site:
                console.print(f"  [bold]web site: {site}[/bold] (leaderboards, matches, replays, live matches)")
            tokens = {name: register_bot(address, name, admin) for name, _ in lineup}
            kinds = ", ".join(f"{name} ({kind})" for name, kind in lineup)
            console.print(f"[bold]Connecting {len(lineup)} bots[/bold], each its own process: {kinds}")
            with bot_processes(address, tokens, lineup, job.concurrency, logs, job.game) as bots:
                league = create_league(
                    address,
                    admin,
                    bots=[name for name, _ in lineup],
                    game=job.game,
                    players=job.players,
                    games=job.games,
                    seed=job.seed,
                    name="demo league",
                    options=job.options,
                )
                options = "".join(f" {key}={value}" for key, value in job.options.items())
                console.print(
                    f"[bold]League {league.league_id}[/bold]: {job.game}{options}, round-robin, "
                    f"{job.players} players a match, "
                    f"{job.games} games per pairing: {league.progress.total} matches queued"
                )
                if site:
                    console.print(f"  follow it at {site}leagues/{league.league_id}")
                watch_league(address, league.league_id, console, check=Watch(bots, job.stall_seconds))
                board = get_leaderboard(address, league.league_id)
                if job.keep_open:
                    console.print()
                    console.print(leaderboard_table(board))
                    where = f"the web site at {site}" if site else "the arena"
                    console.print(
                        f"[bold]Keeping {where}, the node on {address} and the bots running: Ctrl-C stops[/bold]"
                    )
                    wait_for_ctrl_c(bots)
                    console.print("Stopping everything.")
        if not job.keep_open:
            console.print()
            console.print(leaderboard_table(board))
        total = board.league.progress.total
        elapsed = time.monotonic() - started
        console.print(f"{total} matches in {elapsed:.0f} s, everything stopped. See README.md for what to do next.")
        abnormal = sum(entry.forfeits for entry in board.entries)
        return 0 if board.league.progress.done == total and abnormal == 0 else 1
