"""The C++ starter kit (clients/cpp) against the real arena: real bot processes, real matches.

A session fixture builds the kit once (``make -C clients/cpp build``, which installs missing Debian
packages itself; a build that fails or a missing toolchain fails the tests, never skips them). Each
test then runs ``clients/cpp/bin/bot`` processes against the in-process arena of the ``arena``
fixture: full 2- and 4-player matches, a rejection, a forced reconnect, a refused token, a
replaced connection, the token given only in ``$ARENA_TOKEN``, ``$ARENA_BOT_TOKEN`` or a file, and
one bot in two seats of a match (the last three are scenarios shared with the other kits, in
tests/clients/kits.py). The kit's GoogleTest unit test runs here too, so ``make test`` covers it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.service.sessions import CloseReason
from arena.v1 import bot_pb2, common_pb2
from tests.clients import kits
from tests.clients.kits import TC, Bots, Kit
from tests.grpc.harness import Arena, eventually
from tests.records import check_record

KIT = Kit("cpp")

pytestmark = KIT.cold_build_timeout


@pytest.fixture(scope="session")
def cpp_kit() -> Kit:
    """The C++ kit, built once per session; fails (never skips) when it does not build."""
    return KIT.build()


@pytest.fixture
async def cpp_bots(arena: Arena, cpp_kit: Kit, tmp_path: Path) -> AsyncIterator[Bots]:
    """Its ``bin/bot`` processes (``await cpp_bots.launch(name, *flags)``: started and welcomed); all killed after."""
    async with cpp_kit.bots(arena, tmp_path) as bots:
        yield bots


def test_the_unit_tests_pass(cpp_kit: Kit, capsys: pytest.CaptureFixture[str]) -> None:
    cpp_kit.unit_tests([str(cpp_kit.folder / "build" / "sdk_test"), "--gtest_brief=1"], capsys, timeout=120)


@pytest.mark.parametrize("players", [2, 4])
async def test_a_match_between_the_starter_bots_ends_normally_and_replays(
    arena: Arena, cpp_bots: Bots, players: int
) -> None:
    names = [f"{'heuristic' if seat % 2 == 0 else 'random'}-{seat}" for seat in range(players)]
    bots = [
        await cpp_bots.launch(name, "--strategy", name.split("-")[0], "--max-matches", "1", "--seed", str(seat + 1))
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
    check_record(record)


async def test_one_bot_process_plays_several_matches_at_once(arena: Arena, cpp_bots: Bots) -> None:
    flags = ("--concurrency", "4", "--max-matches", "4")
    bots = [await cpp_bots.launch(name, "--strategy", name, *flags) for name in ("heuristic", "random")]
    match_ids = [await arena.start_match(["heuristic", "random"], seed=seed, tc=TC) for seed in range(4)]
    for bot in bots:
        assert await bot.exit_code() == 0, bot.describe()
        assert sorted(line.split()[1] for line in bot.starting("ended ")) == sorted(match_ids)
    for match_id in match_ids:
        record = await arena.record(match_id)
        assert record.outcome.termination == common_pb2.TERMINATION_NORMAL
        assert not record.rejections


async def test_an_invalid_first_answer_is_rejected_and_the_bot_plays_on(arena: Arena, cpp_bots: Bots) -> None:
    bad = await cpp_bots.launch("careless", "--strategy", "random", "--invalid-first", "--max-matches", "1")
    good = await cpp_bots.launch("careful", "--strategy", "heuristic", "--max-matches", "1")
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
    check_record(record)


async def test_a_dropped_stream_is_reconnected_and_the_match_finishes(arena: Arena, cpp_bots: Bots) -> None:
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
    phoenix = await cpp_bots.launch("phoenix", "--strategy", "heuristic", "--max-matches", "1")
    match_id = await arena.start_match(["phoenix", "gate"], seed=21, tc=TC)
    await eventually(lambda: held, KIT.wait)
    connection = arena.node.hub.sessions["phoenix"].connection
    assert connection is not None
    connection.close(CloseReason.DISCONNECTED)
    gate.send_action(held[0].match_id, held[0].sequence, held[0].legal_actions[0])
    await phoenix.line("reconnecting")
    assert await phoenix.line("welcome ", count=2) == "welcome phoenix"
    await phoenix.line(f"ended {match_id} ")
    assert await phoenix.exit_code() == 0
    end = await gate.wait_ended(match_id, KIT.wait)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not end.outcome.forfeited_seats
    assert phoenix.starting("started") == [f"started {match_id} 0"]  # not announced again on the resend
    record = await arena.record(match_id)
    assert not record.rejections, record.rejections
    assert not any(decision.is_fallback for decision in record.decisions)
    check_record(record)


async def test_a_refused_token_ends_the_bot_with_status_2(cpp_bots: Bots) -> None:
    bot = await cpp_bots.start("impostor", token="not-a-token")
    assert await bot.exit_code() == 2
    assert "UNAUTHENTICATED" in bot.stderr.read_text()
    assert not bot.starting("reconnecting")


async def test_a_replaced_connection_does_not_come_back(arena: Arena, cpp_bots: Bots) -> None:
    token = await arena.register("twin")
    first = await cpp_bots.launch("twin", token=token)
    second = await cpp_bots.launch("twin", token=token)
    assert await first.exit_code() == 2
    assert "took over" in first.stderr.read_text()
    assert not first.starting("reconnecting")
    assert second.process.returncode is None
    session = arena.node.hub.sessions["twin"]
    assert session.connection is not None


async def test_the_token_comes_from_the_environment_or_a_file(arena: Arena, cpp_kit: Kit, tmp_path: Path) -> None:
    await kits.check_token_from_environment_and_file(cpp_kit, arena, tmp_path)


async def test_a_missing_or_empty_token_file_is_one_line_and_exit_2(arena: Arena, cpp_kit: Kit, tmp_path: Path) -> None:
    await kits.check_missing_token_file(cpp_kit, arena, tmp_path)


async def test_one_bot_plays_two_seats_of_a_match(arena: Arena, cpp_kit: Kit, tmp_path: Path) -> None:
    await kits.check_two_seats_of_one_match(cpp_kit, arena, tmp_path)
