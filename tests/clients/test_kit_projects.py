"""A bot in a project of its own, built against a kit as its README says, connects and plays.

- the Go kit's module path (``arena/clients/go``) is not one ``go get`` resolves: a module of one's
  own points at a clone with the README's ``replace``, then ``go mod tidy`` and ``go build``;
- the TypeScript kit was ``private``: now ``npm pack`` makes a tarball another project installs;
- the Java, Rust and C++ kits' READMEs each have a section "Your own bot, in your own project": its
  files and commands are run here as written (``walkthrough``), the clone being a link to this
  repository, ``arena register`` the test's registration and ``localhost:50051`` the test's arena.
  Each reuses what the kit's own build made (``REUSE``), so it adds seconds, not a cold build.

Each own-project bot plays a 2-player match against the Python SDK's random bot on a real arena.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.v1 import common_pb2
from tests.clients.kits import (
    CLIENTS,
    ROOT,
    TOKEN_VARIABLES,
    BotProcess,
    Bots,
    build_kit,
    python_bot,
    run,
    running_bots,
)
from tests.grpc.harness import Arena, eventually

pytestmark = pytest.mark.slow

GO_MAIN = """package main

import (
\t"context"
\t"flag"
\t"log"

\t"arena/clients/go/arenabot"
)

func main() {
\tserver := flag.String("server", "localhost:50051", "the arena")
\ttoken := flag.String("token", "", "the bot's token")
\tflag.Parse()
\tfirst := func(_ context.Context, turn *arenabot.Turn) (string, error) { return turn.LegalActions[0], nil }
\tlog.Fatal(arenabot.Run(context.Background(), first, arenabot.Config{Servers: []string{*server}, Token: *token}))
}
"""

TS_MAIN = """const { runBot } = require('arena-bot');
const flag = (name) => process.argv[process.argv.indexOf(name) + 1];
runBot((turn) => turn.legalActions[0], { servers: flag('--server'), token: flag('--token') }).catch((error) => {
  console.error(String(error));
  process.exit(2);
});
"""


def _run(command: list[str], folder: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=600, check=False, env={**os.environ, **(env or {})}
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def go_project(folder: Path) -> list[str]:
    """The README's own module: require + replace, go mod tidy, go build."""
    build_kit("go")  # generates arenapb, which the module needs
    folder.mkdir()
    go_version = (CLIENTS / "go" / "go.mod").read_text().split("\ngo ")[1].split()[0]
    (folder / "go.mod").write_text(
        f"module mybot\n\ngo {go_version}\n\nrequire arena/clients/go v0.0.0\n\n"
        f"replace arena/clients/go => {CLIENTS / 'go'}\n"
    )
    (folder / "main.go").write_text(GO_MAIN)
    _run(["go", "mod", "tidy"], folder)
    _run(["go", "build", "-o", "mybot", "."], folder)
    return [str(folder / "mybot")]


def typescript_project(folder: Path) -> list[str]:
    """npm pack the kit, npm install the tarball into a new project."""
    build_kit("typescript")
    assert not json.loads((CLIENTS / "typescript" / "package.json").read_text()).get("private")
    folder.mkdir()
    packed = json.loads(
        _run(["npm", "pack", "--json", "--ignore-scripts", "--pack-destination", str(folder)], CLIENTS / "typescript")
    )
    tarball = folder / packed[0]["filename"]
    assert not [f["path"] for f in packed[0]["files"] if f["path"].startswith("dist/test/")]
    (folder / "package.json").write_text(json.dumps({"name": "mybot", "version": "1.0.0", "private": True}))
    _run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", str(tarball)], folder)
    (folder / "bot.js").write_text(TS_MAIN)
    return ["node", str(folder / "bot.js")]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", ["go", "typescript"])
async def test_a_bot_in_its_own_project_connects_and_plays(arena: Arena, tmp_path: Path, language: str) -> None:
    command = (go_project if language == "go" else typescript_project)(tmp_path / "mybot")
    lineup = [(f"own-{language}", command), ("py-random", python_bot("random"))]
    async with running_bots(arena, tmp_path, lineup):
        match_id = await arena.start_match([name for name, _ in lineup], seed=3)
        await eventually(lambda: match_id not in arena.node.matches.running, 120)
        record = await arena.record(match_id)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not record.rejections and not record.outcome.forfeited_seats


SECTION = "## Your own bot, in your own project"
CLONE = "git clone <the arena's repository> arena"
REGISTER = "arena register my-bot"
ADDRESS = "localhost:50051"
BOT = "my-bot"
CAPTION = re.compile(r"^`(mybot/[^`]+)`:$")


@dataclass(frozen=True)
class Step:
    """One step of a README walkthrough: a shell block to run, or a file (``path``) to write."""

    text: str
    path: str | None = None


