"""The site's JSON API and wiring without a browser: read-only, bounded pages, clear errors, exact replays."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from arena.games.lookup import get_game
from arena.node import ArenaNode
from arena.referee.record import final_state
from arena.store.embedded import EmbeddedRedis, free_port
from arena.web.data import PAGE_SIZE
from arena.web.frames import SECRET_FIELDS, replay_turns, to_json
from arena.web.site import WebServer, start_web
from tests.grpc.harness import redis_node
from tests.test_serve_errors import common, serve_fails
from tests.web.harness import engine_record


@pytest.fixture
async def web(arena_redis: EmbeddedRedis) -> AsyncIterator[tuple[WebServer, ArenaNode]]:
    async with redis_node(arena_redis, "x") as node:
        game = get_game("5211")
        for number in range(2 * PAGE_SIZE + 5):
            await node.matches.store.save(engine_record(game, 2, 918_273_645_000 + number, f"m{number:03d}"))
        server = await start_web(node, "127.0.0.1", 0)
        try:
            yield server, node
        finally:
            await server.stop()


async def fetch(url: str, method: str = "GET") -> tuple[int, Any, dict[str, str]]:
    async with aiohttp.ClientSession() as session, session.request(method, url) as response:
        body = await response.text()
        try:
            data: Any = json.loads(body)
        except ValueError:
            data = body
        return response.status, data, dict(response.headers)


async def test_the_match_list_pages_through_every_match_once_a_bounded_page_at_a_time(
    web: tuple[WebServer, ArenaNode],
) -> None:
    server, _ = web
    seen: list[str] = []
    page = ""
    for _ in range(5):
        status, data, _headers = await fetch(f"{server.url}api/matches?game=5211&page={page}")
        assert status == 200
        assert len(data["matches"]) <= PAGE_SIZE
        seen += [m["match_id"] for m in data["matches"]]
        page = data["next_page"]
        if not page:
            break
    assert sorted(seen) == [f"m{n:03d}" for n in range(2 * PAGE_SIZE + 5)]
    status, data, _ = await fetch(f"{server.url}api/matches?bot=engine-1&state=finished")
    assert status == 200 and len(data["matches"]) == PAGE_SIZE


async def test_bad_filters_get_a_clear_error_naming_the_value(web: tuple[WebServer, ArenaNode]) -> None:
    server, _ = web
    status, data, _ = await fetch(f"{server.url}api/matches?state=sleeping")
    assert status == 400 and "'sleeping'" in data["error"]
    status, data, _ = await fetch(f"{server.url}api/matches?page=not-a-token")
    assert status == 400 and "not-a-token" in data["error"]
    status, data, _ = await fetch(f"{server.url}api/matches/{'x' * 300}/replay")
    assert status == 404 and "no finished match" in data["error"]
    status, body, _ = await fetch(f"{server.url}matches?state=sleeping")
    assert status == 400 and "sleeping" in body and "<html" in body
    status, data, _ = await fetch(f"{server.url}api/matches?league=L00&page=-5")  # a trial's: it was read
    assert status == 400 and "'-5'" in data["error"]
    status, data, _ = await fetch(f"{server.url}api/matches?ladder=LD00&league=L00")
    assert status == 400 and "not both" in data["error"]
    for path in ("api/ladders", "api/ladders/LD00", "api/matches?ladder=LD00"):  # a node without Redis
        status, data, _ = await fetch(f"{server.url}{path}")
        assert status == 404 and "no ladders" in data["error"], path
    status, data, _ = await fetch(f"{server.url}api/overview")
    assert status == 200 and data["ladders"] == []


async def test_the_site_is_read_only_and_sends_its_security_headers(web: tuple[WebServer, ArenaNode]) -> None:
    server, _ = web
    for path in ("", "matches", "api/matches", "api/matches/m001/replay"):
        status, _, headers = await fetch(f"{server.url}{path}", "POST")
        assert status == 405, path
        assert "script-src 'self'" in headers["Content-Security-Policy"]
    status, _, headers = await fetch(f"{server.url}static/viewer.js")
    assert status == 200 and headers["X-Content-Type-Options"] == "nosniff"


async def test_a_replay_is_the_record_played_through_the_rules_without_its_seed(
    web: tuple[WebServer, ArenaNode],
) -> None:
    server, node = web
    record = await node.matches.record("m007")
    status, data, _ = await fetch(f"{server.url}api/matches/m007/replay")
    assert status == 200
    steps = data["turns"]
    assert len(steps) == len(record.turns) + 1
    final = to_json(final_state(record))
    assert steps[-1]["state"] == final
    assert [a["action"] for a in steps[1]["actions"]] == [d.action for d in record.turns[0]]
    text = json.dumps(data)
    assert str(record.seed) not in text
    assert not SECRET_FIELDS & {key for step in steps for key in step["state"]}


def test_replay_turns_keep_only_the_last_round_of_a_history() -> None:
    game = get_game("5211")
    record = engine_record(game, 3, 4, "h")
    steps = replay_turns(record, game)
    last = steps[-1]["state"]
    assert last["history_count"] == len(final_state(record).history) > 1
    assert len(last["history"]) == 1


def test_a_taken_web_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = [*common(tmp_path), "--web-port", str(port), "--open-registration"]
        line = serve_fails(args, tmp_path)
    assert f"cannot serve the web site on 127.0.0.1:{port}" in line
    assert "--web-port" in line


@pytest.mark.slow
def test_arena_run_keep_open_prints_the_site_and_keeps_it_until_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "arena.cli", "run", "--games", "1", "--keep-open", "--web-port", str(port)]
    # Started as a shell starts a background job: with SIGINT ignored, which Ctrl-C must still stop. The
    # shell ignores it (Python in the forked child, preexec_fn, is unsafe: this process may have gRPC's threads).
    in_background = ["sh", "-c", 'trap "" INT && exec "$@"', "sh", *command]
    process = subprocess.Popen(in_background, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    assert process.stdout is not None
    said: list[str] = []
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            assert line, "".join(said)
            said.append(line)
            if "Ctrl-C stops" in line:
                break
        text = "".join(said)
        assert f"web site: http://127.0.0.1:{port}/" in text
        assert f"follow it at http://127.0.0.1:{port}/leagues/L" in text
        time.sleep(1.0)  # still open after the league
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/overview", timeout=10) as response:
            overview = json.loads(response.read())
        assert overview["leagues"][0]["state"] == "finished"
        assert overview["bots_connected"] == 6
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(60)
        except subprocess.TimeoutExpired:
            tree = subprocess.run(
                ["ps", "-o", "pid,ppid,stat,etime,args", "--ppid", str(process.pid)], check=False, capture_output=True
            )
            process.kill()
            raise AssertionError(
                f"arena run still running 60 s after Ctrl-C; its children:\n{tree.stdout.decode()}\n"
                f"it said:\n{''.join(said)}{process.stdout.read()}"
            ) from None
        assert code == 0, process.stdout.read()
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_every_file_of_the_site_is_shipped_as_package_data() -> None:
    """A non-editable install ships only what pyproject's package-data names: every template, module and
    stylesheet must match one of its patterns."""
    import tomllib

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["arena.web"]
    web = root / "arena" / "web"
    files = [p.relative_to(web).as_posix() for p in web.rglob("*") if p.is_file() and p.suffix != ".py"]
    files = [f for f in files if "__pycache__" not in f]
    assert files, "no site files found"
    shipped = {p.relative_to(web).as_posix() for pattern in patterns for p in web.glob(pattern)}
    assert sorted(set(files) - shipped) == []
