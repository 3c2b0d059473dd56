"""A folder's build lock, shared with ``scripts/prebuild.sh``: a test's build waits for one under way."""

from __future__ import annotations

import contextlib
import fcntl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def build_lock(folder: Path, timeout: float) -> Iterator[None]:
    """Hold ``folder/.build.lock`` (flock, exclusive); fail the test if it is not had in ``timeout`` s."""
    deadline = time.monotonic() + timeout
    with open(folder / ".build.lock", "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the build of {folder} under way elsewhere did not end in {timeout:g} s")
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
