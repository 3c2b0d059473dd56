"""``arena serve`` as a child process: start it, wait until it serves, stop it cleanly.

Used by ``arena run``, ``arena loadtest``, the benchmarks and the tests, so there is one way to
know a node is up: its first line on standard output, ``arena serving on HOST:PORT``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from arena.store.embedded import dies_with_parent

READY = "arena serving on "
"""What ``arena serve`` prints, with its address, once it accepts calls."""

WEB_READY = "arena web site on "
"""What ``arena serve`` prints next, with the site's address, when it serves one (``--web-port``)."""


def start_serve(
    args: Sequence[str],
    *,
    log: Path | None = None,
    env: Mapping[str, str] | None = None,
    with_parent: bool = False,
) -> tuple[subprocess.Popen[str], str]:
    """Start ``arena serve ARGS`` and wait until it serves; returns the process and its address.

    Its standard error goes to ``log`` (or nowhere); a node that does not start is stopped and
    reported with the end of its log. ``with_parent``: it is stopped if this process dies
    (``dies_with_parent``: call from the main thread).
    """
    command = [*(dies_with_parent() if with_parent else []), sys.executable, "-m", "arena.cli", "serve", *args]
    environment = None if env is None else {**os.environ, **env}
    with open(log, "ab") if log is not None else open(os.devnull, "wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=environment)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith(READY):
        stop(process, 5)
        said = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise RuntimeError(f"arena serve did not start: {line!r}\n{said}")
    return process, line.removeprefix(READY)


def stop(process: subprocess.Popen[str], grace_seconds: float = 30.0) -> None:
    """SIGTERM (a graceful shutdown), then SIGKILL if it takes longer than ``grace_seconds``."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(grace_seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def serving(
    args: Sequence[str], *, log: Path | None = None, env: Mapping[str, str] | None = None, with_parent: bool = False
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``start_serve`` for the length of a ``with`` block, stopped at its end."""
    process, address = start_serve(args, log=log, env=env, with_parent=with_parent)
    try:
        yield process, address
    finally:
        stop(process)
