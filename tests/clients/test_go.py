"""The Go starter kit (clients/go) against the real arena: real bot processes, real matches.
The kit's load-test bots (``bin/loadbots``, the benchmarks' compiled ``arena.cli.loadtest_bots``) play too.

A session fixture builds the kit once (``make -C clients/go build``; a missing toolchain fails
the build, and so the tests, never skips them). Then each test runs ``bin/bot`` processes against the
in-process arena of the ``arena`` fixture: full matches, a rejection, and a forced reconnect (scenarios
shared with the TypeScript kit, in tests/clients/kits.py). The kit's own unit tests (``go test``) run here
too, so ``make test`` covers them.

The tests' timeouts (``func_only``) leave the build (a session fixture, bounded on its own) out.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.clients import kits
from tests.clients.kits import Kit
from tests.grpc.harness import Arena
from tests.loadbots import check_load_bots

KIT = Kit("go", build_timeout=600.0, wait=20.0)


@pytest.fixture(scope="session")
def go_kit() -> Kit:
    """The kit, built once per session; fails (never skips) when it does not build."""
    return KIT.build()


@pytest.mark.timeout(120, func_only=True)
async def test_two_and_four_player_matches_end_normally_and_replay(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_two_and_four_player_matches(go_kit, arena, tmp_path, prefix="go")


@pytest.mark.timeout(60, func_only=True)
async def test_an_invalid_first_action_is_rejected_and_play_goes_on(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_invalid_first_action(go_kit, arena, tmp_path, prefix="go")


@pytest.mark.timeout(60, func_only=True)
async def test_a_dropped_stream_is_reconnected_and_the_match_goes_on(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_dropped_stream(go_kit, arena, tmp_path, prefix="go")


@pytest.mark.timeout(300, func_only=True)
def test_the_kit_unit_tests_pass(go_kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
    go_kit.unit_tests(["go", "test", "-count=1", "./..."], capsys, timeout=280)


@pytest.mark.timeout(60, func_only=True)
async def test_the_token_comes_from_the_environment_or_a_file(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_token_from_environment_and_file(go_kit, arena, tmp_path)


@pytest.mark.timeout(60, func_only=True)
async def test_a_missing_or_empty_token_file_is_one_line_and_exit_2(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_missing_token_file(go_kit, arena, tmp_path)


@pytest.mark.timeout(120, func_only=True)
async def test_one_bot_plays_two_seats_of_a_match(arena: Arena, go_kit: Kit, tmp_path: Path) -> None:
    await kits.check_two_seats_of_one_match(go_kit, arena, tmp_path)


@pytest.mark.timeout(60, func_only=True)
async def test_the_load_bots_play_real_matches_and_report_exact_stats(
    arena: Arena, go_kit: Kit, tmp_path: Path
) -> None:
    """The Go kit's compiled load-test bots (see tests/loadbots.py), stopped by SIGTERM."""
    command = [str(go_kit.folder / "bin" / "loadbots")]
    await check_load_bots(command, arena, tmp_path, wait=go_kit.wait, stop=signal.SIGTERM)
