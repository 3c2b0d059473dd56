"""Local access to a node: the admin token file, the data folder and the embedded Redis are the
serving user's alone, and the Redis password shows up in no log line, heartbeat or error."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from arena.serve.launch import serving
from arena.store.embedded import EmbeddedRedis
from arena.store.redis_stores import key

WATCHER = textwrap.dedent(
    """
    import os, sys, time
    path, stop, deadline = sys.argv[1], sys.argv[2], time.monotonic() + 30
    seen = set()
    print("watching", flush=True)
    while time.monotonic() < deadline and not os.path.exists(stop):
        try:
            seen.add(os.stat(path).st_mode & 0o777)
        except FileNotFoundError:
            pass
    print(" ".join(oct(m) for m in sorted(seen)), flush=True)
    """
)
"""Stats a file as fast as it can until told to stop; prints every mode it saw."""


def test_the_admin_token_file_is_never_readable_by_group_or_others(tmp_path: Path) -> None:
    data = tmp_path / "data"
    path = data / "admin-token"
    stop = tmp_path / "stop"
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(path), str(stop)], stdout=subprocess.PIPE, text=True)
    assert watcher.stdout is not None and watcher.stdout.readline().strip() == "watching"
    old = os.umask(0)  # the most permissive umask an operator may have: the file's mode must not depend on it
    try:
        args = ["--address", "127.0.0.1:0", "--data-dir", str(data), "--metrics-address", "", "--web-port", "0"]
        with serving([*args, "--log-level", "warning", "--shutdown-grace", "0.5"]):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            assert stat.S_IMODE(data.stat().st_mode) == 0o700
    finally:
        os.umask(old)
        stop.touch()
    seen = watcher.communicate(timeout=10)[0].split()
    assert seen == ["0o600"], f"the admin token file was seen with modes {seen}"


def test_an_existing_admin_token_file_is_reused_not_replaced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "admin-token").write_text("arena_kept-token\n")
    (data / "admin-token").chmod(0o600)
    from arena.serve.process import ServeConfig, admin_token_for

    assert admin_token_for(ServeConfig(data_dir=data)) == "arena_kept-token"


def test_the_embedded_redis_refuses_a_local_client_without_its_password(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "redis") as server:
        # No retries: redis-py retries a refused connection with backoff, 4 s a command.
        outsider = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=5, retry=Retry(NoBackoff(), 0))
        with pytest.raises(redis.AuthenticationError):
            outsider.set(key("token", "0" * 64), "alice")  # what would let it log in as any bot
        with pytest.raises(redis.AuthenticationError):
            outsider.get(key("bot", "alice"))
        with pytest.raises(redis.AuthenticationError):
            outsider.execute_command("AUTH", "guess")  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        assert redis.Redis.from_url(server.url, socket_timeout=5).ping()
        password = (tmp_path / "redis" / "password").read_text().strip()
        assert len(password) >= 40
        assert password in server.url


def test_the_embedded_redis_keeps_its_password_across_a_restart(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "redis") as first:
        redis.Redis.from_url(first.url).set("kept", "1")
        url = first.url
    with EmbeddedRedis(tmp_path / "redis", port=first.port) as second:
        assert second.url == url
        assert redis.Redis.from_url(second.url).get("kept") == b"1"


def test_the_embedded_redis_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with EmbeddedRedis(tmp_path / "redis") as server:
            redis.Redis.from_url(server.url).set("x", "1")
            time.sleep(1.2)  # the append-only file is written at least once a second
            files = list((tmp_path / "redis").rglob("*"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "redis").stat().st_mode) == 0o700
    names = {f.name for f in files}
    assert {"password", "redis.log"} <= names
    assert any(name.startswith("appendonly") for name in names), names
    loose = {str(f): oct(stat.S_IMODE(f.stat().st_mode)) for f in files if f.stat().st_mode & 0o077}
    assert not loose, f"readable by group or others: {loose}"


def test_the_redis_password_is_in_no_log_heartbeat_metric_or_command_line(tmp_path: Path) -> None:
    import urllib.request

    from arena.cli.admin import register_bot
    from arena.store.embedded import free_port

    data, log = tmp_path / "data", tmp_path / "serve.log"
    metrics = free_port()
    args = ["--address", "127.0.0.1:0", "--data-dir", str(data), "--metrics-address", f"127.0.0.1:{metrics}"]
    args += ["--web-port", "0"]
    with serving([*args, "--log-level", "debug", "--log-format", "text"], log=log) as (process, address):
        register_bot(address, "alice", (data / "admin-token").read_text().strip())
        password = (data / "redis" / "password").read_text().strip()
        exported = urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics", timeout=10).read().decode()
        redis_pids = subprocess.run(
            ["pgrep", "-P", str(process.pid)], capture_output=True, text=True, check=True
        ).stdout.split()
        command_lines = [Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace") for pid in redis_pids]
        url = f"redis://:{password}@127.0.0.1:{_port_of(data)}/0"
        client = redis.Redis.from_url(url)
        stored = [client.dump(name) or b"" for name in client.scan_iter("arena:node:*")]
    assert redis_pids and any("redis-server" in line for line in command_lines)
    assert stored
    said = log.read_text()
    assert "embedded redis started" in said
    for where, content in {"log": said, "metrics": exported, "argv": " ".join(command_lines)}.items():
        assert password not in content, f"the Redis password is in the {where}"
    assert all(password.encode() not in value for value in stored), "the Redis password is in the heartbeat"


def _port_of(data: Path) -> int:
    """The embedded Redis port, from its log's 'Ready to accept' neighbourhood (the serve log redacts the URL)."""
    import re

    found = re.findall(r"Running mode=standalone, port=(\d+)", (data / "redis" / "redis.log").read_text())
    return int(found[-1])
