"""A real arena for the browser tests: an ``arena serve`` process with its web site, starter-bot
processes playing a finished league of every hosted game (5211, Coloretto, Azul, FOOL!), hand-driven
raw bots for a running 5211 match and a running FOOL! match, and two raw bots playing a running
grey-wall Azul match that hold one seat's column choice while the other's is in; and a Coloretto
ladder of two versions of one bot and the league's Coloretto bots, paused once it has some results.

Everything is started once per test module (one browser per session) and stopped at its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import secrets
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.cli.admin import create_league, register_bot
from arena.cli.admin_ladders import create_ladder, get_standings, pause_ladder
from arena.cli.mainjob import bot_processes
from arena.games.base import GameRules
from arena.referee.record import DecisionRecord, MatchRecord
from arena.referee.timecontrol import TimeControl
from arena.serve.launch import WEB_READY, start_serve, stop
from arena.store.embedded import free_port
from arena.v1 import bot_pb2, common_pb2, ladder_pb2, ladder_pb2_grpc, match_pb2, match_pb2_grpc
from tests.grpc.rawbot import RawBot

HOSTILE_LEAGUE = "<script>alert(1)</script>"
HOSTILE_CLIENT = "<img src=x onerror=alert(2)>"
LADDER_VERSIONS = ("cbot@v1", "cbot@v2")
HOSTILE_BOT = "Z--..__x"
"""Bot names refuse '<' and '>': the most hostile name the registry takes (dots, dashes, underscores)."""


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def get_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def wait_for(predicate: Any, seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds} s")


HAND_FIELDS = {"5211": ("game_5211", "hand_cards"), "fool": ("game_fool", "hand")}
"""Where a seat's hand is in its observation, for the games with hidden hands."""


