"""``arena sprt`` against a real arena (gRPC on 127.0.0.1) with real bot clients.

- a versioned bot name (``a@v2``) was refused by the registry;
- StartMatch could not seal the rotations of a duplicate deal, so the rotation that ended first
  showed its cards (seed, record) while the other was still being played;
- there was no SPRT: a clearly stronger candidate (the heuristic against a random bot) must be
  accepted, an equal one rejected, at 2 players (duplicate pairs) and at 3 (with a filler).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import grpc
import pytest

from arena.cli.main import main as cli_main
from arena.v1 import match_pb2
from tests.grpc.harness import ADMIN, ADMIN_METADATA, Arena
from tests.grpc.rawbot import random_chooser


async def test_a_versioned_name_registers_and_odd_ones_are_refused(arena: Arena) -> None:
    assert await arena.register("a@v2")
    for bad in ("a@", "@v2", "a@v2@v3", "a@-v"):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.register(bad)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "@version" in str(refused.value.details())


async def _sealed_start(arena: Arena, seats: list[str], seal: str, size: int = 2) -> str:
    request = match_pb2.StartMatchRequest(game="5211", bot_names=seats, seed=77, seal=seal, seal_size=size)
    return (await arena.matches.StartMatch(request, metadata=ADMIN_METADATA)).match_id


async def _record_code(arena: Arena, match_id: str) -> grpc.StatusCode:
    try:
        await arena.matches.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=match_id))
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def test_a_sealed_rotation_stays_unreadable_until_its_twin_has_ended(arena: Arena) -> None:
    x, y = await arena.connect("x", random_chooser(1)), await arena.connect("y", random_chooser(2))
    first = await _sealed_start(arena, ["x", "y"], "deal-1")
    await x.wait_ended(first)
    await asyncio.sleep(0.1)
    assert await _record_code(arena, first) == grpc.StatusCode.FAILED_PRECONDITION  # sealed
    second = await _sealed_start(arena, ["y", "x"], "deal-1")
    await y.wait_ended(second)
    for _ in range(100):
        if await _record_code(arena, first) == grpc.StatusCode.OK:
            break
        await asyncio.sleep(0.05)
    assert await _record_code(arena, first) == grpc.StatusCode.OK
    assert await _record_code(arena, second) == grpc.StatusCode.OK
    one = (await arena.matches.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=first))).record
    two = (await arena.matches.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id=second))).record
    assert one.seed == two.seed and list(one.bot_names) == ["x", "y"] and list(two.bot_names) == ["y", "x"]


@pytest.mark.parametrize(("seal", "size", "named"), [("", 2, "seal ''"), ("s", 1, "not 1"), ("s", 17, "not 17")])
async def test_a_bad_seal_is_refused_by_name(arena: Arena, seal: str, size: int, named: str) -> None:
    await arena.connect("x")
    await arena.connect("y")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await _sealed_start(arena, ["x", "y"], seal, size)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert named in str(refused.value.details())


def _sprt(arena: Arena, *args: str) -> list[str]:
    return ["sprt", "--game", "5211", *args, "--server", arena.address, "--admin-token", ADMIN]


@pytest.mark.slow
async def test_a_heuristic_candidate_is_accepted_against_a_random_baseline(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    token = await arena.register("h@v2")
    command = [sys.executable, "-m", "arena_bot", "heuristic", "--server", arena.address, "--concurrency", "4"]
    bot = subprocess.Popen(  # noqa: ASYNC220
        command, env={**os.environ, "ARENA_BOT_TOKEN": token}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        await arena.connect("h@v1", random_chooser(3))
        for _ in range(300):
            session = arena.node.hub.sessions.get("h@v2")
            if session is not None and session.connection is not None:
                break
            await asyncio.sleep(0.05)
        code = await asyncio.to_thread(
            cli_main, _sprt(arena, "--candidate", "h@v2", "--baseline", "h@v1", "--elo1", "100", "--concurrency", "2")
        )
    finally:
        bot.terminate()
        bot.wait(10)
    said, err = capsys.readouterr()
    assert code == 0, said + err
    assert "accepted: h@v2 is better than h@v1" in said
    assert "LLR +" in said and "bounds -2.996, +2.996" in said and "LOS" in said
    matches = int(said.split("matches ")[1].split()[0])
    assert 0 < matches <= 200 and matches % 2 == 0  # duplicate pairs


@pytest.mark.slow
async def test_an_equal_candidate_is_rejected_at_two_and_three_players(
    arena: Arena, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, seed in (("r@v2", 4), ("r@v1", 5), ("filler", 6)):
        await arena.connect(name, random_chooser(seed))
    # The deals are random each run, so a false acceptance happens at the test's alpha: 0.005 rather
    # than the default 0.05 keeps that flake rare (its 3-player phase once accepted at 0.05, 31:12).
    # A small alpha moves only the acceptance bound; rejection takes as long as before.
    strict = ("--alpha", "0.005")
    code = await asyncio.to_thread(
        cli_main,
        _sprt(arena, "--candidate", "r@v2", "--baseline", "r@v1", "--elo1", "150", "--max-matches", "400", *strict),
    )
    said, err = capsys.readouterr()
    assert code == 0, said + err
    assert "rejected: r@v2 is not better than r@v1" in said
    code = await asyncio.to_thread(
        cli_main,
        [
            *_sprt(
                arena,
                "--candidate",
                "r@v2",
                "--baseline",
                "r@v1",
                "--elo1",
                "150",
                "--players",
                "3",
                "--filler",
                "filler",
            ),
            "--max-matches",
            "300",
            *strict,
        ],
    )
    said, err = capsys.readouterr()
    assert code in (0, 3), said + err  # decided, or ended at its bound
    assert "3-player matches" in said
    assert "accepted" not in said


async def test_operator_mistakes_are_one_line(arena: Arena, capsys: pytest.CaptureFixture[str]) -> None:
    await arena.connect("r@v1")
    cases = [
        (["--candidate", "ghost", "--baseline", "r@v1", "--elo1", "20"], "no bot named 'ghost'"),
        (["--candidate", "r@v1", "--baseline", "r@v1", "--elo1", "20"], "are the same bot"),
        (["--candidate", "a", "--baseline", "b", "--elo1", "20", "--players", "3"], "need 1 filler bots"),
        (["--candidate", "a", "--baseline", "b", "--elo0", "5", "--elo1", "5"], "elo1 must be above elo0"),
    ]
    for args, message in cases:
        code = await asyncio.to_thread(cli_main, _sprt(arena, *args))
        err = capsys.readouterr().err
        assert code == 2
        assert message in err and err.count("\n") == 1 and "Traceback" not in err
