"""The Java starter kit (clients/java) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/java build``: Maven, with grpc-java code generated from
proto/; a missing toolchain fails the build, and so the tests, never skips them). The checks are those of the Rust
kit (tests/clients/kits.py): the two kits' ``bin/bot`` share one command line and one set of event lines. The
kit's unit tests (JUnit 5 through Maven Surefire, by ``make test``) run here too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients import kits
from tests.clients.kits import Kit
from tests.grpc.harness import Arena

KIT = Kit("java", build_timeout=840.0)

pytestmark = KIT.cold_build_timeout


@pytest.fixture(scope="session")
def java_kit() -> Kit:
    """The Java kit, built once per session; fails (never skips) when it does not build."""
    return KIT.build()


def test_java_unit_tests(java_kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
    java_kit.unit_tests(["make", "test"], capsys, timeout=600.0)


async def test_java_bots_play_concurrent_two_player_matches(java_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_concurrent_two_player_matches(java_kit, arena, tmp_path)


async def test_java_bots_play_a_four_player_match(java_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_four_player_match(java_kit, arena, tmp_path)


async def test_java_bot_reports_a_rejection_and_plays_on(java_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_rejection(java_kit, arena, tmp_path)


async def test_java_bot_reconnects_mid_match(java_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_reconnect(java_kit, arena, tmp_path)


async def test_java_bot_fails_over_and_yields_to_a_newer_connection(
    java_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_failover_and_replacement(java_kit, arena, tmp_path)


async def test_java_bots_take_the_token_from_the_environment_or_a_file(
    java_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_token_from_environment_and_file(java_kit, arena, tmp_path)


async def test_java_bot_says_a_missing_or_empty_token_file_in_one_line(
    java_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_missing_token_file(java_kit, arena, tmp_path)


async def test_java_bot_plays_two_seats_of_one_match(java_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_two_seats_of_one_match(java_kit, arena, tmp_path)
