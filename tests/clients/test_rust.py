"""The Rust starter kit (clients/rust) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/rust build``; a missing toolchain fails the
build, and so the tests, never skips them). Each test then runs ``bin/bot`` processes against the
in-process arena of the ``arena`` fixture: full 2- and 4-player matches, concurrent matches, a
rejection, a forced reconnect, failover to a second address, and a replaced connection (scenarios
shared with the Java kit, in tests/clients/kits.py). The kit's unit tests (``cargo test``, through
``make test``) run here too, so ``make test`` covers them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients import kits
from tests.clients.kits import Kit
from tests.grpc.harness import Arena

KIT = Kit("rust", build_timeout=840.0)
"""A cold build downloads and compiles every crate: about a minute here, bounded well above that."""

pytestmark = KIT.cold_build_timeout


@pytest.fixture(scope="session")
def rust_kit() -> Kit:
    """The Rust kit, built once per session; fails (never skips) when it does not build."""
    return KIT.build()


def test_rust_unit_tests(rust_kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
    rust_kit.unit_tests(["make", "test"], capsys, timeout=600.0)


async def test_rust_bots_play_concurrent_two_player_matches(rust_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_concurrent_two_player_matches(rust_kit, arena, tmp_path)


async def test_rust_bots_play_a_four_player_match(rust_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_four_player_match(rust_kit, arena, tmp_path)


async def test_rust_bot_reports_a_rejection_and_plays_on(rust_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_rejection(rust_kit, arena, tmp_path)


async def test_rust_bot_reconnects_mid_match(rust_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_reconnect(rust_kit, arena, tmp_path)


async def test_rust_bot_fails_over_and_yields_to_a_newer_connection(
    rust_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_failover_and_replacement(rust_kit, arena, tmp_path)


async def test_rust_bots_take_the_token_from_the_environment_or_a_file(
    rust_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_token_from_environment_and_file(rust_kit, arena, tmp_path)


async def test_rust_bot_says_a_missing_or_empty_token_file_in_one_line(
    rust_kit: Kit, arena: Arena, tmp_path: Path
) -> None:
    await kits.check_missing_token_file(rust_kit, arena, tmp_path)


async def test_rust_bot_plays_two_seats_of_one_match(rust_kit: Kit, arena: Arena, tmp_path: Path) -> None:
    await kits.check_two_seats_of_one_match(rust_kit, arena, tmp_path)
