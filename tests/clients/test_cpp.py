"""The C++ starter kit (clients/cpp) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/cpp build``, which installs missing Debian
packages itself; a build that fails or a missing toolchain fails the tests, never skips them). Each
test then runs ``clients/cpp/bin/bot`` processes against the in-process arena of the ``arena``
fixture: full 2- and 4-player matches, a rejection, a forced reconnect, a refused token and a
replaced connection. The kit's GoogleTest unit test runs here too, so ``make test`` covers it.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from arena.referee.timecontrol import TimeControl
from arena.v1 import bot_pb2, common_pb2
from arena.wire import record as wire_record
from tests.grpc.harness import Arena, eventually

KIT = Path(__file__).resolve().parents[2] / "clients" / "cpp"
BOT = KIT / "bin" / "bot"
BUILD_TIMEOUT = 900.0
WAIT = 30.0
"""The longest any single wait on a bot process may take."""
# Generous per-decision time: these tests check the protocol, not speed, on a busy 2-core machine.
TC = TimeControl(decision_seconds=5.0, bank_seconds=5.0, max_strikes=3, grace_seconds=10.0)

# The first test builds the kit (minutes when cold, seconds when warm): allow for it in every test,
# since any one of them may be the first. Each wait below is bounded on its own.
pytestmark = pytest.mark.timeout(BUILD_TIMEOUT + 120)


@pytest.fixture(scope="session")
def cpp_build() -> Path:
    """``make -C clients/cpp build``, once per session; fails (never skips) if it does not build."""
    try:
        result = subprocess.run(
            ["make", "-C", str(KIT), "build"], capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.fail(f"make -C {KIT} build did not finish: {error}")
    if result.returncode != 0:
        pytest.fail(
            f"make -C {KIT} build failed ({result.returncode}):\n{result.stdout[-5000:]}\n{result.stderr[-5000:]}"
        )
    return BOT


class BotProcess:
    """One ``bin/bot`` process; its stdout event lines are collected as they come, stderr goes to a file."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.name = name
        self.process = process
        self.stderr = stderr
        self.lines: list[str] = []
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, name: str, args: list[str], log_dir: Path) -> BotProcess:
        stderr = log_dir / f"{name}.stderr"
        with stderr.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                str(BOT), *args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=sink
            )
        return cls(name, process, stderr)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            self.lines.append(line.decode().rstrip("\n"))

    def starting(self, prefix: str) -> list[str]:
        """The stdout lines so far that start with ``prefix``."""
        return [line for line in self.lines if line.startswith(prefix)]

    def describe(self) -> str:
        log = self.stderr.read_text(errors="replace")[-3000:] if self.stderr.exists() else ""
        return f"\n{self.name} stdout: {self.lines}\n{self.name} stderr (tail):\n{log}"

    async def line(self, prefix: str, count: int = 1) -> str:
        """The ``count``-th stdout line starting with ``prefix``, waiting at most WAIT seconds."""
        try:
            await eventually(lambda: len(self.starting(prefix)) >= count or self._reader.done(), WAIT)
        except AssertionError:
            raise AssertionError(f"no {count} line(s) {prefix!r} within {WAIT} s{self.describe()}") from None
        found = self.starting(prefix)
        assert len(found) >= count, f"{self.name} exited before {count} line(s) {prefix!r}{self.describe()}"
        return found[count - 1]

    async def exit_code(self) -> int:
        """Wait (at most WAIT seconds) for the process to exit by itself."""
        try:
            code = await asyncio.wait_for(self.process.wait(), WAIT)
        except TimeoutError:
            raise AssertionError(f"{self.name} did not exit within {WAIT} s{self.describe()}") from None
        await asyncio.wait_for(self._reader, WAIT)
        return code

    async def stop(self) -> None:
        """Terminate the process (kill it if it lingers) and reap it."""
        if self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except TimeoutError:
                self.process.kill()
                await asyncio.wait_for(self.process.wait(), 5)
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


Launch = Callable[..., Awaitable[BotProcess]]


@pytest.fixture
async def cpp_bots(arena: Arena, cpp_build: Path, tmp_path: Path) -> AsyncIterator[Launch]:
    """``await launch(name, *flags)``: register a bot and run ``bin/bot`` for it, welcomed; all stopped after."""
    started: list[BotProcess] = []

    async def launch(name: str, *flags: str, token: str | None = None, welcome: bool = True) -> BotProcess:
        if token is None:
            token = await arena.register(name)
        args = ["--server", arena.address, "--token", token, *flags]
        bot = await BotProcess.start(f"{name}-{len(started)}", args, tmp_path)
        started.append(bot)
        if welcome:
            assert await bot.line("welcome ") == f"welcome {name}"
        return bot

    try:
        yield launch
    finally:
        for bot in started:
            await bot.stop()


