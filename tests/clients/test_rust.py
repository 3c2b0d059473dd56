"""The Rust starter kit (clients/rust) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/rust build``; a missing toolchain fails the
build, and so the tests, never skips them). Each test then runs ``bin/bot`` processes against the
in-process arena of the ``arena`` fixture: full 2- and 4-player matches, concurrent matches, a
rejection, a forced reconnect, failover to a second address, and a replaced connection. The kit's
unit tests (``cargo test``) run here too, so ``make test`` covers them.

The helpers below know nothing of Rust: tests/clients/test_java.py runs the same checks on the Java
kit, whose ``bin/bot`` has the same command line and prints the same event lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.referee.timecontrol import TimeControl
from arena.v1 import bot_pb2, common_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena, eventually
from tests.grpc.rawbot import RawBot

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "clients" / "rust"
BUILD_TIMEOUT = 840.0
"""A cold build downloads and compiles every crate: about a minute here, bounded well above that."""
LINE_TIMEOUT = 30.0
# Generous per-decision time: these tests check the protocol, not speed, on a busy 2-core machine.
TC = TimeControl(decision_seconds=5.0, bank_seconds=5.0, max_strikes=3, grace_seconds=10.0)

# The build may run inside whichever test comes first, so the per-test limit must cover it; every
# wait inside a test is bounded on its own.
pytestmark = pytest.mark.timeout(BUILD_TIMEOUT + 120)


def make(kit: Path, target: str, timeout: float) -> tuple[int, str]:
    """``make -C kit target``: its exit status and its output (stdout and stderr, interleaved).

    Fails the test when it does not finish in time; then the whole process group (make, cargo or
    Maven and their children) is killed, not only make.
    """
    try:
        process = subprocess.Popen(
            ["make", "-C", str(kit), target],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    except OSError as error:
        pytest.fail(f"cannot run make: {error}")
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"make -C {kit} {target} did not finish in {timeout} s:\n{output[-4000:]}")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode, output


def build_kit(kit: Path, timeout: float = BUILD_TIMEOUT) -> Path:
    """``make -C kit build``; fails the test (never skips it) when the kit does not build. Returns bin/bot."""
    code, output = make(kit, "build", timeout)
    if code != 0:
        pytest.fail(f"make -C {kit} build failed ({code}):\n{output[-8000:]}")
    bot = kit / "bin" / "bot"
    assert os.access(bot, os.X_OK), f"{bot} is not executable"
    return bot


def run_native_tests(kit: Path, capsys: pytest.CaptureFixture[str], timeout: float = 600.0) -> None:
    """``make -C kit test`` (the kit's own unit tests), with the runner's summary shown in the log."""
    code, output = make(kit, "test", timeout)
    noise = ("make[", "   Compiling", "[INFO] os.detected", "\x1b[0m")
    with capsys.disabled():
        print(f"\n--- make -C {kit.relative_to(ROOT)} test ---")
        print("\n".join(line for line in output.splitlines() if not line.startswith(noise)))
    assert code == 0, f"the unit tests of {kit} failed"


class BotProcess:
    """One ``bin/bot`` process; its stdout event lines are collected as they come."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.name = name
        self.process = process
        self.stderr = stderr
        self.lines: list[str] = []
        self._changed = asyncio.Condition()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            async with self._changed:
                self.lines.append(line.decode(errors="replace").rstrip("\n"))
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()

    def starting(self, prefix: str) -> list[str]:
        """Every line so far that starts with ``prefix``."""
        return [line for line in self.lines if line.startswith(prefix)]

    async def line(self, prefix: str, count: int = 1, seconds: float = LINE_TIMEOUT) -> str:
        """The ``count``-th stdout line starting with ``prefix``, waiting for it at most ``seconds``."""

        async def wait() -> str:
            async with self._changed:
                while len(hits := self.starting(prefix)) < count:
                    if self._reader.done():
                        raise AssertionError(f"{self.name} exited without printing {prefix!r} #{count}{self.log()}")
                    await self._changed.wait()
                return hits[count - 1]

        try:
            return await asyncio.wait_for(wait(), seconds)
        except TimeoutError:
            raise AssertionError(f"{self.name} printed no {prefix!r} #{count} in {seconds} s{self.log()}") from None

    async def exit_code(self, seconds: float = LINE_TIMEOUT) -> int:
        """Wait for the process to exit by itself, at most ``seconds``."""
        try:
            code = await asyncio.wait_for(self.process.wait(), seconds)
        except TimeoutError:
            raise AssertionError(f"{self.name} did not exit in {seconds} s{self.log()}") from None
        await asyncio.wait_for(self._reader, 5)
        return code

    def log(self) -> str:
        stderr = self.stderr.read_text(errors="replace")[-3000:] if self.stderr.exists() else ""
        return "\nstdout:\n" + "\n".join(self.lines[-40:]) + "\nstderr:\n" + stderr

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 10)
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


