"""A bot in a project of its own, built against a kit as its README says, connects and plays.

- the Go kit's module path (``arena/clients/go``) is not one ``go get`` resolves: a module of one's
  own points at a clone with the README's ``replace``, then ``go mod tidy`` and ``go build``;
- the TypeScript kit was ``private``: now ``npm pack`` makes a tarball another project installs.

Each own-project bot plays a 2-player match against the Python SDK's random bot on a real arena.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from arena.v1 import common_pb2
from tests.clients.kits import CLIENTS, build_kit, python_bot, running_bots
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
