"""Shared fixtures: real redis-server processes, started and stopped by the tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store.embedded import EmbeddedRedis


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """The arena's embedded redis-server, with append-only persistence in a temporary folder."""
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield server
    finally:
        server.stop()


# The arena fixture (a real gRPC server per test) is shared by every test package.
from tests.grpc.harness import arena  # noqa: E402, F401