class Bots:
    """Starts ``bin/bot`` processes and kills every one of them at the end."""

    def __init__(self, bot: Path, arena: Arena, logs: Path) -> None:
        self.bot = bot
        self.arena = arena
        self.logs = logs
        self.processes: list[BotProcess] = []
        self.tokens: dict[str, str] = {}

    async def start(self, name: str, *args: str, servers: list[str] | None = None) -> BotProcess:
        """Register ``name`` (once) and run a bot process for it."""
        if name not in self.tokens:
            self.tokens[name] = await self.arena.register(name)
        stderr = self.logs / f"{name}-{len(self.processes)}.stderr"
        with stderr.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                str(self.bot),
                "--server",
                ",".join(servers or [self.arena.address]),
                "--token",
                self.tokens[name],
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
            )
        bot = BotProcess(name, process, stderr)
        self.processes.append(bot)
        return bot

    async def welcomed(self, *names_and_bots: tuple[str, BotProcess]) -> None:
        """Wait until each bot printed its welcome and the arena sees it connected."""
        for name, bot in names_and_bots:
            assert await bot.line("welcome") == f"welcome {name}"
        sessions = self.arena.node.hub.sessions
        await eventually(lambda: all(sessions[n].connection is not None for n, _ in names_and_bots))

    async def kill_all(self) -> None:
        await asyncio.gather(*(p.kill() for p in self.processes))


@contextlib.asynccontextmanager
async def bot_processes(bot: Path, arena: Arena, logs: Path) -> AsyncIterator[Bots]:
    """Bot processes that are killed whatever happens."""
    bots = Bots(bot, arena, logs)
    try:
        yield bots
    finally:
        await bots.kill_all()


async def check_normal_record(arena: Arena, match_id: str, names: list[str]) -> None:
    """The match ended by the rules, with no fault, and its record replays."""
    record = await arena.record(match_id)
    assert list(record.bot_names) == names
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert not record.rejections, list(record.rejections)
    wire_record.check_record(record)


async def check_concurrent_two_player_matches(bot: Path, arena: Arena, logs: Path, matches: int = 3) -> None:
    """A random and a heuristic bot play ``matches`` 2-player matches at once, then exit 0."""
    async with bot_processes(bot, arena, logs) as bots:
        limit = ["--max-matches", str(matches), "--concurrency", str(matches)]
        rnd = await bots.start("rand", "--strategy", "random", *limit)
        heu = await bots.start("heur", "--strategy", "heuristic", *limit)
        await bots.welcomed(("rand", rnd), ("heur", heu))
        ids = [await arena.start_match(["rand", "heur"], seed=seed, tc=TC) for seed in range(11, 11 + matches)]
        assert await rnd.exit_code(60) == 0, rnd.log()
        assert await heu.exit_code(60) == 0, heu.log()
        for process, seat in ((rnd, 0), (heu, 1)):
            assert sorted(process.starting("started")) == sorted(f"started {m} {seat}" for m in ids)
            ended = {line.split()[1]: int(line.split()[2]) for line in process.starting("ended")}
            assert sorted(ended) == sorted(ids)
        for match_id in ids:
            await check_normal_record(arena, match_id, ["rand", "heur"])
            record = await arena.record(match_id)
            heu_placing = (await heu.line(f"ended {match_id} ")).split()[2]
            assert int(heu_placing) == record.outcome.placings[1]


async def check_four_player_match(bot: Path, arena: Arena, logs: Path) -> None:
    """Two random and two heuristic bots play a full 4-player match."""
    names = ["r1", "h1", "r2", "h2"]
    async with bot_processes(bot, arena, logs) as bots:
        processes = [
            await bots.start(name, "--strategy", "random" if name[0] == "r" else "heuristic", "--max-matches", "1")
            for name in names
        ]
        await bots.welcomed(*zip(names, processes, strict=True))
        match_id = await arena.start_match(names, seed=4, tc=TC)
        for seat, process in enumerate(processes):
            assert await process.exit_code(60) == 0, process.log()
            assert process.starting("started") == [f"started {match_id} {seat}"]
            assert len(process.starting("ended")) == 1
        await check_normal_record(arena, match_id, names)


