"""The Go starter kit (clients/go) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/go build``; a missing toolchain fails
the build, and so the tests, never skips them). Then each test runs ``bin/bot`` processes against the
in-process arena of the ``arena`` fixture: full matches, a rejection, and a forced reconnect. The
kit's own unit tests (``go test``) run here too, so ``make test`` covers them.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from arena.referee.timecontrol import TimeControl
from arena.v1 import common_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena

KIT = Path(__file__).resolve().parents[2] / "clients" / "go"
BOT = KIT / "bin" / "bot"
BUILD_TIMEOUT = 600.0
"""The build's own bound; the tests' timeouts (``func_only``) leave the build (a session fixture) out."""
LINE_TIMEOUT = 20.0
# Generous per-decision time: these tests check the protocol, not speed, on a busy 2-core machine.
TC = TimeControl(decision_seconds=5.0, bank_seconds=5.0, max_strikes=3, grace_seconds=10.0)


@pytest.fixture(scope="session")
def built() -> Path:
    """Build the kit once per session; fail (never skip) when it does not build."""
    try:
        result = subprocess.run(
            ["make", "-C", str(KIT), "build"], capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.fail(f"make -C {KIT} build did not finish: {error}")
    if result.returncode != 0:
        pytest.fail(f"make -C {KIT} build failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return BOT


class BotProcess:
    """One ``bin/bot`` process; its stdout event lines are collected as they come."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.process = process
        self.stderr = stderr
        self.lines: list[str] = []
        self._changed = asyncio.Condition()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            async with self._changed:
                self.lines.append(line.decode().rstrip("\n"))
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    async def line(self, prefix: str, within: float = LINE_TIMEOUT) -> str:
        """The first stdout line starting with ``prefix``, waiting for it at most ``within`` seconds."""

        def found() -> str | None:
            return next((line for line in self.lines if line.startswith(prefix)), None)

        async def wait() -> str:
            async with self._changed:
                while (hit := found()) is None:
                    if self._reader.done():
                        raise AssertionError(f"bot exited without printing {prefix!r}{self.describe()}")
                    await self._changed.wait()
                return hit

        try:
            return await asyncio.wait_for(wait(), within)
        except TimeoutError:
            raise AssertionError(f"no {prefix!r} line within {within} s{self.describe()}") from None

    async def exit_code(self, within: float = LINE_TIMEOUT) -> int:
        """The exit status, waiting at most ``within`` seconds for the process to end."""
        try:
            return await asyncio.wait_for(self.process.wait(), within)
        except TimeoutError:
            raise AssertionError(f"bot still running after {within} s{self.describe()}") from None

    def describe(self) -> str:
        err = self.stderr.read_text(errors="replace")[-3000:] if self.stderr.exists() else ""
        return f"\nstdout: {self.lines}\nstderr (end): {err}"

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 5)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


@contextlib.asynccontextmanager
async def bots(
    arena: Arena, tmp_path: Path, specs: Sequence[tuple[str, Sequence[str]]]
) -> AsyncIterator[list[BotProcess]]:
    """Register each (name, extra args) bot, start its process and wait for its welcome; kill all at exit."""
    started: list[BotProcess] = []
    try:
        for name, extra in specs:
            token = await arena.register(name)
            stderr = tmp_path / f"{name}.stderr"
            with stderr.open("wb") as err:
                process = await asyncio.create_subprocess_exec(
                    str(BOT),
                    "--server",
                    arena.address,
                    "--token",
                    token,
                    *extra,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=err,
                    stdin=asyncio.subprocess.DEVNULL,
                )
            started.append(BotProcess(process, stderr))
        for (name, _), bot in zip(specs, started, strict=True):
            assert await bot.line("welcome ") == f"welcome {name}"
        yield started
    finally:
        for bot in started:
            await bot.kill()


def placing(line: str) -> int:
    """The placing in an ``ended <match_id> <placing>`` line."""
    return int(line.split()[2])


