"""``arena run``: a token starting with '-' plays, and a bot that dies ends the job at once, named."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from rich.console import Console

from arena.cli.mainjob import MainJob, own_folder, run_main_job, sweep_leftovers
from arena.serve.process import RunningNode, ServeConfig, start_node
from arena.store.embedded import EmbeddedRedis
from arena.v1 import common_pb2, match_pb2, match_pb2_grpc


@pytest.fixture(autouse=True)
def temporary_folders_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job's temporary folders (its data; the bots' logs, which it keeps when it fails; everything
    an ``arena run`` killed outright leaves) go under ``tmp_path``, not the machine's /tmp."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # for the processes the tests start
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def dash_tokens() -> str:
    return "-" + secrets.token_urlsafe(32)


@contextlib.contextmanager
def node_with_dash_tokens(redis_url: str) -> Iterator[tuple[str, str, object, str]]:
    """A real node (its own event loop in a thread, a real Redis) whose new tokens all start with '-'."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    admin = secrets.token_urlsafe(24)
    config = ServeConfig(address="127.0.0.1:0", redis_url=redis_url, admin_token=admin, metrics_address=None)
    running: RunningNode = asyncio.run_coroutine_threadsafe(start_node(config), loop).result(30)
    running.node.registry.make_token = dash_tokens
    try:
        yield f"127.0.0.1:{running.port}", "(none)", running, admin
    finally:
        asyncio.run_coroutine_threadsafe(running.stop(1.0), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def test_the_main_job_plays_with_tokens_that_start_with_a_dash(redis_server: EmbeddedRedis) -> None:
    output = io.StringIO()
    job = MainJob(
        lineup=(("a", "random"), ("b", "heuristic")),
        games=2,
        stall_seconds=30,
        arena=lambda _data: node_with_dash_tokens(redis_server.url),
    )
    code = run_main_job(job, Console(file=output, width=160))
    said = output.getvalue()
    assert code == 0, said
    assert "2 matches in" in said


def test_a_bot_that_dies_ends_the_main_job_at_once_naming_it_and_its_log() -> None:
    output = io.StringIO()
    job = MainJob(lineup=(("fine", "random"), ("doomed", "no_such_module:Bot")), games=50, stall_seconds=60)
    code = run_main_job(job, Console(file=output, width=400))
    said = output.getvalue()
    assert code == 1, said
    line = next(line for line in said.splitlines() if "arena run failed" in line)
    assert "bot doomed exited with status 1" in line
    log = Path(line.rsplit("see its log ", 1)[1].strip())
    assert log.name == "doomed.log" and "No module named 'no_such_module'" in log.read_text()


SLUGGISH = '''
import asyncio

from arena_bot import Bot, Turn


class Sluggish(Bot):
    """Alive and connected, but thinks longer than any allowance: its matches never end in time."""

    async def act(self, turn: Turn) -> str:
        await asyncio.sleep(3600)
        return turn.legal_actions[0]
'''


def test_a_league_that_stops_ending_matches_ends_the_main_job_naming_the_stall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sluggish_bot.py").write_text(SLUGGISH)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    output = io.StringIO()
    job = MainJob(lineup=(("quick", "random"), ("slow", "sluggish_bot:Sluggish")), games=5, stall_seconds=4)
    code = run_main_job(job, Console(file=output, width=400))
    said = output.getvalue()
    assert code == 1, said
    line = next(line for line in said.splitlines() if "arena run failed" in line)
    assert "no match ended for 4 s (0/5 done)" in line, line


def test_the_main_job_plays_a_coloretto_league_of_its_built_in_bots(redis_server: EmbeddedRedis) -> None:
    output = io.StringIO()
    job = MainJob(
        game="coloretto",
        players=3,
        games=1,
        stall_seconds=60,
        arena=lambda _data: node_with_dash_tokens(redis_server.url),
    )
    code = run_main_job(job, Console(file=output, width=160))
    said = output.getvalue()
    assert code == 0, said
    assert "coloretto, round-robin, 3 players a match" in said
    # Four bots, every 3-subset once: four matches, and a leaderboard row for each bot.
    assert "4 matches in" in said
    for name in ("heuristic-1", "heuristic-2", "random-1", "random-2"):
        assert name in said.rsplit("matches queued", 1)[1]


def test_the_main_job_plays_a_grey_wall_azul_league_of_sdk_bots_to_a_leaderboard(redis_server: EmbeddedRedis) -> None:
    played: list[match_pb2.MatchSummary] = []

    @contextlib.contextmanager
    def arena(_data: Path) -> Iterator[tuple[str, str, object, str]]:
        with node_with_dash_tokens(redis_server.url) as (address, metrics, running, admin):
            yield address, metrics, running, admin
            with grpc.insecure_channel(address) as channel:  # before the node stops: what was played
                listing = match_pb2_grpc.MatchServiceStub(channel).ListMatches(
                    match_pb2.ListMatchesRequest(game="azul"), timeout=10
                )
                played.extend(listing.matches)

    output = io.StringIO()
    job = MainJob(game="azul", players=3, options={"wall": "grey"}, games=1, stall_seconds=60, arena=arena)
    code = run_main_job(job, Console(file=output, width=160))
    said = output.getvalue()
    assert code == 0, said
    assert "azul wall=grey, round-robin, 3 players a match" in said
    assert "4 matches in" in said
    for name in ("heuristic-1", "heuristic-2", "random-1", "random-2"):
        assert name in said.rsplit("matches queued", 1)[1]
    assert len(played) == 4
    assert all(m.outcome.termination == common_pb2.TERMINATION_NORMAL for m in played)
    assert all(dict(m.options) == {"wall": '"grey"'} for m in played)


def descendants(pid: int) -> set[int]:
    """A process's living descendants (from /proc/PID/task/*/children)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for children in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                for child in map(int, children.read_text().split()):
                    if child not in found:
                        found.add(child)
                        todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def leftovers(temp: Path) -> list[Path]:
    """The ``arena run`` data folders in ``temp`` (not the logs a failed run keeps on purpose)."""
    return [folder for folder in temp.glob("arena-run-*") if not folder.name.startswith("arena-run-logs-")]


def test_an_arena_run_sweeps_the_folders_of_runs_killed_outright(tmp_path: Path) -> None:
    """Each ``arena run`` killed outright left its data folder in /tmp (its embedded Redis's files),
    and nothing ever removed it: 36 had piled up on one machine. A run removes those whose run is
    gone, and nothing else: a live run's, a failed run's logs, another user's."""
    claim = "import tempfile; from pathlib import Path; from arena.cli.mainjob import own_folder; "
    claim += "own_folder(Path(tempfile.mkdtemp(prefix='arena-run-')))"
    subprocess.run([sys.executable, "-c", claim], check=True)  # a run that is gone
    [gone] = leftovers(tmp_path)
    live = Path(tempfile.mkdtemp(prefix="arena-run-"))
    own_folder(live)  # this process's: alive
    unowned = Path(tempfile.mkdtemp(prefix="arena-run-"))  # being created, or an older version's
    logs = Path(tempfile.mkdtemp(prefix="arena-run-logs-"))
    assert sweep_leftovers() == 1
    assert not gone.exists()
    assert live.exists() and unowned.exists() and logs.exists()


@pytest.mark.slow
def test_an_arena_run_killed_outright_leaves_nothing_running(tmp_path: Path) -> None:
    """``arena run`` killed with SIGKILL (an operator's kill -9, the OOM killer) left its node and its
    bots running, holding their ports, with nobody to stop them."""
    command = [sys.executable, "-m", "arena.cli", "run", "--games", "1000", "--web-port", "0"]
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    children: set[int] = set()
    try:
        assert job.stdout is not None
        for line in job.stdout:  # the bots are connected once the league is created
            if "Connecting" in line:
                break
        for _ in range(100):
            children |= descendants(job.pid)
            if len(children) >= 4:  # the node, its Redis and the bots
                break
            time.sleep(0.1)
        assert len(children) >= 4, children
        job.kill()
        job.wait(10)
        for _ in range(200):
            if not any(alive(pid) for pid in children):
                break
            time.sleep(0.1)
        left = [Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ") for pid in children if alive(pid)]
        assert not left, left
        # Its folder stays behind (nothing can remove it as it is killed); the next arena run does.
        assert len(leftovers(tmp_path)) == 1
        assert sweep_leftovers() == 1
        assert leftovers(tmp_path) == []
    finally:
        if job.poll() is None:
            children |= descendants(job.pid)
            job.kill()
            job.wait(10)
        for pid in children:  # what this test found left, so that it does not outlive the test
            if alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
