"""The TypeScript starter kit (clients/typescript) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/typescript build``; a missing toolchain fails
the build, and so the tests, never skips them). Then each test runs ``bin/bot`` processes against the
in-process arena of the ``arena`` fixture: full matches, a rejection, and a forced reconnect (scenarios
shared with the Go kit, in tests/clients/kits.py). The kit's own unit tests (``node --test``) run here
too, so ``make test`` covers them.

The tests' timeouts (``func_only``) leave the build (a session fixture, bounded on its own) out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients import kits
from tests.clients.kits import Kit
from tests.grpc.harness import Arena

KIT = Kit("typescript", build_timeout=600.0, wait=20.0)


@pytest.fixture(scope="session")
def ts_kit() -> Kit:
    """The kit, built once per session; fails (never skips) when it does not build."""
    return KIT.build()


@pytest.mark.timeout(120, func_only=True)
async def test_two_and_four_player_matches_end_normally_and_replay(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_two_and_four_player_matches(ts_kit, arena, tmp_path, prefix="ts")


@pytest.mark.timeout(60, func_only=True)
async def test_an_invalid_first_action_is_rejected_and_play_goes_on(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_invalid_first_action(ts_kit, arena, tmp_path, prefix="ts")


@pytest.mark.timeout(60, func_only=True)
async def test_a_dropped_stream_is_reconnected_and_the_match_goes_on(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_dropped_stream(ts_kit, arena, tmp_path, prefix="ts")


@pytest.mark.timeout(120, func_only=True)
def test_the_kit_unit_tests_pass(ts_kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
    ts_kit.unit_tests(["node", "--test", "--test-reporter=spec", "dist/test/"], capsys, timeout=100)


@pytest.mark.timeout(60, func_only=True)
async def test_the_token_comes_from_the_environment_or_a_file(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_token_from_environment_and_file(ts_kit, arena, tmp_path)


@pytest.mark.timeout(60, func_only=True)
async def test_a_missing_or_empty_token_file_is_one_line_and_exit_2(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_missing_token_file(ts_kit, arena, tmp_path)


@pytest.mark.timeout(120, func_only=True)
async def test_one_bot_plays_two_seats_of_a_match(arena: Arena, ts_kit: Kit, tmp_path: Path) -> None:
    await kits.check_two_seats_of_one_match(ts_kit, arena, tmp_path)
