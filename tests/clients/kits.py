"""The harness of the starter-kit tests: build a kit once, run its ``bin/bot`` processes, read their events.

Every kit's ``bin/bot`` takes ``--server ADDR[,ADDR...] [--strategy random|heuristic] [--max-matches N]
[--concurrency N] [--invalid-first]`` and its token from ``--token T``, ``--token-file PATH`` or
``$ARENA_TOKEN`` or its older alias ``$ARENA_BOT_TOKEN`` (in that order), and prints one line per
event: ``welcome <bot>``, ``started <match> <seat>``, ``rejected <match> <sequence> <fault>``,
``ended <match> <placing>``, ``reconnecting``. So nothing here knows a language: a test file names its
kit (``Kit("go")``), builds it in a session fixture (``KIT.build()``, which fails — never skips — when
the kit does not build), runs its own unit-test command (``kit.unit_tests([...])``) and calls the
scenarios below that it shares with other kits.

Every wait is bounded; every process started here is killed when its ``Bots`` (an ``async with``) ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pytest

from arena.referee.timecontrol import TimeControl
from arena.service.sessions import CloseReason
from arena.v1 import bot_pb2, common_pb2
from tests.buildlock import build_lock
from tests.grpc.harness import Arena, eventually
from tests.grpc.rawbot import RawBot
from tests.records import check_record

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
BUILD_TIMEOUT = 900.0
"""The default bound on ``make -C clients/<kit> build`` (a cold build may download and compile a lot)."""
LINE_TIMEOUT = 30.0
"""The default bound on any single wait for a bot process (a line, an exit)."""
TEST_ALLOWANCE = 120.0
"""What a test may take on top of a cold build that happens inside it (see ``Kit.cold_build_timeout``)."""
# Generous per-decision time: these tests check the protocol, not speed, on a busy 2-core machine.
TC = TimeControl(decision_allowance=5.0, time_bank=5.0, strike_limit=3, disconnect_grace=10.0)
NOISE = ("make[", "   Compiling", "[INFO] os.detected", "\x1b[0m")
"""Output lines of a unit-test run left out of the log (build chatter, not results)."""

TOKEN_VARIABLES = ("ARENA_TOKEN", "ARENA_BOT_TOKEN")
"""The environment variables a kit may read its token from."""

_built: dict[str, Path] = {}


class TokenVia(enum.Enum):
    """How a bot process is given its token."""

    FLAG = "--token"
    FILE = "--token-file"
    ENVIRONMENT = "$ARENA_TOKEN"
    OLD_ENVIRONMENT = "$ARENA_BOT_TOKEN"


def run(command: Sequence[str], cwd: Path, timeout: float, env: Mapping[str, str] | None = None) -> tuple[int, str]:
    """Run ``command`` in ``cwd`` (in ``env``, by default this process's environment): its exit status
    and its output (stdout and stderr, interleaved).

    Fails the test when it does not finish in ``timeout`` seconds; then the whole process group (make,
    cargo, Maven, go and their children) is killed, not only the command.
    """
    try:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            env=None if env is None else dict(env),
        )
    except OSError as error:
        pytest.fail(f"cannot run {command[0]}: {error}")
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"{' '.join(command)} (in {cwd}) did not finish in {timeout} s:\n{output[-4000:]}")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return process.returncode, output


def build_kit(language: str, timeout: float = BUILD_TIMEOUT) -> Path:
    """``make -C clients/<language> build`` (incremental), once per session; the kit's ``bin/bot``.

    Fails the test (never skips it) when the kit does not build: a missing toolchain is a failure.
    """
    if language not in _built:
        kit = CLIENTS / language
        with build_lock(kit, timeout):  # scripts/prebuild.sh may be building it
            code, output = run(["make", "-C", str(kit), "build"], ROOT, timeout)
        if code != 0:
            pytest.fail(f"make -C {kit} build failed ({code}):\n{output[-8000:]}")
        bot = kit / "bin" / "bot"
        assert os.access(bot, os.X_OK), f"{bot} is not executable"
        _built[language] = bot
    return _built[language]


class BotProcess:
    """One bot process; its stdout event lines are collected as they come, its stderr goes to a file."""

    def __init__(
        self, name: str, process: asyncio.subprocess.Process, stderr: Path, wait: float = LINE_TIMEOUT
    ) -> None:
        self.name = name
        self.process = process
        self.stderr = stderr
        self.wait = wait
        """The default bound on each wait below."""
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
        """Every stdout line so far that starts with ``prefix``."""
        return [line for line in self.lines if line.startswith(prefix)]

    async def line(self, prefix: str, within: float | None = None, count: int = 1) -> str:
        """The ``count``-th stdout line starting with ``prefix``, waiting for it at most ``within`` seconds
        (the process's default wait); fails at once if the process ends without printing it."""
        seconds = self.wait if within is None else within

        async def wait() -> str:
            async with self._changed:
                while len(hits := self.starting(prefix)) < count:
                    if self._reader.done():
                        raise AssertionError(
                            f"{self.name} exited without printing {prefix!r} #{count}{self.describe()}"
                        )
                    await self._changed.wait()
                return hits[count - 1]

        try:
            return await asyncio.wait_for(wait(), seconds)
        except TimeoutError:
            raise AssertionError(
                f"{self.name} printed no {prefix!r} #{count} in {seconds} s{self.describe()}"
            ) from None

    async def exit_code(self, within: float | None = None) -> int:
        """The exit status, waiting at most ``within`` seconds for the process to end by itself; then
        its stdout is read to the end."""
        seconds = self.wait if within is None else within
        try:
            code = await asyncio.wait_for(self.process.wait(), seconds)
        except TimeoutError:
            raise AssertionError(f"{self.name} did not exit in {seconds} s{self.describe()}") from None
        await asyncio.wait_for(self._reader, 5)
        return code

    def describe(self) -> str:
        """Its output so far, for failure messages."""
        err = self.stderr.read_text(errors="replace")[-3000:] if self.stderr.exists() else ""
        stdout = "\n".join(self.lines[-40:])
        return f"\n{self.name} stdout:\n{stdout}\n{self.name} stderr (end):\n{err}"

    async def stop(self) -> None:
        """Kill it (if still running), reap it and stop reading."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 5)
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


class Bots:
    """Starts bot processes against one arena and kills every one of them at the end::

    async with Bots(arena, tmp_path, [str(bot)]) as bots:
        alice = await bots.launch("alice", "--strategy", "random")
    """

    def __init__(self, arena: Arena, logs: Path, command: Sequence[str] = (), wait: float = LINE_TIMEOUT) -> None:
        self.arena = arena
        self.logs = logs
        self.command = list(command)
        self.wait = wait
        self.processes: list[BotProcess] = []
        self.tokens: dict[str, str] = {}

    async def __aenter__(self) -> Bots:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await asyncio.gather(*(process.stop() for process in self.processes))

    async def start(
        self,
        name: str,
        *args: str,
        command: Sequence[str] | None = None,
        token: str | None = None,
        servers: Sequence[str] | None = None,
        token_via: TokenVia = TokenVia.FLAG,
    ) -> BotProcess:
        """Run ``command --server <servers> *args`` given ``token`` as ``token_via`` says (by default:
        this ``Bots``'s command, the arena's address, and ``--token`` with a token for ``name``,
        registered once). The token variables of this process's environment are never passed on."""
        if token is None:
            if name not in self.tokens:
                self.tokens[name] = await self.arena.register(name)
            token = self.tokens[name]
        index = len(self.processes)
        stderr = self.logs / f"{name}-{index}.stderr"
        env = {key: value for key, value in os.environ.items() if key not in TOKEN_VARIABLES}
        given: list[str] = []
        match token_via:
            case TokenVia.FLAG:
                given = ["--token", token]
            case TokenVia.FILE:
                path = self.logs / f"{name}-{index}.token"
                path.write_text(f"  {token}\n")  # the kits strip whitespace around it
                given = ["--token-file", str(path)]
            case TokenVia.ENVIRONMENT | TokenVia.OLD_ENVIRONMENT:
                env[token_via.value.removeprefix("$")] = token
        with stderr.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                *(self.command if command is None else command),
                "--server",
                ",".join(servers or [self.arena.address]),
                *given,
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                env=env,
            )
        bot = BotProcess(name, process, stderr, self.wait)
        self.processes.append(bot)
        return bot

    async def connected(self, *bots: BotProcess, within: float | None = None) -> None:
        """Wait (at most ``within`` seconds each) until the arena sees each bot connected."""
        sessions = self.arena.node.hub.sessions
        for bot in bots:
            try:
                await eventually(
                    lambda b=bot: (s := sessions.get(b.name)) is not None and s.connection is not None,  # type: ignore[misc]
                    self.wait if within is None else within,
                )
            except AssertionError:
                raise AssertionError(f"{bot.name} never connected{bot.describe()}") from None

    async def welcomed(self, *bots: BotProcess) -> None:
        """Wait until each bot printed its welcome and the arena sees it connected."""
        for bot in bots:
            assert await bot.line("welcome ") == f"welcome {bot.name}"
        # Each printed its welcome, so each is connected already: a short bound.
        await self.connected(*bots, within=10.0)

    async def launch(
        self, name: str, *args: str, token: str | None = None, token_via: TokenVia = TokenVia.FLAG
    ) -> BotProcess:
        """Start a bot and wait until it is welcomed."""
        bot = await self.start(name, *args, token=token, token_via=token_via)
        await self.welcomed(bot)
        return bot

    async def start_welcomed(self, specs: Sequence[tuple[str, Sequence[str]]]) -> list[BotProcess]:
        """Start a bot for each (name, args), then wait until every one of them is welcomed."""
        started = [await self.start(name, *args) for name, args in specs]
        await self.welcomed(*started)
        return started


@dataclass(frozen=True)
class Kit:
    """One starter kit, clients/<language>: its build bound and its tests' default wait on a bot."""

    language: str
    build_timeout: float = BUILD_TIMEOUT
    wait: float = LINE_TIMEOUT

    @property
    def folder(self) -> Path:
        return CLIENTS / self.language

    @property
    def bot(self) -> Path:
        return self.folder / "bin" / "bot"

    @property
    def cold_build_timeout(self) -> pytest.MarkDecorator:
        """The per-test timeout of a module whose kit may be built inside whichever of its tests comes
        first (a session fixture): the build, and then the test; each wait inside is bounded on its own."""
        return pytest.mark.timeout(self.build_timeout + TEST_ALLOWANCE)

    def build(self) -> Kit:
        """Build it (once per session); fails, never skips, when it does not build. For session fixtures."""
        build_kit(self.language, self.build_timeout)
        return self

    def bots(self, arena: Arena, logs: Path) -> Bots:
        """Its ``bin/bot`` processes against ``arena`` (``async with``: all killed at the end)."""
        return Bots(arena, logs, [str(self.bot)], self.wait)

    def unit_tests(self, command: Sequence[str], capsys: pytest.CaptureFixture[str], timeout: float) -> None:
        """Run the kit's own unit tests (``command``, in its folder) within ``timeout`` seconds; their
        summary goes to the log; fails unless they pass."""
        code, output = run(command, self.folder, timeout)
        with capsys.disabled():
            print(f"\n--- {' '.join(command)} (in clients/{self.language}) ---")
            print("\n".join(line for line in output.splitlines() if not line.startswith(NOISE)))
        assert code == 0, f"the unit tests of clients/{self.language} failed:\n{output[-8000:]}"


@contextlib.asynccontextmanager
async def running_bots(
    arena: Arena, folder: Path, bots: Sequence[tuple[str, Sequence[str]]]
) -> AsyncIterator[list[BotProcess]]:
    """Register each (name, command) bot, start ``command --server --token``, wait until it is
    connected; kill them all at the end."""
    async with Bots(arena, folder) as started:
        processes = [await started.start(name, command=command) for name, command in bots]
        await started.connected(*processes)
        yield processes


def python_bot(kind: str) -> list[str]:
    """The Python SDK's starter bot as a command."""
    return [sys.executable, "-m", "arena_bot", kind]


def placing(line: str) -> int:
    """The placing in an ``ended <match_id> <placing>`` line."""
    return int(line.split()[2])


async def check_normal_record(arena: Arena, match_id: str, names: list[str]) -> None:
    """The match ended by the rules, with no fault, and its record replays."""
    record = await arena.record(match_id)
    assert list(record.bot_names) == names
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert not record.rejections, list(record.rejections)
    check_record(record)


# Scenarios of test_go.py and test_typescript.py (bot names start with ``prefix``).


async def check_two_and_four_player_matches(kit: Kit, arena: Arena, logs: Path, prefix: str) -> None:
    """Two random and two heuristic bots play a 2-player match and then a 4-player one: both end by the
    rules, with no rejection, fallback or reconnection; the printed placings are the record's."""
    specs: list[tuple[str, Sequence[str]]] = [
        (f"{prefix}-random-1", ["--strategy", "random"]),
        (f"{prefix}-heuristic-1", ["--strategy", "heuristic"]),
        (f"{prefix}-random-2", ["--strategy", "random"]),
        (f"{prefix}-heuristic-2", ["--strategy", "heuristic"]),
    ]
    async with kit.bots(arena, logs) as bots:
        procs = await bots.start_welcomed(specs)
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
            check_record(record)
        assert placings == list((await arena.record(four)).outcome.placings)
        assert not any(line.startswith(("rejected", "reconnecting")) for bot in procs for line in bot.lines)


async def check_invalid_first_action(kit: Kit, arena: Arena, logs: Path, prefix: str) -> None:
    """``--invalid-first``: the first answer ("Z9") is rejected, one fallback is played, the match ends
    normally and, with ``--max-matches 1``, both bots exit 0."""
    specs: list[tuple[str, Sequence[str]]] = [
        (f"{prefix}-clumsy", ["--strategy", "heuristic", "--invalid-first", "--max-matches", "1"]),
        (f"{prefix}-steady", ["--strategy", "random", "--max-matches", "1"]),
    ]
    async with kit.bots(arena, logs) as bots:
        clumsy, steady = await bots.start_welcomed(specs)
        match_id = await arena.start_match([clumsy.name, steady.name], seed=21, tc=TC)
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
    check_record(record)


async def check_dropped_stream(kit: Kit, arena: Arena, logs: Path, prefix: str) -> None:
    """The server drops a bot's stream mid-match: it says so, comes back, and the match ends normally."""
    specs: list[tuple[str, Sequence[str]]] = [
        (f"{prefix}-phoenix", ["--strategy", "heuristic"]),
        (f"{prefix}-rock", ["--strategy", "random"]),
    ]
    async with kit.bots(arena, logs) as bots:
        phoenix, rock = await bots.start_welcomed(specs)
        # The longer game (several decks) keeps the match running well past the moment of the cut.
        match_id = await arena.start_match([phoenix.name, rock.name], seed=31, tc=TC, long_game="true")
        await phoenix.line(f"started {match_id} ")
        assert match_id in arena.node.matches.running, "the match ended before the test could cut the stream"
        connection = arena.node.hub.sessions[phoenix.name].connection
        assert connection is not None
        connection.close(CloseReason.DISCONNECTED)
        await phoenix.line("reconnecting")
        await phoenix.line(f"ended {match_id} ")
        await rock.line(f"ended {match_id} ")
        assert arena.node.hub.sessions[phoenix.name].connection is not None  # it came back
    record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.outcome.forfeited_seats
    assert not record.rejections
    check_record(record)


# Scenarios of test_rust.py and test_java.py.


async def check_concurrent_two_player_matches(kit: Kit, arena: Arena, logs: Path, matches: int = 3) -> None:
    """A random and a heuristic bot play ``matches`` 2-player matches at once, then exit 0."""
    async with kit.bots(arena, logs) as bots:
        limit = ["--max-matches", str(matches), "--concurrency", str(matches)]
        rnd, heu = await bots.start_welcomed(
            [("rand", ["--strategy", "random", *limit]), ("heur", ["--strategy", "heuristic", *limit])]
        )
        ids = [await arena.start_match(["rand", "heur"], seed=seed, tc=TC) for seed in range(11, 11 + matches)]
        assert await rnd.exit_code(60) == 0, rnd.describe()
        assert await heu.exit_code(60) == 0, heu.describe()
        for process, seat in ((rnd, 0), (heu, 1)):
            assert sorted(process.starting("started")) == sorted(f"started {m} {seat}" for m in ids)
            ended = {line.split()[1]: int(line.split()[2]) for line in process.starting("ended")}
            assert sorted(ended) == sorted(ids)
        for match_id in ids:
            await check_normal_record(arena, match_id, ["rand", "heur"])
            record = await arena.record(match_id)
            assert placing(await heu.line(f"ended {match_id} ")) == record.outcome.placings[1]


async def check_four_player_match(kit: Kit, arena: Arena, logs: Path) -> None:
    """Two random and two heuristic bots play a full 4-player match."""
    names = ["r1", "h1", "r2", "h2"]
    async with kit.bots(arena, logs) as bots:
        processes = await bots.start_welcomed(
            [
                (name, ["--strategy", "random" if name[0] == "r" else "heuristic", "--max-matches", "1"])
                for name in names
            ]
        )
        match_id = await arena.start_match(names, seed=4, tc=TC)
        for seat, process in enumerate(processes):
            assert await process.exit_code(60) == 0, process.describe()
            assert process.starting("started") == [f"started {match_id} {seat}"]
            assert len(process.starting("ended")) == 1
        await check_normal_record(arena, match_id, names)


async def check_rejection(kit: Kit, arena: Arena, logs: Path) -> None:
    """``--invalid-first``: the first answer is "Z9", rejected as invalid; the bot plays on to a normal end."""
    async with kit.bots(arena, logs) as bots:
        bad, good = await bots.start_welcomed(
            [
                ("clumsy", ["--strategy", "heuristic", "--invalid-first", "--max-matches", "1"]),
                ("tidy", ["--strategy", "random", "--max-matches", "1"]),
            ]
        )
        match_id = await arena.start_match(["clumsy", "tidy"], seed=7, tc=TC)
        rejected = (await bad.line("rejected")).split()
        assert await bad.exit_code(60) == 0, bad.describe()
        assert await good.exit_code(60) == 0, good.describe()
        assert len(bad.starting("rejected")) == 1
        assert not good.starting("rejected")
        record = await arena.record(match_id)
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.outcome.forfeited_seats
        assert [(r.seat, r.fault, r.received_action) for r in record.rejections] == [
            (0, common_pb2.FAULT_INVALID_ACTION, "Z9")
        ]
        assert rejected == ["rejected", match_id, str(record.rejections[0].sequence), "FAULT_INVALID_ACTION"]
        check_record(record)


async def check_reconnect(kit: Kit, arena: Arena, logs: Path) -> None:
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
            connection.close(CloseReason.DISCONNECTED)
            closed.set()
        loop.call_later(0.02, pacer.send_action, request.match_id, request.sequence, request.legal_actions[0])

    pacer = RawBot(arena.address, await arena.register("pacer"), paced)
    arena.bots.append(pacer.start())
    await asyncio.wait_for(pacer.welcomed.wait(), 10)
    async with kit.bots(arena, logs) as bots:
        phoenix = await bots.launch("phoenix", "--strategy", "heuristic", "--max-matches", "1")
        match_id = await arena.start_match(["phoenix", "pacer"], seed=5, tc=TC)
        await asyncio.wait_for(closed.wait(), kit.wait)
        await phoenix.line("reconnecting")
        await phoenix.line("welcome", count=2)
        assert await phoenix.exit_code(60) == 0, phoenix.describe()
        order = [line.split()[0] for line in phoenix.lines]
        assert order == ["welcome", "started", "reconnecting", "welcome", "ended"], phoenix.lines
        assert phoenix.lines[1] == f"started {match_id} 0"
        await check_normal_record(arena, match_id, ["phoenix", "pacer"])


async def check_failover_and_replacement(kit: Kit, arena: Arena, logs: Path) -> None:
    """A dead first address is skipped; a second process with the same token replaces the first, which
    then exits (status 2) without reconnecting."""
    dead = "127.0.0.1:1"  # nothing listens on port 1: the connection is refused at once
    async with kit.bots(arena, logs) as bots:
        first = await bots.start("twin", servers=[dead, arena.address])
        await first.line("reconnecting")
        await bots.welcomed(first)
        second = await bots.start("twin")
        assert await second.line("welcome") == "welcome twin"
        assert await first.exit_code() == 2, first.describe()
        assert first.starting("reconnecting") == ["reconnecting"], first.lines
        assert "took over" in first.stderr.read_text()
        assert second.process.returncode is None


# Scenarios of every kit's tests.


async def check_token_from_environment_and_file(kit: Kit, arena: Arena, logs: Path) -> None:
    """One bot has its token only in ``$ARENA_TOKEN``, one only in the older ``$ARENA_BOT_TOKEN``,
    one only in a ``--token-file`` (whitespace around it), none on its command line: they play a
    match to its normal end and exit 0 (``--max-matches 1``)."""
    ways = {"by-env": TokenVia.ENVIRONMENT, "by-old-env": TokenVia.OLD_ENVIRONMENT, "by-file": TokenVia.FILE}
    async with kit.bots(arena, logs) as bots:
        started = [await bots.start(name, "--max-matches", "1", token_via=via) for name, via in ways.items()]
        await bots.welcomed(*started)
        match_id = await arena.start_match(list(ways), seed=41, tc=TC)
        for seat, bot in enumerate(started):
            assert await bot.exit_code(60) == 0, bot.describe()
            assert bot.starting("started") == [f"started {match_id} {seat}"]
    await check_normal_record(arena, match_id, list(ways))


async def check_missing_token_file(kit: Kit, arena: Arena, logs: Path) -> None:
    """``--token-file`` naming a missing file, or an empty one: one line on stderr naming the file,
    exit status 2 — even with a good token in the environment (the file comes first)."""
    empty = logs / "empty.token"
    empty.write_text(" \n")
    async with kit.bots(arena, logs) as bots:
        for path, says in ((logs / "no-such.token", "cannot read the token file"), (empty, "is empty")):
            process = await bots.start("tokenless", "--token-file", str(path), token_via=TokenVia.ENVIRONMENT)
            assert await process.exit_code() == 2, process.describe()
            lines = process.stderr.read_text().strip().splitlines()
            assert len(lines) == 1, lines
            assert says in lines[0] and str(path) in lines[0], lines
            assert not process.lines


async def check_two_seats_of_one_match(kit: Kit, arena: Arena, logs: Path) -> None:
    """One bot process holds seats 0 and 1 of a 3-player match: it plays both to the normal end (each
    answer echoes its seat), with no rejection, fallback or forfeit, and reports both seats."""
    async with kit.bots(arena, logs) as bots:
        twin, single = await bots.start_welcomed([("twin", ["--strategy", "heuristic"]), ("single", [])])
        match_id = await arena.start_match(["twin", "twin", "single"], seed=43, tc=TC)
        await twin.line(f"ended {match_id} ", count=2, within=90)
        await single.line(f"ended {match_id} ", within=30)
        assert sorted(twin.starting(f"started {match_id} ")) == [f"started {match_id} {seat}" for seat in (0, 1)], (
            twin.lines
        )
        assert not twin.starting("rejected") and not twin.starting("reconnecting"), twin.lines
    record = await arena.record(match_id)
    await check_normal_record(arena, match_id, ["twin", "twin", "single"])
    assert not any(decision.is_fallback for decision in record.decisions)
    assert {decision.seat for decision in record.decisions} == {0, 1, 2}
    ended = sorted(placing(line) for line in twin.starting(f"ended {match_id} "))
    assert ended == sorted(record.outcome.placings[:2])
