"""``arena serve`` as a real process that cannot start: each operator mistake ends it within seconds
with exit code 1 and one clear line on standard error (what failed, what to check), no traceback."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from arena.serve.launch import serving
from arena.store.embedded import free_port

START_SECONDS = 20.0
"""A node that cannot start says so well within this."""


NO_SIDE_PORTS = ["--metrics-address", "", "--web-port", "0"]
"""No metrics endpoint and no web site: each test here starts one node, and they must not meet on a port."""


def serve_fails(args: Sequence[str], cwd: Path) -> str:
    """Run ``arena serve ARGS``; assert it exits 1 quickly with one line and no traceback; return it."""
    command = [sys.executable, "-m", "arena.cli", "serve", "--log-format", "text", *args]
    started = time.monotonic()
    try:
        done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=START_SECONDS, cwd=cwd)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"arena serve hung; it said: {error.stderr!r}") from None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith("arena serve: "), lines
    assert "arena serving on" not in done.stdout
    assert time.monotonic() - started < START_SECONDS
    return lines[0]


def redis_binary() -> str:
    return shutil.which("redis-server") or "/usr/bin/redis-server"


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Path]:
    """A mount point for a small tmpfs (the tests run as root), unmounted at the end."""
    point = tmp_path / "mnt"
    point.mkdir()
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)


def start_redis(port: int, *args: str, directory: Path) -> subprocess.Popen[bytes]:
    """A Redis 7 server on 127.0.0.1:port with extra ``args``; waits until it answers (any reply)."""
    command = [redis_binary(), "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--dir", str(directory)]
    process = subprocess.Popen([*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(64):
                    return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise AssertionError("redis-server did not start")


@pytest.fixture
def protected_redis(tmp_path: Path) -> Iterator[int]:
    """A Redis 7 with a password (``right-password``); yields its port."""
    port = free_port()
    process = start_redis(port, "--requirepass", "right-password", directory=tmp_path)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(10)


def common(tmp_path: Path) -> list[str]:
    return ["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, "--data-dir", str(tmp_path / "data")]


def test_an_unreachable_redis_is_one_line(tmp_path: Path) -> None:
    port = free_port()
    line = serve_fails([*common(tmp_path), "--redis", f"redis://127.0.0.1:{port}/0"], tmp_path)
    assert f"cannot reach Redis at redis://127.0.0.1:{port}/0" in line
    assert "--redis" in line


def test_the_redis_url_may_come_from_the_environment_and_its_password_is_not_printed(
    tmp_path: Path, protected_redis: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_REDIS_URL", f"redis://:not-on-any-command-line@127.0.0.1:{protected_redis}/0")
    line = serve_fails(common(tmp_path), tmp_path)  # no --redis: the node uses the environment's
    assert "refused the password" in line and f"127.0.0.1:{protected_redis}" in line
    assert "not-on-any-command-line" not in line


def test_a_redis_that_wants_a_password_says_so(tmp_path: Path, protected_redis: int) -> None:
    line = serve_fails([*common(tmp_path), "--redis", f"redis://127.0.0.1:{protected_redis}/0"], tmp_path)
    assert "needs a password" in line
    assert "redis://:PASSWORD@" in line


def test_a_wrong_redis_password_says_so_and_does_not_print_it(tmp_path: Path, protected_redis: int) -> None:
    url = f"redis://:wrong-password@127.0.0.1:{protected_redis}/0"
    line = serve_fails([*common(tmp_path), "--redis", url], tmp_path)
    assert "refused the password" in line
    assert "wrong-password" not in line


def test_a_data_folder_that_is_not_a_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    data = tmp_path / "a-file" / "data"
    args = ["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, "--data-dir", str(data)]
    line = serve_fails(args, tmp_path)
    assert f"data folder {data}" in line
    assert "--data-dir" in line


def test_a_read_only_data_folder_is_one_line(tmp_path: Path, mount: Path) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(mount)], check=True)
    args = ["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, "--data-dir", str(mount / "data")]
    line = serve_fails(args, tmp_path)
    assert f"data folder {mount / 'data'}" in line
    assert "read-only" in line.lower()


def fill(folder: Path) -> None:
    """Write until the file system is full."""
    with (folder / "filler").open("wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError:
            pass


def test_a_full_data_folder_is_one_line(tmp_path: Path, mount: Path) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], check=True)
    (mount / "data").mkdir()
    fill(mount)
    args = ["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, "--data-dir", str(mount / "data")]
    line = serve_fails([*args, "--open-registration"], tmp_path)
    assert f"data folder {mount / 'data'}" in line
    assert "no space left" in line.lower()


def test_a_redis_that_cannot_persist_is_refused(tmp_path: Path, mount: Path) -> None:
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], check=True)
    port = free_port()
    redis = start_redis(port, "--appendonly", "yes", "--appendfsync", "everysec", directory=mount)
    try:
        fill(mount)
        line = serve_fails([*common(tmp_path), "--redis", f"redis://127.0.0.1:{port}/0"], tmp_path)
        assert f"Redis at redis://127.0.0.1:{port}/0 cannot save its data" in line
        assert "disk" in line
    finally:
        redis.terminate()
        redis.wait(10)


def test_a_taken_grpc_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["--address", f"127.0.0.1:{port}", *NO_SIDE_PORTS, "--data-dir", str(tmp_path / "data")]
        line = serve_fails(args, tmp_path)
    assert f"cannot listen on 127.0.0.1:{port}" in line
    assert "--address" in line


def test_a_taken_metrics_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["--address", f"127.0.0.1:{free_port()}", "--metrics-address", f"127.0.0.1:{port}", "--web-port", "0"]
        line = serve_fails([*args, "--data-dir", str(tmp_path / "data")], tmp_path)
    assert f"cannot serve metrics on 127.0.0.1:{port}" in line
    assert "--metrics-address" in line


def test_a_start_up_error_at_debug_level_shows_the_traceback(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "arena.cli", "serve", *common(tmp_path), "--log-level", "debug"]
    command += ["--redis", f"redis://127.0.0.1:{port}/0"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=START_SECONDS)
    assert done.returncode == 1
    assert "Traceback" in done.stderr
    assert done.stderr.rstrip().splitlines()[-1].startswith("arena serve: cannot reach Redis")


@pytest.mark.parametrize("given", ["arena-1", "arena-1:http", "arena-1:70000", ":50051"])
def test_an_advertise_address_that_is_not_host_and_port_is_one_line(tmp_path: Path, given: str) -> None:
    line = serve_fails([*common(tmp_path), "--advertise-address", given], tmp_path)
    assert repr(given) in line and "--advertise-address" in line


@pytest.mark.parametrize("where", ["flag", "environment"])
def test_a_guessable_admin_token_is_refused_in_one_line(
    tmp_path: Path, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in a review: a node took ``--admin-token admin``, a dictionary's first guess, lockout or not."""
    args = common(tmp_path)
    if where == "flag":
        args += ["--admin-token", "admin"]
    else:
        monkeypatch.setenv("ARENA_ADMIN_TOKEN", "admin")
    line = serve_fails(args, tmp_path)
    assert line == (
        "arena serve: the admin token given is 5 characters long: give one of at least 16 "
        "(openssl rand -hex 24), or none and the node makes one in its data folder"
    )


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize(
    ("option", "given", "port"),
    [("--address", "127.0.0.1:70000", 70000), ("--metrics-address", "127.0.0.1:99999", 99999)],
    ids=["grpc", "metrics"],
)
def test_a_port_past_65535_is_one_line(tmp_path: Path, workers: str, option: str, given: str, port: int) -> None:
    """A trial's ``--address 127.0.0.1:70000`` served on port 4464 (70000 - 65536) and said it
    served on 70000; ``--metrics-address 127.0.0.1:99999`` ended in two tracebacks."""
    args = {"--address": f"127.0.0.1:{free_port()}", "--metrics-address": "", "--web-port": "0"} | {option: given}
    line = serve_fails([*(a for item in args.items() for a in item), "--workers", workers, *data(tmp_path)], tmp_path)
    assert f"a port is 0 to 65535, not {port}" in line and option in line