def test_the_unit_tests_pass(cpp_build: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = subprocess.run(
        [str(KIT / "build" / "sdk_test"), "--gtest_brief=1"], capture_output=True, text=True, timeout=120, check=False
    )
    with capsys.disabled():
        print(f"\nclients/cpp sdk_test:\n{result.stdout.strip()}")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("players", [2, 4])
async def test_a_match_between_the_starter_bots_ends_normally_and_replays(
    arena: Arena, cpp_bots: Launch, players: int
) -> None:
    names = [f"{'heuristic' if seat % 2 == 0 else 'random'}-{seat}" for seat in range(players)]
    bots = [
        await cpp_bots(name, "--strategy", name.split("-")[0], "--max-matches", "1", "--seed", str(seat + 1))
        for seat, name in enumerate(names)
    ]
    match_id = await arena.start_match(names, seed=11 + players, tc=TC)
    ended = [await bot.line(f"ended {match_id} ") for bot in bots]
    for seat, bot in enumerate(bots):
        assert await bot.line("started ") == f"started {match_id} {seat}"
        assert await bot.exit_code() == 0, bot.describe()
        assert not bot.starting("rejected") and not bot.starting("reconnecting")
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.rejections
    assert ended == [f"ended {match_id} {placing}" for placing in record.outcome.placings]
    wire_record.check_record(record)


async def test_one_bot_process_plays_several_matches_at_once(arena: Arena, cpp_bots: Launch) -> None:
    flags = ("--concurrency", "4", "--max-matches", "4")
    bots = [await cpp_bots(name, "--strategy", name, *flags) for name in ("heuristic", "random")]
    match_ids = [await arena.start_match(["heuristic", "random"], seed=seed, tc=TC) for seed in range(4)]
    for bot in bots:
        assert await bot.exit_code() == 0, bot.describe()
        assert sorted(line.split()[1] for line in bot.starting("ended ")) == sorted(match_ids)
    for match_id in match_ids:
        record = await arena.record(match_id)
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.rejections


async def test_an_invalid_first_answer_is_rejected_and_the_bot_plays_on(arena: Arena, cpp_bots: Launch) -> None:
    bad = await cpp_bots("careless", "--strategy", "random", "--invalid-first", "--max-matches", "1")
    good = await cpp_bots("careful", "--strategy", "heuristic", "--max-matches", "1")
    match_id = await arena.start_match(["careless", "careful"], seed=5, tc=TC)
    rejected = await bad.line("rejected ")
    await bad.line(f"ended {match_id} ")
    await good.line(f"ended {match_id} ")
    assert await bad.exit_code() == 0
    assert await good.exit_code() == 0
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert len(record.rejections) == 1
    rejection = record.rejections[0]
    assert (rejection.seat, rejection.received_action, rejection.strikes) == (0, "Z9", 1)
    assert rejection.fault == common_pb2.FAULT_INVALID_ACTION
    assert rejected == f"rejected {match_id} {rejection.sequence} FAULT_INVALID_ACTION"
    assert len(bad.starting("rejected")) == 1
    assert not good.starting("rejected")
    wire_record.check_record(record)


async def test_a_dropped_stream_is_reconnected_and_the_match_finishes(arena: Arena, cpp_bots: Launch) -> None:
    # The opponent, written from the proto alone, holds its 6th answer: the match waits for it while
    # the test drops the C++ bot's stream. Releasing it at once makes the C++ bot's next request come
    # due while it is away, so the server must resend it on the new stream, and the bot answer it.
    held: list[bot_pb2.ActionRequest] = []
    answers = 0

    def chooser(request: bot_pb2.ActionRequest) -> str | None:
        nonlocal answers
        answers += 1
        if answers == 6:
            held.append(request)
            return None
        return request.legal_actions[-1]

    gate = await arena.connect("gate", chooser=chooser)
    phoenix = await cpp_bots("phoenix", "--strategy", "heuristic", "--max-matches", "1")
    match_id = await arena.start_match(["phoenix", "gate"], seed=21, tc=TC)
    await eventually(lambda: held, WAIT)
    connection = arena.node.hub.sessions["phoenix"].connection
    assert connection is not None
    connection.close("test")
    gate.send_action(held[0].match_id, held[0].sequence, held[0].legal_actions[0])
    await phoenix.line("reconnecting")
    assert await phoenix.line("welcome ", count=2) == "welcome phoenix"
    await phoenix.line(f"ended {match_id} ")
    assert await phoenix.exit_code() == 0
    end = await gate.wait_ended(match_id, WAIT)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not end.outcome.forfeited_seats
    assert phoenix.starting("started") == [f"started {match_id} 0"]  # not announced again on the resend
    record = await arena.record(match_id)
    assert not record.rejections, record.rejections
    assert not any(decision.is_fallback for decision in record.decisions)
    wire_record.check_record(record)


async def test_a_refused_token_ends_the_bot_with_status_2(cpp_bots: Launch) -> None:
    bot = await cpp_bots("impostor", token="not-a-token", welcome=False)
    assert await bot.exit_code() == 2
    assert "UNAUTHENTICATED" in bot.stderr.read_text()
    assert not bot.starting("reconnecting")


async def test_a_replaced_connection_does_not_come_back(arena: Arena, cpp_bots: Launch) -> None:
    token = await arena.register("twin")
    first = await cpp_bots("twin", token=token)
    second = await cpp_bots("twin", token=token)
    assert await first.exit_code() == 2
    assert "took over" in first.stderr.read_text()
    assert not first.starting("reconnecting")
    assert second.process.returncode is None
    session = arena.node.hub.sessions["twin"]
    assert session.connection is not None
