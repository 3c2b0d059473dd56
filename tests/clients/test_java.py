"""The Java starter kit (clients/java) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/java build``: Maven, with grpc-java code generated from
proto/; a missing toolchain fails the build, and so the tests, never skips them). The checks are those of the Rust
kit (tests/clients/test_rust.py), whose helpers know nothing of Rust: the two kits' ``bin/bot`` share one command
line and one set of event lines. The kit's unit tests (JUnit 5 through Maven Surefire) run here too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.test_rust import (
    BUILD_TIMEOUT,
    ROOT,
    build_kit,
    check_concurrent_two_player_matches,
    check_failover_and_replacement,
    check_four_player_match,
    check_reconnect,
    check_rejection,
    run_native_tests,
)
from tests.grpc.harness import Arena

KIT = ROOT / "clients" / "java"

# The build may run inside whichever test comes first, so the per-test limit must cover it; every wait inside a
# test is bounded on its own.
pytestmark = pytest.mark.timeout(BUILD_TIMEOUT + 120)


@pytest.fixture(scope="session")
def java_bot() -> Path:
    """The Java kit's bin/bot, built once per session."""
    return build_kit(KIT)


def test_java_unit_tests(java_bot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_native_tests(KIT, capsys)


async def test_java_bots_play_concurrent_two_player_matches(java_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_concurrent_two_player_matches(java_bot, arena, tmp_path)


async def test_java_bots_play_a_four_player_match(java_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_four_player_match(java_bot, arena, tmp_path)


async def test_java_bot_reports_a_rejection_and_plays_on(java_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_rejection(java_bot, arena, tmp_path)


async def test_java_bot_reconnects_mid_match(java_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_reconnect(java_bot, arena, tmp_path)


async def test_java_bot_fails_over_and_yields_to_a_newer_connection(
    java_bot: Path, arena: Arena, tmp_path: Path
) -> None:
    await check_failover_and_replacement(java_bot, arena, tmp_path)