async def check_rejection(bot: Path, arena: Arena, logs: Path) -> None:
    """``--invalid-first``: the first answer is "Z9", rejected as invalid; the bot plays on to a normal end."""
    async with bot_processes(bot, arena, logs) as bots:
        bad = await bots.start("clumsy", "--strategy", "heuristic", "--invalid-first", "--max-matches", "1")
        good = await bots.start("tidy", "--strategy", "random", "--max-matches", "1")
        await bots.welcomed(("clumsy", bad), ("tidy", good))
        match_id = await arena.start_match(["clumsy", "tidy"], seed=7, tc=TC)
        rejected = (await bad.line("rejected")).split()
        assert await bad.exit_code(60) == 0, bad.log()
        assert await good.exit_code(60) == 0, good.log()
        assert len(bad.starting("rejected")) == 1
        assert not good.starting("rejected")
        record = await arena.record(match_id)
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.outcome.forfeited_seats
        assert [(r.seat, r.fault, r.received_action) for r in record.rejections] == [
            (0, common_pb2.FAULT_INVALID_ACTION, "Z9")
        ]
        assert rejected == ["rejected", match_id, str(record.rejections[0].sequence), "FAULT_INVALID_ACTION"]
        wire_record.check_record(record)


async def check_reconnect(bot: Path, arena: Arena, logs: Path) -> None:
    """The server drops the bot's stream mid-match: it says so, comes back, and the match ends normally.

    The other seat is a paced raw bot that answers each request after a short delay and closes the
    kit bot's connection when its own 5th request comes, so the match is surely still running then.
    """
    loop = asyncio.get_running_loop()
    requests = itertools.count(1)
    closed = asyncio.Event()

    def paced(request: bot_pb2.ActionRequest) -> None:
        if next(requests) == 5:
            connection = arena.node.hub.sessions["phoenix"].connection
            assert connection is not None
            connection.close("test")
            closed.set()
        loop.call_later(0.02, pacer.send_action, request.match_id, request.sequence, request.legal_actions[0])

    pacer = RawBot(arena.address, await arena.register("pacer"), paced)
    arena.bots.append(pacer.start())
    await asyncio.wait_for(pacer.welcomed.wait(), 10)
    async with bot_processes(bot, arena, logs) as bots:
        phoenix = await bots.start("phoenix", "--strategy", "heuristic", "--max-matches", "1")
        await bots.welcomed(("phoenix", phoenix))
        match_id = await arena.start_match(["phoenix", "pacer"], seed=5, tc=TC)
        await asyncio.wait_for(closed.wait(), LINE_TIMEOUT)
        await phoenix.line("reconnecting")
        await phoenix.line("welcome", count=2)
        assert await phoenix.exit_code(60) == 0, phoenix.log()
        order = [line.split()[0] for line in phoenix.lines]
        assert order == ["welcome", "started", "reconnecting", "welcome", "ended"], phoenix.lines
        assert phoenix.lines[1] == f"started {match_id} 0"
        await check_normal_record(arena, match_id, ["phoenix", "pacer"])


async def check_failover_and_replacement(bot: Path, arena: Arena, logs: Path) -> None:
    """A dead first address is skipped; a second process with the same token replaces the first, which
    then exits (status 2) without reconnecting."""
    dead = "127.0.0.1:1"  # nothing listens on port 1: the connection is refused at once
    async with bot_processes(bot, arena, logs) as bots:
        first = await bots.start("twin", servers=[dead, arena.address])
        await first.line("reconnecting")
        await bots.welcomed(("twin", first))
        second = await bots.start("twin")
        assert await second.line("welcome") == "welcome twin"
        assert await first.exit_code() == 2, first.log()
        assert first.starting("reconnecting") == ["reconnecting"], first.lines
        assert "took over" in first.stderr.read_text()
        assert second.process.returncode is None


@pytest.fixture(scope="session")
def rust_bot() -> Path:
    """The Rust kit's bin/bot, built once per session."""
    return build_kit(KIT)


def test_rust_unit_tests(rust_bot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_native_tests(KIT, capsys)


async def test_rust_bots_play_concurrent_two_player_matches(rust_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_concurrent_two_player_matches(rust_bot, arena, tmp_path)


async def test_rust_bots_play_a_four_player_match(rust_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_four_player_match(rust_bot, arena, tmp_path)


async def test_rust_bot_reports_a_rejection_and_plays_on(rust_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_rejection(rust_bot, arena, tmp_path)


async def test_rust_bot_reconnects_mid_match(rust_bot: Path, arena: Arena, tmp_path: Path) -> None:
    await check_reconnect(rust_bot, arena, tmp_path)


async def test_rust_bot_fails_over_and_yields_to_a_newer_connection(
    rust_bot: Path, arena: Arena, tmp_path: Path
) -> None:
    await check_failover_and_replacement(rust_bot, arena, tmp_path)
