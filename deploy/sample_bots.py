"""Sample bots for a deployed arena: register them once, run them, keep them running.

Each bot is registered once through the first healthy node, and its token is kept in
BOT_TOKENS_DIR (the arena shows a token only once, so that folder belongs on a volume). Each bot
then runs as its own ``python -m arena_bot KIND`` process, restarted with a backoff if it exits.
Optionally a 2-player round-robin league is queued at each start, so the dashboards show traffic.

Every bot is given every node address, in the same order: it connects to the first node that
answers and moves on to the next when its node dies. Keeping the order the same for every bot keeps
the bots together on one node, which matters today: a match is refereed by a node that holds the
connections of all of its bots.

Environment (all optional but the admin token):

    ARENA_ADMIN_TOKEN    the arena's admin token: registering bots and creating leagues need it
    ARENA_SERVERS        node addresses, comma-separated, in order (arena-1:50051,arena-2:50051,arena-3:50051)
    SAMPLE_BOTS          NAME=KIND pairs, KIND heuristic, hasty or random
                         (heuristic-1=heuristic heuristic-2=heuristic hasty-1=hasty random-1=random)
    BOT_TOKENS_DIR       where the tokens are kept (/var/lib/arena/bot-tokens)
    BOT_CONCURRENCY      matches each bot plays at once (8)
    SAMPLE_LEAGUE_GAMES  games per pairing of the league queued at start; 0 for none (20)
    WAIT_SECONDS         how long to wait for a healthy node before giving up (120)

SIGTERM or SIGINT stops the bots (SIGTERM, then SIGKILL after 10 s) and exits 0.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

import grpc
from healthcheck import check  # beside this file, here and in the image: run this file as a script

from arena.cli.admin import create_league, register_bot

log = logging.getLogger("sample-bots")

DEFAULT_SERVERS = "arena-1:50051,arena-2:50051,arena-3:50051"
DEFAULT_BOTS = "heuristic-1=heuristic heuristic-2=heuristic hasty-1=hasty random-1=random"
KINDS = ("heuristic", "hasty", "random")
STOP_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 60.0


class ConfigError(Exception):
    """The environment does not describe a usable set of bots."""


@dataclasses.dataclass(frozen=True)
class Config:
    admin_token: str
    servers: tuple[str, ...]
    bots: tuple[tuple[str, str], ...]
    tokens_dir: Path
    concurrency: int
    league_games: int
    wait_seconds: float

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Config:
        admin_token = env.get("ARENA_ADMIN_TOKEN", "")
        if not admin_token:
            raise ConfigError("set ARENA_ADMIN_TOKEN (the arena's admin token)")
        servers = tuple(s.strip() for s in env.get("ARENA_SERVERS", DEFAULT_SERVERS).split(",") if s.strip())
        if not servers:
            raise ConfigError("set ARENA_SERVERS (node addresses, comma-separated)")
        bots = []
        for spec in env.get("SAMPLE_BOTS", DEFAULT_BOTS).split():
            name, _, kind = spec.partition("=")
            if not name or kind not in KINDS:
                raise ConfigError(f"SAMPLE_BOTS wants NAME=KIND pairs with KIND one of {', '.join(KINDS)}: {spec!r}")
            bots.append((name, kind))
        if not bots:
            raise ConfigError("SAMPLE_BOTS names no bot")
        return cls(
            admin_token=admin_token,
            servers=servers,
            bots=tuple(bots),
            tokens_dir=Path(env.get("BOT_TOKENS_DIR", "/var/lib/arena/bot-tokens")),
            concurrency=int(env.get("BOT_CONCURRENCY", "8")),
            league_games=int(env.get("SAMPLE_LEAGUE_GAMES", "20")),
            wait_seconds=float(env.get("WAIT_SECONDS", "120")),
        )


def healthy_server(servers: tuple[str, ...], wait_seconds: float, stop: threading.Event) -> str | None:
    """The first node that reports SERVING, polling until ``wait_seconds`` have passed."""
    deadline = time.monotonic() + wait_seconds
    while not stop.is_set():
        for server in servers:
            if check(server, timeout=2.0):
                return server
        if time.monotonic() >= deadline:
            return None
        stop.wait(2.0)
    return None


def tokens(config: Config, server: str) -> dict[str, str]:
    """Each bot's token: kept from an earlier start, or registered now and kept."""
    config.tokens_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    found = {}
    for name, _ in config.bots:
        path = config.tokens_dir / name
        if path.exists() and path.read_text().strip():
            found[name] = path.read_text().strip()
            continue
        try:
            token = register_bot(server, name, config.admin_token)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.ALREADY_EXISTS:
                log.warning("%r is registered but its token is not in %s (a volume was removed?): skipped", name, path)
                continue
            raise
        fresh = path.with_suffix(".new")
        fresh.write_text(token + "\n")
        fresh.chmod(0o600)
        fresh.replace(path)
        found[name] = token
        log.info("registered %r", name)
    return found


