"""Shared by the starter-kit tests: build a kit once, run its ``bin/bot`` processes, read their events.

Every kit's ``bin/bot`` takes ``--server ADDR --token T [--strategy random|heuristic]
[--max-matches N] [--invalid-first]`` and prints one line per event: ``welcome <bot>``,
``started <match> <seat>``, ``rejected <match> <sequence> <fault>``, ``ended <match> <placing>``,
``reconnecting``.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from tests.grpc.harness import Arena, eventually

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
BUILD_TIMEOUT = 900.0
LINE_TIMEOUT = 30.0


def build_kit(language: str) -> Path:
    """``make -C clients/<language> build`` (incremental); the kit's ``bin/bot``. Fails, never skips."""
    kit = CLIENTS / language
    try:
        result = subprocess.run(
            ["make", "-C", str(kit), "build"], capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.fail(f"make -C {kit} build did not finish: {error}")
    if result.returncode != 0:
        pytest.fail(
            f"make -C {kit} build failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
        )
    return kit / "bin" / "bot"


class BotProcess:
    """One bot process; its stdout lines are collected as they come."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.name = name
        self.process = process
        self.stderr = stderr
        self.lines: list[str] = []
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            self.lines.append(line.decode(errors="replace").rstrip("\n"))

    async def line(self, prefix: str, within: float = LINE_TIMEOUT) -> str:
        """The first stdout line starting with ``prefix`` (waiting at most ``within`` seconds)."""
        try:
            await eventually(lambda: any(line.startswith(prefix) for line in self.lines), within)
        except AssertionError:
            raise AssertionError(f"{self.name}: no {prefix!r} line within {within} s{self.describe()}") from None
        return next(line for line in self.lines if line.startswith(prefix))

    def describe(self) -> str:
        """Its output so far, for failure messages."""
        err = self.stderr.read_text(errors="replace")[-3000:] if self.stderr.exists() else ""
        return f"\nstdout: {self.lines[-20:]}\nstderr (end): {err}"

    async def stop(self) -> None:
        """Kill it and wait."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 10)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


@contextlib.asynccontextmanager
async def running_bots(
    arena: Arena, folder: Path, bots: Sequence[tuple[str, Sequence[str]]]
) -> AsyncIterator[list[BotProcess]]:
    """Register each (name, command) bot, start ``command + --server --token``, wait until it is
    connected; kill them all at the end."""
    started: list[BotProcess] = []
    try:
        for name, command in bots:
            token = await arena.register(name)
            stderr = folder / f"{name}.stderr"
            with stderr.open("wb") as err:
                process = await asyncio.create_subprocess_exec(
                    *command, "--server", arena.address, "--token", token,
                    stdout=asyncio.subprocess.PIPE, stderr=err, stdin=asyncio.subprocess.DEVNULL,
                )  # fmt: skip
            started.append(BotProcess(name, process, stderr))
        for bot in started:
            try:
                await eventually(lambda b=bot: arena.node.hub.sessions.get(b.name) is not None  # type: ignore[misc]
                                 and arena.node.hub.sessions[b.name].connection is not None, LINE_TIMEOUT)  # fmt: skip
            except AssertionError:
                raise AssertionError(f"{bot.name} never connected{bot.describe()}") from None
        yield started
    finally:
        for bot in started:
            await bot.stop()


def python_bot(kind: str) -> list[str]:
    """The Python SDK's starter bot as a command."""
    return [sys.executable, "-m", "arena_bot", kind]
