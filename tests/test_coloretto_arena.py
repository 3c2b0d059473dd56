"""Coloretto through the whole arena: ``arena bot heuristic --game coloretto`` processes play a real match
over gRPC, watchers get each round's typed result, and the command line names the game's bots and demo."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from arena import catalogue
from arena.games.coloretto import RoundRecord
from arena.v1 import common_pb2, match_pb2
from tests.grpc.harness import Arena, eventually


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60, check=False
    )


async def test_arena_bot_processes_play_a_coloretto_match_and_watchers_see_each_round(arena: Arena) -> None:
    lineup = {"hero": "heuristic", "rival": "heuristic", "dice": "random"}
    processes = []
    try:
        for name, kind in lineup.items():
            env = {**os.environ, "ARENA_BOT_TOKEN": await arena.register(name)}
            command = ["bot", kind, "--game", "coloretto", "--server", arena.address]
            processes.append(
                subprocess.Popen(  # noqa: ASYNC220 - started once, stopped in finally
                    [sys.executable, "-m", "arena.cli", *command], env=env, stderr=subprocess.PIPE
                )
            )
        await eventually(lambda: set(lineup) <= {s.name for s in arena.node.hub.connected()}, 60)
        match_id = await arena.start_match(list(lineup), seed=7, game="coloretto")
        rounds: list[match_pb2.WatchMatchResponse] = []
        outcome = None
        async for event in arena.matches.WatchMatch(match_pb2.WatchMatchRequest(match_id=match_id), timeout=120):
            which = event.WhichOneof("event")
            if which == "round_scored":
                rounds.append(event)
            elif which == "outcome":
                outcome = event.outcome
        assert outcome is not None and outcome.termination == common_pb2.TERMINATION_NORMAL
        assert rounds, "no round result reached the watcher"
        assert [event.round_scored.round for event in rounds] == list(range(1, len(rounds) + 1))
        assert all(event.round_scored.WhichOneof("game") == "game_coloretto" for event in rounds)
        last = catalogue.round_result_from_proto(rounds[-1].round_scored)
        assert isinstance(last, RoundRecord) and last.last_round
        record = await arena.record(match_id)
        assert record.game == "coloretto" and not record.rejections
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            await asyncio.to_thread(process.communicate, timeout=10)


def test_a_policy_the_game_lacks_is_one_line_and_a_non_zero_exit() -> None:
    done = _arena("bot", "hasty", "--game", "coloretto", "--server", "127.0.0.1:1", "--token", "t")
    assert done.returncode != 0
    assert done.stderr.strip() == "no hasty bot for game 'coloretto'; it plays 5211"


def test_an_unknown_game_is_a_usage_error_naming_the_choices() -> None:
    done = _arena("league", "create", "a", "b", "--game", "chess")
    assert done.returncode == 2
    assert "invalid choice: 'chess'" in done.stderr and "'coloretto'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_coloretto_demo_prints_a_readable_match() -> None:
    done = _arena("demo", "--game", "coloretto", "--seed", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("seat 0: heuristic, seat 1: heuristic, seat 2: random, seat 3: random; seed 3\n")
    assert "Coloretto, 4 players, brown scoring" in out
    for words in (" draws ", " places ", " takes row ", "round 1 over", "Game 1 scoring", "Result", "Winner(s): "):
        assert words in out, words
    assert "jokers to " in out or " J:" not in out  # the joker choices, whenever a seat holds a joker