@dataclasses.dataclass
class BotProcess:
    """One bot's process and its restart schedule."""

    name: str
    command: list[str]
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float = 0.0
    failures: int = 0

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, env=self.env)
        self.started_at = time.monotonic()
        log.info("started %r (pid %d)", self.name, self.process.pid)

    def poll(self, now: float) -> None:
        """Restart the bot if it exited, after a backoff that grows while it keeps failing fast."""
        if self.process is None:
            if now >= self.restart_at:
                self.start()
            return
        status = self.process.poll()
        if status is None:
            return
        self.failures = 0 if now - self.started_at > MAX_BACKOFF_SECONDS else self.failures + 1
        delay = min(2.0**self.failures, MAX_BACKOFF_SECONDS)
        log.warning("%r exited with status %d; restarting in %.0f s", self.name, status, delay)
        self.process, self.restart_at = None, now + delay

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()


def run(config: Config, stop: threading.Event) -> int:
    server = healthy_server(config.servers, config.wait_seconds, stop)
    if server is None:
        if stop.is_set():
            return 0
        log.error("no node of %s became healthy in %.0f s", ", ".join(config.servers), config.wait_seconds)
        return 1
    log.info("registering through %s", server)
    known = tokens(config, server)
    if not known:
        log.error("no bot to run")
        return 1
    server_args = [arg for s in config.servers for arg in ("--server", s)]
    bots = [
        BotProcess(
            name,
            [sys.executable, "-m", "arena_bot", kind, *server_args, "--concurrency", str(config.concurrency)],
            {**os.environ, "ARENA_TOKEN": known[name]},  # not on the command line, where ps shows it
        )
        for name, kind in config.bots
        if name in known
    ]
    for bot in bots:
        bot.start()
    if config.league_games > 0 and len(bots) >= 2:
        stop.wait(2.0)  # let the bots connect first; queued matches wait for their bots anyway
        try:
            league = create_league(
                server,
                config.admin_token,
                bots=[b.name for b in bots],
                players=2,
                games=config.league_games,
                name="sample",
            )
            log.info("league %s: %d matches queued", league.league_id, league.progress.total)
        except grpc.RpcError as error:
            log.warning("could not create the sample league: %s", error.details())
    while not stop.wait(0.5):
        now = time.monotonic()
        for bot in bots:
            bot.poll(now)
    log.info("stopping %d bots", len(bots))
    for bot in bots:
        bot.stop()
    deadline = time.monotonic() + STOP_SECONDS
    for bot in bots:
        if bot.process is None:
            continue
        try:
            bot.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            bot.process.kill()
            bot.process.wait()
    return 0


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        config = Config.from_env(os.environ)
    except (ConfigError, ValueError) as error:
        log.error("%s", error)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return run(config, stop)


if __name__ == "__main__":
    sys.exit(main())