class LiveBots:
    """Raw bots in a thread of their own, answering only when the test says (``step``)."""

    def __init__(self, address: str, tokens: dict[str, str], game: str = "5211") -> None:
        self.game = game
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.pending: list[tuple[RawBot, bot_pb2.ActionRequest]] = []
        self.hands: dict[int, list[str]] = {}
        """The latest hand each seat was sent (what must never reach a spectator)."""
        self.auto = False
        self.lock = threading.Lock()
        self.bots = [self._call(self._start(address, token, name)) for name, token in tokens.items()]

    def _call(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(30)

    async def _start(self, address: str, token: str, name: str) -> RawBot:
        bot = RawBot(address, token, games=(self.game,), client_name=HOSTILE_CLIENT if name == "live-a" else "rawbot")
        field, hand_field = HAND_FIELDS[self.game]

        def choose(request: bot_pb2.ActionRequest) -> str | None:
            hand = list(getattr(getattr(request.observation, field), hand_field))
            with self.lock:
                self.hands[request.seat] = hand
                if self.auto:
                    return str(request.legal_actions[0])
                self.pending.append((bot, request))
            return None

        bot.chooser = choose
        bot.start()
        await asyncio.wait_for(bot.welcomed.wait(), 20)
        return bot

    def step(self) -> int:
        """Answer every request waiting (one turn of the running match); how many were answered."""
        with self.lock:
            waiting, self.pending = self.pending, []
        for bot, request in waiting:
            self.loop.call_soon_threadsafe(
                bot.send_action, request.match_id, request.sequence, request.legal_actions[0], request.seat
            )
        return len(waiting)

    def finish(self) -> None:
        """Answer everything from now on, at once."""
        with self.lock:
            self.auto = True
        self.step()

    def close(self) -> None:
        for bot in self.bots:
            with contextlib.suppress(Exception):
                self._call(bot.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class GreyWallBots:
    """Two raw bots playing a grey-wall Azul match (seat 0 ``azul-a``, seat 1 ``azul-b``).

    Takes are answered at once (a random take onto a pattern line when there is one, so lines fill).
    At the first tiling where both seats choose, seat 0's choice is sent and seat 1's request is held
    until ``release``: the match then waits with one choice in, which no spectator may see.
    """

    def __init__(self, address: str, tokens: dict[str, str]) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.rng = random.Random(7)
        self.lock = threading.Lock()
        self.held: tuple[RawBot, bot_pb2.ActionRequest] | None = None
        self.secret: bot_pb2.ActionRequest | None = None
        """Seat 0's request at the held tiling (its choice, ``legal_actions[0]``, is in)."""
        self.released = False
        self.bots = [self._call(self._start(address, token)) for token in tokens.values()]

    def _call(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(30)

    async def _start(self, address: str, token: str) -> RawBot:
        bot = RawBot(address, token, games=("azul",), client_name="rawbot")

        def choose(request: bot_pb2.ActionRequest) -> str | None:
            actions = [str(a) for a in request.legal_actions]
            if ":" not in actions[0]:  # a take: onto a pattern line if any
                lines = [a for a in actions if not a.endswith(" F")]
                return self.rng.choice(lines or actions)
            with self.lock:
                if not self.released and len(request.observation.game_azul.to_move) == 2:
                    if request.seat == 0 and self.secret is None:
                        self.secret = request
                    elif request.seat == 1 and self.held is None:
                        self.held = (bot, request)
                        return None
            return actions[0]

        bot.chooser = choose
        bot.start()
        await asyncio.wait_for(bot.welcomed.wait(), 20)
        return bot

    def release(self) -> None:
        """Send seat 1's held choice; answer everything from now on."""
        with self.lock:
            self.released = True
            held, self.held = self.held, None
        if held is not None:
            bot, request = held
            self.loop.call_soon_threadsafe(
                bot.send_action, request.match_id, request.sequence, request.legal_actions[0], request.seat
            )

    def close(self) -> None:
        self.release()
        for bot in self.bots:
            with contextlib.suppress(Exception):
                self._call(bot.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclasses.dataclass
class Site:
    """The served arena the browser tests look at."""

    address: str
    url: str
    admin: str
    leagues: dict[str, str]
    """League id by game."""
    live: LiveBots
    live_match: str
    grey: GreyWallBots
    grey_match: str
    fool: LiveBots
    fool_match: str
    ladder: str
    """A paused Coloretto ladder with stored results (its bots include ``LADDER_VERSIONS``)."""

    def record(self, match_id: str) -> match_pb2.MatchRecord:
        with grpc.insecure_channel(self.address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            return stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id)).record


def engine_record(game: GameRules[Any, Any, Any], players: int, seed: int, match_id: str) -> MatchRecord:
    """A whole match played through the rules by random choices, recorded as the referee records one."""
    rng = random.Random(seed)
    state = game.initial_state(players, seed, {}, None)
    turns: list[tuple[DecisionRecord, ...]] = []
    while game.outcome(state) is None and len(turns) < 5000:
        seats = sorted(game.to_move(state))
        chosen = {seat: rng.choice(list(game.legal_actions(state, seat))) for seat in seats}
        turns.append(tuple(DecisionRecord(len(turns), seat, str(chosen[seat]), 0.01) for seat in seats))
        state = game.apply(state, chosen)
    names = tuple(f"engine-{n}" for n in range(players))
    record = MatchRecord(match_id, game.name, names, seed, {}, None, TimeControl(), turns, strikes=[0] * players)
    record.started_at, record.ended_at = time.time() - 5, time.time()
    record.outcome = game.outcome(state)
    return record


def start_match(address: str, admin: str, game: str, bots: list[str], options: dict[str, str] | None = None) -> str:
    """Start a match of ``bots`` with a generous clock (the tests answer when they choose); its id."""
    with grpc.insecure_channel(address) as channel:
        stub = match_pb2_grpc.MatchServiceStub(channel)
        request = match_pb2.StartMatchRequest(game=game, bot_names=bots, seed=3)
        for key, value in (options or {}).items():
            request.options[key] = value
        request.time_control.CopyFrom(common_pb2.TimeControl(strike_limit=3))
        request.time_control.decision_allowance.FromSeconds(120)
        request.time_control.time_bank.FromSeconds(600)
        metadata = (("authorization", f"Bearer {admin}"),)
        return str(stub.StartMatch(request, metadata=metadata).match_id)


def played_ladder(address: str, admin: str) -> str:
    """A Coloretto ladder among the connected Coloretto bots, paused once every bot has a result and
    a version two points of rating history, and its open matches have ended (so its standings hold
    still); its id."""
    ladder = create_ladder(address, admin, game="coloretto", players=2, name="coloretto ladder").ladder_id

    def rated() -> bool:
        standings = get_standings(address, ladder)
        return len(standings.entries) >= 4 and all(e.games > 0 for e in standings.entries)

    def charted() -> bool:
        with grpc.insecure_channel(address) as channel:
            stub = ladder_pb2_grpc.LadderServiceStub(channel)
            request = ladder_pb2.GetRatingHistoryRequest(ladder_id=ladder, bot_name=LADDER_VERSIONS[1])
            return len(stub.GetRatingHistory(request).points) >= 2

    wait_for(rated, 90, "every ladder bot with a result")
    wait_for(charted, 60, "two points of rating history")
    pause_ladder(address, ladder, admin)
    wait_for(lambda: get_standings(address, ladder).ladder.status.matches_open == 0, 60, "the ladder's matches ended")
    return str(ladder)


@contextlib.contextmanager
def served_site(folder: Path) -> Iterator[Site]:
    """Start everything (see the module docstring); stop it all at the end."""
    admin = secrets.token_urlsafe(24)
    web_port = free_port()
    args = ["--address", "127.0.0.1:0", "--data-dir", str(folder / "data"), "--metrics-address", ""]
    args += ["--web-port", str(web_port), "--log-level", "warning", "--shutdown-grace", "1"]
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    process, address = start_serve(args, log=folder / "serve.log", env={"ARENA_ADMIN_TOKEN": admin})
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    try:
        assert line == f"{WEB_READY}http://127.0.0.1:{web_port}/", line
        url = line.removeprefix(WEB_READY)
        lineups = {
            "5211": (("random-1", "random"), ("heuristic-1", "heuristic"), (HOSTILE_BOT, "random")),
            "coloretto": (("c-random", "random"), ("c-heuristic", "heuristic")),
            "azul": (("a-random", "random"), ("a-heuristic", "heuristic")),
            "fool": tuple((f"f-{kind}-{n}", kind) for kind in ("random", "heuristic") for n in (1, 2)),
        }
        games = {"5211": 2, "coloretto": 2, "azul": 1, "fool": 1}
        players = {"fool": 4}
        tokens = {name: register_bot(address, name, admin) for lineup in lineups.values() for name, _ in lineup}
        live_tokens = {name: register_bot(address, name, admin) for name in ("live-a", "live-b")}
        grey_tokens = {name: register_bot(address, name, admin) for name in ("azul-a", "azul-b")}
        ladder_lineup = ((LADDER_VERSIONS[0], "random"), (LADDER_VERSIONS[1], "heuristic"))
        tokens |= {name: register_bot(address, name, admin) for name, _ in ladder_lineup}
        fool_bots = [f"fool-{n}" for n in range(1, 5)]
        fool_tokens = {name: register_bot(address, name, admin) for name in fool_bots}
        with contextlib.ExitStack() as stack:
            for game, lineup in lineups.items():
                stack.enter_context(bot_processes(address, tokens, lineup, 4, folder, game))
            leagues = {}
            for game, lineup in lineups.items():
                bots = [name for name, _ in lineup]
                name = HOSTILE_LEAGUE if game == "5211" else f"{game} league"
                leagues[game] = create_league(
                    address,
                    admin,
                    bots=bots,
                    game=game,
                    players=players.get(game, 2),
                    games=games[game],
                    seed=5,
                    name=name,
                ).league_id
            live = stack.enter_context(contextlib.closing(LiveBots(address, live_tokens)))
            grey = stack.enter_context(contextlib.closing(GreyWallBots(address, grey_tokens)))
            fool = stack.enter_context(contextlib.closing(LiveBots(address, fool_tokens, "fool")))
            stack.enter_context(bot_processes(address, tokens, ladder_lineup, 2, folder, "coloretto"))
            for league in leagues.values():
                wait_for(
                    lambda league=league: get_json(f"{url}api/leagues/{league}")["state"] == "finished",
                    90,
                    f"league {league} finished",
                )
            ladder = played_ladder(address, admin)
            live_match = start_match(address, admin, "5211", ["live-a", "live-b"])
            grey_match = start_match(address, admin, "azul", ["azul-a", "azul-b"], {"wall": "grey"})
            fool_match = start_match(address, admin, "fool", fool_bots)
            wait_for(lambda: live.pending, 20, "the live match's first requests")
            wait_for(lambda: fool.pending, 20, "the FOOL! match's first request")
            wait_for(lambda: grey.held and grey.secret, 60, "a grey-wall tiling with one choice in")
            yield Site(address, url, admin, leagues, live, live_match, grey, grey_match, fool, fool_match, ladder)
    finally:
        stop(process, 10)