@pytest.mark.timeout(120, func_only=True)
async def test_two_and_four_player_matches_end_normally_and_replay(arena: Arena, built: Path, tmp_path: Path) -> None:
    specs = [
        ("go-random-1", ["--strategy", "random"]),
        ("go-heuristic-1", ["--strategy", "heuristic"]),
        ("go-random-2", ["--strategy", "random"]),
        ("go-heuristic-2", ["--strategy", "heuristic"]),
    ]
    async with bots(arena, tmp_path, specs) as procs:
        names = [name for name, _ in specs]
        two = await arena.start_match(names[:2], seed=11, tc=TC)
        for bot in procs[:2]:
            assert (await bot.line("started ")).split()[1] == two
            assert (await bot.line(f"ended {two} ")).split()[1] == two
        four = await arena.start_match(names, seed=12, tc=TC)
        placings = []
        for seat, bot in enumerate(procs):
            assert await bot.line(f"started {four} ") == f"started {four} {seat}"
            placings.append(placing(await bot.line(f"ended {four} ")))
        for match_id, seats in ((two, 2), (four, 4)):
            record = await arena.record(match_id)
            assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
            assert len(record.bot_names) == seats
            assert not record.rejections
            assert not any(decision.is_fallback for decision in record.decisions)
            wire_record.check_record(record)
        assert placings == list((await arena.record(four)).outcome.placings)
        assert not any(line.startswith(("rejected", "reconnecting")) for bot in procs for line in bot.lines)


@pytest.mark.timeout(60, func_only=True)
async def test_an_invalid_first_action_is_rejected_and_play_goes_on(arena: Arena, built: Path, tmp_path: Path) -> None:
    specs = [
        ("go-clumsy", ["--strategy", "heuristic", "--invalid-first", "--max-matches", "1"]),
        ("go-steady", ["--strategy", "random", "--max-matches", "1"]),
    ]
    async with bots(arena, tmp_path, specs) as (clumsy, steady):
        match_id = await arena.start_match(["go-clumsy", "go-steady"], seed=21, tc=TC)
        rejected = (await clumsy.line("rejected ")).split()
        assert rejected[1] == match_id
        assert rejected[3] == "FAULT_INVALID_ACTION"  # the Fault enum's name, as the CLI prints it
        await clumsy.line(f"ended {match_id} ")
        await steady.line(f"ended {match_id} ")
        # --max-matches 1: both exit 0 once their match has ended.
        assert await clumsy.exit_code() == 0, clumsy.describe()
        assert await steady.exit_code() == 0, steady.describe()
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert [(r.seat, r.fault, r.received_action) for r in record.rejections] == [
        (0, common_pb2.FAULT_INVALID_ACTION, "Z9")
    ]
    assert int(rejected[2]) == record.rejections[0].sequence
    assert sum(d.is_fallback for d in record.decisions) == 1
    wire_record.check_record(record)


@pytest.mark.timeout(60, func_only=True)
async def test_a_dropped_stream_is_reconnected_and_the_match_goes_on(arena: Arena, built: Path, tmp_path: Path) -> None:
    specs = [("go-phoenix", ["--strategy", "heuristic"]), ("go-rock", ["--strategy", "random"])]
    async with bots(arena, tmp_path, specs) as (phoenix, rock):
        # The longer game (several decks) keeps the match running well past the moment of the cut.
        match_id = await arena.start_match(["go-phoenix", "go-rock"], seed=31, tc=TC, long_game="true")
        await phoenix.line(f"started {match_id} ")
        assert match_id in arena.node.matches.running, "the match ended before the test could cut the stream"
        connection = arena.node.hub.sessions["go-phoenix"].connection
        assert connection is not None
        connection.close("test")
        await phoenix.line("reconnecting")
        await phoenix.line(f"ended {match_id} ")
        await rock.line(f"ended {match_id} ")
        assert arena.node.hub.sessions["go-phoenix"].connection is not None  # it came back
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert not record.rejections
    wire_record.check_record(record)


@pytest.mark.timeout(300, func_only=True)
def test_the_kit_unit_tests_pass(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = subprocess.run(
        ["go", "test", "-count=1", "./..."], cwd=KIT, capture_output=True, text=True, timeout=280, check=False
    )
    with capsys.disabled():  # the runner's own summary, in the log
        print(f"\n{result.stdout.rstrip()}")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
