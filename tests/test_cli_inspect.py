"""The read commands a script uses: matches, match show/replay/watch, the league export; --json,
exit codes, usage mistakes, connection failures and configuration by environment."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from arena import __version__, catalogue
from arena.league.schedule import LeagueSpec
from arena.referee.timecontrol import TimeControl
from arena.service.leagues import LeagueService
from arena.store.embedded import free_port
from tests.grpc.harness import ADMIN, Arena
from tests.queue.harness import wait_done


def arena_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=clean | (env or {}),
    )


async def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(arena_cli, *args, env=env)


async def test_matches_show_replay_and_watch_print_text_or_json(arena: Arena) -> None:
    bots = [await arena.connect(name) for name in ("ann", "bob")]
    match_id = await arena.start_match(["ann", "bob"], seed=3)
    for bot in bots:
        await bot.wait_ended(match_id)
    server = ("--server", arena.address)
    listed = await run("matches", *server, "--json")
    assert listed.returncode == 0, listed.stderr
    [summary] = json.loads(listed.stdout)
    assert summary["match_id"] == match_id and summary["state"] == "MATCH_STATE_FINISHED"
    plain = await run("matches", *server, "--bot", "ann", "--state", "finished", "--limit", "5")
    assert plain.returncode == 0 and "\x1b" not in plain.stdout and "─" not in plain.stdout
    assert plain.stdout.splitlines()[1].split("\t")[:3] == [match_id, "5211", "finished"]
    assert (await run("matches", *server, "--bot", "cat", "--json")).stdout.strip() == "[]"

    shown = await run("match", "show", match_id, *server, "--json")
    assert json.loads(shown.stdout)["outcome"]["termination"] == "TERMINATION_NORMAL"
    text = (await run("match", "show", match_id, *server)).stdout
    assert "result (normal)" in text and "seat 0 ann" in text

    replay = await run("match", "replay", match_id, *server)
    assert replay.returncode == 0, replay.stderr
    record = await arena.record(match_id)
    from arena.cli.matchcli import replay_lines

    assert replay.stdout == "".join(line + "\n" for line in replay_lines(record))
    entry = catalogue.entry("5211")
    assert any(line in replay.stdout for line in entry.printer.describe_end(_final(record)))
    as_json = json.loads((await run("match", "replay", match_id, *server, "--json")).stdout)
    assert as_json["match_id"] == match_id and len(as_json["decisions"]) == len(record.decisions)

    watched = await run("match", "watch", match_id, *server, "--json")
    events = [json.loads(line) for line in watched.stdout.splitlines()]
    assert list(events[0]) == ["summary"] and list(events[-1]) == ["outcome"]
    missing = await run("match", "show", "nope", *server)
    assert missing.returncode == 1 and "not_found" in missing.stderr and missing.stdout == ""


def _final(record: object) -> object:
    from arena.wire.record import iter_states

    return list(iter_states(record))[-1]  # type: ignore[arg-type]


async def test_a_league_exports_one_row_per_match_as_jsonl_or_csv(arena: Arena, leagues: LeagueService) -> None:
    for name in ("ann", "bob", "cat"):
        await arena.connect(name, capacity=4)
    tc = TimeControl(decision_allowance=5.0, time_bank=5.0)
    await leagues.create(LeagueSpec("LX", "5211", 2, ("ann", "bob", "cat"), games_per_pairing=1, seed=1), tc)
    await wait_done(leagues, "LX", 60)
    jsonl = await run("league", "export", "LX", "--server", arena.address, "--format", "jsonl")
    assert jsonl.returncode == 0, jsonl.stderr
    rows = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert len(rows) == 3 and {r["league_id"] for r in rows} == {"LX"}
    for row in rows:
        assert len(row["bots"]) == 2 and row["seats"] == [0, 1] and sorted(row["placings"])[0] == 1
        assert row["termination"] == "normal" and len(row["scores"]) == 2
    table = list(csv.DictReader(io.StringIO((await run("league", "export", "LX", "--server", arena.address)).stdout)))
    assert len(table) == 3 and {r["match_id"] for r in table} == {r["match_id"] for r in rows}


def test_version_usage_mistakes_and_connection_failures(tmp_path: Path) -> None:
    version = arena_cli("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"arena {__version__}"
    typo = arena_cli("matches", "--stat", "running")
    assert typo.returncode == 2 and "usage: arena matches" in typo.stderr and "--stat" in typo.stderr
    no_port = arena_cli("matches", "--server", "localhost")
    assert no_port.returncode == 2 and "'localhost'" in no_port.stderr and "HOST:PORT" in no_port.stderr
    games = arena_cli("run", "--games", "-3")
    assert games.returncode == 2 and "'-3'" in games.stderr and "Traceback" not in games.stderr
    level = arena_cli("serve", "--log-level", "verbose")
    assert level.returncode == 2 and "'verbose'" in level.stderr
    port = free_port()
    down = arena_cli("matches", "--server", f"127.0.0.1:{port}")
    assert down.returncode == 1 and f"no arena is listening at 127.0.0.1:{port}" in down.stderr
    from_env = arena_cli("nodes", env={"ARENA_SERVER": f"127.0.0.1:{port}"})
    assert from_env.returncode == 1 and f"127.0.0.1:{port}" in from_env.stderr
    wrong = arena_cli("matches", "--server", "no-such-host.invalid:50051")
    assert wrong.returncode == 1 and "cannot resolve" in wrong.stderr and "no-such-host.invalid" in wrong.stderr


async def test_a_tls_client_against_a_plain_server_is_told_so(arena: Arena, tmp_path: Path) -> None:
    ca, key = tmp_path / "ca.pem", tmp_path / "key.pem"
    await asyncio.to_thread(
        subprocess.run,
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-keyout", str(key), "-out", str(ca)],
        check=True, capture_output=True,
    )  # fmt: skip
    mismatch = await run("matches", "--server", arena.address, "--tls-ca", str(ca))
    assert mismatch.returncode == 1 and "TLS" in mismatch.stderr and "--tls-ca" in mismatch.stderr


async def test_the_admin_token_is_found_from_the_data_folder_or_the_message_says_how(
    arena: Arena, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "admin-token").write_text(ADMIN + "\n")
    found = await run("register", "zed", "--server", arena.address, env={"ARENA_DATA_DIR": str(data)})
    assert found.returncode == 0, found.stderr
    deep = data / "a" / "b"
    deep.mkdir(parents=True)
    upward = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "arena.cli", "register", "yan", "--server", arena.address],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path / "data" / "a" / "b",
        env={k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        | {"PYTHONPATH": str(Path(__file__).parent.parent)},
    )
    assert upward.returncode == 0, upward.stderr  # found in ../../ (the data folder's parent holds data/)
    none = await run("register", "xi", "--server", arena.address, env={"ARENA_DATA_DIR": str(tmp_path / "empty")})
    assert none.returncode == 1
    assert "--admin-token-file" in none.stderr and "ARENA_ADMIN_TOKEN" in none.stderr


async def test_a_one_match_league_says_match_and_league_watch_prints_json_lines(
    arena: Arena, leagues: LeagueService
) -> None:
    for name in ("ann", "bob"):
        await arena.connect(name)
    common = ("--server", arena.address, "--admin-token", ADMIN)
    created = await run("league", "create", "ann", "bob", "--games", "1", *common)
    assert created.returncode == 0, created.stderr
    assert created.stdout.rstrip().endswith(": 1 match queued")
    league_id = created.stdout.split()[1].rstrip(":")
    watched = await run("league", "watch", league_id, "--server", arena.address, "--json")
    polls = [json.loads(line) for line in watched.stdout.splitlines()]
    assert polls and polls[-1]["league_id"] == league_id and polls[-1]["progress"]["done"] == 1
    board = await run("leaderboard", league_id, "--server", arena.address)
    assert "1 of 1 match," in board.stdout and "matches," not in board.stdout.splitlines()[0]
    lines = board.stdout.splitlines()  # piped: the title, then tab-separated lines, no table drawing
    assert lines[1].split("\t")[:3] == ["#", "bot", "rating"] and len(lines) == 4 and "─" not in board.stdout


async def test_league_watch_into_a_pipe_prints_a_line_at_each_change(arena: Arena, leagues: LeagueService) -> None:
    """Piped (not a terminal), ``league watch`` printed nothing while the league ran: its progress
    bar draws only on a terminal."""
    for name in ("ann", "bob"):
        await arena.connect(name, capacity=1, think_seconds=0.01)
    tc = TimeControl(decision_allowance=5.0, time_bank=5.0)
    await leagues.create(LeagueSpec("LW", "5211", 2, ("ann", "bob"), games_per_pairing=4, seed=1), tc)
    done = await run("league", "watch", "LW", "--server", arena.address)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "LW: 4/4 done", lines
    assert all(line.startswith("LW: ") for line in lines) and len(set(lines)) == len(lines), lines