def walkthrough(language: str) -> list[Step]:
    """The fenced blocks of the kit README's own-project section, in order: every ``sh`` block is a
    step to run; every other block is a file, named by the line before it (`` `mybot/...`: ``)."""
    readme = (CLIENTS / language / "README.md").read_text()
    assert SECTION in readme, f"clients/{language}/README.md has no {SECTION!r}"
    lines = readme.split(SECTION, 1)[1].split("\n## ", 1)[0].splitlines()
    steps: list[Step] = []
    caption = ""
    block: list[str] | None = None
    kind = ""
    for line in lines:
        if block is None and line.startswith("```"):
            block, kind = [], line[3:].strip()
        elif block is not None and line == "```":
            text = "".join(f"{code}\n" for code in block)
            if kind == "sh":
                steps.append(Step(text))
            else:
                named = CAPTION.match(caption)
                assert named, f"a {kind} block not named by a `mybot/...`: line before it: {block[:2]}"
                steps.append(Step(text, named[1]))
            block = None
        elif block is not None:
            block.append(line)
        elif line.strip():
            caption = line.strip()
    assert steps and steps[0].path is None and steps[-1].path is None, steps
    assert steps[0].text.startswith(CLONE), steps[0].text
    return steps


def reuse(language: str, project: Path) -> dict[str, str]:
    """What the test adds to a walkthrough, once its files are written, so that it reuses the kit's
    build rather than make its own (the environment of its commands). Java compiles against the kit's
    jar and C++ finds the kit's build folder as written; a Rust project's ``target`` folder is the
    kit's, so that the crates the kit compiled are not compiled again."""
    if language != "rust":
        return {}
    (project / "target").symlink_to(CLIENTS / "rust" / "target")
    return {"CARGO_NET_OFFLINE": "true"}


def run_walkthrough(language: str, home: Path, token: str, address: str) -> tuple[list[str], Path, dict[str, str]]:
    """Run the README's steps in ``home`` up to its last command, which starts the bot: that command
    (with the test's arena for ``localhost:50051``), the folder it runs in and its environment."""
    build_kit(language)
    steps = walkthrough(language)
    *setup, last = steps[-1].text.rstrip("\n").split("\n")
    steps[-1] = Step("".join(f"{line}\n" for line in setup))
    assert last.startswith('ARENA_TOKEN="$(cat my-bot.token)" ') and ADDRESS in last, last
    env = {key: value for key, value in os.environ.items() if key not in TOKEN_VARIABLES}
    env["MYBOT_TOKEN"] = token
    last_file = max(index for index, step in enumerate(steps) if step.path is not None)
    here = home
    where = home / ".cwd"
    for index, step in enumerate(steps):
        if step.path is not None:
            (home / step.path).parent.mkdir(parents=True, exist_ok=True)
            (home / step.path).write_text(step.text)
            if index == last_file:
                env |= reuse(language, home / "mybot")
            continue
        script = step.text.replace(CLONE, f"ln -s {ROOT} arena").replace(REGISTER, 'printf "%s\\n" "$MYBOT_TOKEN"')
        code, output = run(["bash", "-euo", "pipefail", "-c", f"{script}pwd > {where}"], here, 600, env)
        assert code == 0, f"clients/{language}/README.md: this step failed ({code}):\n{script}\n{output[-6000:]}"
        here = Path(where.read_text().strip())
    return ["bash", "-c", last.replace(ADDRESS, address)], here, env


@pytest.mark.timeout(900)
@pytest.mark.parametrize("language", ["java", "rust", "cpp"])
async def test_a_readme_walkthrough_builds_a_bot_that_connects_and_plays(
    arena: Arena, tmp_path: Path, language: str
) -> None:
    """The README's own project, built and started as written, with its token in $ARENA_TOKEN only,
    plays a match to its normal end."""
    home = tmp_path / "home"
    home.mkdir()
    command, folder, env = run_walkthrough(language, home, await arena.register(BOT), arena.address)
    async with Bots(arena, tmp_path) as bots:
        with (tmp_path / f"{BOT}.stderr").open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                *command,
                cwd=folder,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        own = BotProcess(BOT, process, tmp_path / f"{BOT}.stderr")
        bots.processes.append(own)
        try:
            other = await bots.start("py-random", command=python_bot("random"))
            await bots.connected(own, other)
            match_id = await arena.start_match([BOT, "py-random"], seed=3)
            await eventually(lambda: match_id not in arena.node.matches.running, 120)
            record = await arena.record(match_id)
        finally:  # bash runs the command in its own place (exec); anything it started goes too
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    assert record.outcome.termination == common_pb2.TERMINATION_NORMAL, own.describe()
    assert not record.rejections and not record.outcome.forfeited_seats