def test_metrics_ports_that_run_past_65535_over_the_workers_are_one_line(tmp_path: Path) -> None:
    """Each worker serves its metrics on the next port: 65534 for three workers ran past 65535
    in tracebacks, and the line after them named the wrong worker, "exit code None"."""
    args = ["--address", f"127.0.0.1:{free_port()}", "--web-port", "0", "--metrics-address", "127.0.0.1:65534"]
    line = serve_fails([*args, "--workers", "3", *data(tmp_path)], tmp_path)
    assert "3 workers serve metrics on ports 65534 to 65536" in line and "--metrics-address" in line


def test_a_data_folder_another_arena_uses_is_one_line(tmp_path: Path) -> None:
    """A second ``arena serve`` on the data folder of a running one started a second embedded
    Redis on the same append-only file: two arenas wrote the one store, each taking the other's leagues."""
    with serving(["--address", "127.0.0.1:0", *NO_SIDE_PORTS, *data(tmp_path)]) as (first, _):
        line = serve_fails(["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, *data(tmp_path)], tmp_path)
        assert first.poll() is None
    assert f"the data folder {tmp_path / 'data'} is in use by another arena (process {first.pid})" in line
    assert "--data-dir" in line


def test_an_embedded_redis_that_cannot_read_its_file_says_why_in_one_line(tmp_path: Path) -> None:
    """Redis's reason (in its log) was left out, and the line quoted five lines of its standard output."""
    (tmp_path / "data" / "redis").mkdir(parents=True)
    (tmp_path / "data" / "redis" / "appendonly.aof").write_bytes(b"\x00\xff not an append-only file\n" * 10)
    line = serve_fails(["--address", f"127.0.0.1:{free_port()}", *NO_SIDE_PORTS, *data(tmp_path)], tmp_path)
    assert "the embedded Redis did not start" in line
    assert "Bad file format reading the append only file" in line


def data(tmp_path: Path) -> list[str]:
    return ["--data-dir", str(tmp_path / "data")]
