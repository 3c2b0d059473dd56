"""Shared fixtures: real redis-server processes, started and stopped by the tests; and the suite's order."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store.embedded import EmbeddedRedis

BUILT_FIRST = ("clients", "test_deploy_files.py", "test_front.py", "grpc/test_tls.py", "grpc/test_front_streams.py")
"""The tests of what ``scripts/prebuild.sh`` builds (the kits, the deploy checker, the front, which
serves TLS too): run last, so that ``make pytest``'s background build of them has had the rest of the
suite's time. Paths under ``tests/``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of ``BUILT_FIRST`` to the end, each group in its order."""
    tests = Path(__file__).parent

    def needs_a_build(item: pytest.Item) -> bool:
        if not item.path.is_relative_to(tests):
            return False
        path = item.path.relative_to(tests)
        return any(path.is_relative_to(built) for built in BUILT_FIRST)

    items.sort(key=needs_a_build)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """The arena's embedded redis-server, with append-only persistence in a temporary folder."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis7(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """The system's redis-server (Redis 7 from Debian), as an external Redis shared by nodes."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    assert " v=7." in version, f"this test wants a Redis 7 server, found: {version}"
    server = EmbeddedRedis(tmp_path / "redis7", binary=binary).start()
    try:
        yield server
    finally:
        server.stop()


# The arena fixture (a real gRPC server per test) is shared by every test package.
from tests.grpc.harness import arena, arena_client, arena_redis, game_arena  # noqa: E402, F401
from tests.queue.harness import leagues  # noqa: E402, F401
