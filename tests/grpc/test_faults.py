"""Every way a bot can misbehave over gRPC ends with the documented result, and never hangs."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.referee.timecontrol import TimeControl
from arena.store.embedded import EmbeddedRedis
from arena.v1 import bot_pb2, bot_pb2_grpc, common_pb2, match_pb2, match_pb2_grpc, registry_pb2, registry_pb2_grpc
from tests.grpc.harness import Arena, eventually, limited_arena
from tests.grpc.rawbot import RawBot, random_chooser

FAST = TimeControl(decision_allowance=0.05, time_bank=0.1, strike_limit=3, disconnect_grace=0.3)
ROOMY = TimeControl(decision_allowance=5.0, time_bank=5.0, strike_limit=3, disconnect_grace=0.3)
"""For bots that answer at once: no timeout even on a loaded machine."""


async def test_a_bot_that_never_answers_times_out_and_forfeits(game_arena: Arena) -> None:
    arena = game_arena
    silent = await arena.connect("silent", chooser=lambda request: None)
    names = [f"p{i}" for i in range(1, max(3, arena.players))]
    others = [await arena.connect(name) for name in names]
    match_id = await arena.start_match(["silent", *names], tc=FAST)
    end = await silent.wait_ended(match_id, 20)
    assert end.outcome.termination == common_pb2.TERMINATION_TIMEOUT
    assert list(end.outcome.forfeited_seats) == [0]
    assert end.outcome.placings[0] == len(names) + 1
    rejections = silent.messages("action_rejected")
    assert [r.fault for r in rejections] == [common_pb2.FAULT_TIMEOUT] * 3
    assert [r.strikes for r in rejections] == [1, 2, 3]
    assert all(r.strike_limit == 3 and r.fallback_action for r in rejections)
    for bot in others:
        assert (await bot.wait_ended(match_id)).outcome == end.outcome
        assert not bot.messages("action_rejected")


async def test_an_answer_that_does_not_parse_is_rejected_with_a_reason_and_costs_a_strike(game_arena: Arena) -> None:
    arena = game_arena
    answers = iter(["~not an action~"])

    def chooser(request: bot_pb2.ActionRequest) -> str:
        return next(answers, request.legal_actions[0])

    garbler = await arena.connect("garbler", chooser=chooser)
    names = [f"p{i}" for i in range(1, arena.players)]
    for name in names:
        await arena.connect(name)
    match_id = await arena.start_match(["garbler", *names], tc=ROOMY)
    end = await garbler.wait_ended(match_id, 20)
    [rejection] = garbler.messages("action_rejected")
    assert rejection.fault == common_pb2.FAULT_INVALID_ACTION
    assert rejection.reason and rejection.strikes == 1 and rejection.fallback_action
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    record = await arena.record(match_id)
    assert [(r.seat, r.received_action) for r in record.rejections] == [(0, "~not an action~")]


async def test_illegal_and_unparseable_actions_are_rejected_with_a_reason(arena: Arena) -> None:
    answers = iter(["Q7", "G1 G1 G1 G1 G1 G1", ""])

    def chooser(request: bot_pb2.ActionRequest) -> str:
        return next(answers, request.legal_actions[0])

    cheat = await arena.connect("cheat", chooser=chooser)
    await arena.connect("honest")
    match_id = await arena.start_match(["cheat", "honest"], tc=FAST)
    end = await cheat.wait_ended(match_id, 20)
    rejections = cheat.messages("action_rejected")
    assert [r.fault for r in rejections] == [
        common_pb2.FAULT_INVALID_ACTION,
        common_pb2.FAULT_ILLEGAL_ACTION,
        common_pb2.FAULT_INVALID_ACTION,
    ]
    assert "invalid card 'Q7'" in rejections[0].reason
    assert "lay exactly" in rejections[1].reason
    assert end.outcome.termination == common_pb2.TERMINATION_ILLEGAL_ACTION
    assert list(end.outcome.forfeited_seats) == [0]
    record = await arena.record(match_id)
    assert [r.received_action for r in record.rejections] == ["Q7", "G1 G1 G1 G1 G1 G1", ""]


async def test_stale_unknown_and_foreign_actions_get_clear_errors_and_change_nothing(arena: Arena) -> None:
    sent: list[bot_pb2.ActionRequest] = []

    def chooser(request: bot_pb2.ActionRequest) -> str:
        sent.append(request)
        return request.legal_actions[0]

    bot = await arena.connect("meddler", chooser=chooser)
    victim = await arena.connect("victim")
    third = await arena.connect("third")
    other_match = await arena.start_match(["victim", "third"], seed=3)
    match_id = await arena.start_match(["meddler", "victim"], seed=4)
    await bot.wait_ended(match_id)
    bot.send_action("no-such-match", 1, "G1")
    bot.send_action(match_id, 1, "G1")  # stale: the match is over
    bot.send_action(other_match, 1, "G1")  # a match it holds no seat in
    await eventually(lambda: len(bot.messages("error")) >= 3)
    errors = bot.messages("error")
    assert "unknown match 'no-such-match'" in errors[0].reason
    assert "holds no seat" in errors[2].reason
    for end_bot in (victim, third):
        assert (await end_bot.wait_ended(other_match)).outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not victim.messages("action_rejected")


async def test_a_flooding_bot_is_cut_off_without_disturbing_other_matches(arena: Arena) -> None:
    flooder = await arena.connect("flooder")
    a = await arena.connect("a")
    b = await arena.connect("b")
    match_id = await arena.start_match(["a", "b"], seed=9)
    for i in range(1_000):
        flooder.send_action("junk", i, "G1")
    end = await a.wait_ended(match_id)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert (await b.wait_ended(match_id)).outcome == end.outcome
    await eventually(lambda: flooder.error is not None)
    session = arena.node.hub.sessions["flooder"]
    assert session.connection is None
    assert session.last_close_text == "more than 100 unusable messages in a row"
    # The server ends the stream with RESOURCE_EXHAUSTED; a client still sending may see its own
    # send fail first.
    assert flooder.error is not None
    assert flooder.error.code() in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL)


async def test_an_oversized_message_is_refused_and_the_server_carries_on(arena: Arena) -> None:
    big = await arena.connect("big")
    big.send_action("m", 1, "G1 " * 40_000)
    await eventually(lambda: big.error is not None)
    assert big.error is not None
    assert big.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    bots = [await arena.connect(n) for n in ("x", "y")]
    match_id = await arena.start_match(["x", "y"])
    assert (await bots[0].wait_ended(match_id)).outcome.termination == common_pb2.TERMINATION_NORMAL


@pytest.mark.parametrize(("given", "used"), [(None, "fuse_filters"), ("", ""), ("other", "other")])
def test_the_arena_turns_grpc_s_filter_fusion_on_unless_the_operator_chose(given: str | None, used: str) -> None:
    # The fusion saves memory a stream; the test above is the message limit still enforced with it.
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if given is not None:
        env["GRPC_EXPERIMENTS"] = given
    code = "import os, arena.grpc.server; print(repr(os.environ['GRPC_EXPERIMENTS']))"
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert shown.strip() == repr(used)


async def test_a_disconnect_without_reconnect_forfeits_after_the_grace_period(arena: Arena) -> None:
    leaver_token = await arena.register("leaver")
    moves = 0

    def chooser(request: bot_pb2.ActionRequest) -> str | None:
        nonlocal moves
        moves += 1
        return request.legal_actions[0] if moves <= 3 else None

    leaver = RawBot(arena.address, leaver_token, chooser).start()
    await leaver.welcomed.wait()
    stayer = await arena.connect("stayer")
    tc = TimeControl(decision_allowance=5.0, time_bank=0.0, strike_limit=3, disconnect_grace=0.3)
    match_id = await arena.start_match(["leaver", "stayer"], tc=tc)
    await eventually(lambda: moves >= 4)
    await leaver.stop()
    end = await stayer.wait_ended(match_id, 20)
    assert end.outcome.termination == common_pb2.TERMINATION_DISCONNECTED
    assert list(end.outcome.forfeited_seats) == [0]
    assert end.outcome.placings[1] == 1


async def test_a_bot_that_reconnects_resumes_its_match(arena: Arena) -> None:
    token = await arena.register("phoenix")
    first = RawBot(arena.address, token, lambda request: None).start()
    await first.welcomed.wait()
    await arena.connect("steady")
    tc = TimeControl(decision_allowance=5.0, time_bank=0.0, strike_limit=3, disconnect_grace=5.0)
    match_id = await arena.start_match(["phoenix", "steady"], tc=tc)
    await eventually(lambda: first.messages("action_request"))
    pending = first.messages("action_request")[-1]
    await first.stop()
    await asyncio.sleep(0.1)
    second = RawBot(arena.address, token, random_chooser(5)).start()
    end = await second.wait_ended(match_id, 20)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not end.outcome.forfeited_seats
    resent = second.messages("action_request")[0]
    assert (resent.match_id, resent.sequence) == (pending.match_id, pending.sequence)
    assert resent.observation == pending.observation
    assert second.messages("match_started")[0].match_id == match_id
    assert not second.messages("action_rejected")


async def test_a_second_connection_replaces_the_first(arena: Arena) -> None:
    token = await arena.register("twin")
    first = RawBot(arena.address, token).start()
    await first.welcomed.wait()
    second = RawBot(arena.address, token).start()
    await second.welcomed.wait()
    await eventually(lambda: first.error is not None)
    assert first.error is not None and first.error.code() == grpc.StatusCode.ABORTED
    await first.stop()
    await second.stop()


async def test_authentication_and_the_first_message(arena: Arena) -> None:
    stub = bot_pb2_grpc.BotServiceStub(arena.channel)

    async def one(message: bot_pb2.ConnectRequest) -> grpc.StatusCode:
        async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
            yield message
            await asyncio.sleep(5)

        try:
            async for _ in stub.Connect(requests()):
                pass
        except grpc.aio.AioRpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    bad_token = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token="not-a-token"))
    assert await one(bad_token) == grpc.StatusCode.UNAUTHENTICATED
    not_hello = bot_pb2.ConnectRequest(action=bot_pb2.Action(match_id="x", sequence=1, text="G1"))
    assert await one(not_hello) == grpc.StatusCode.INVALID_ARGUMENT
    token = await arena.register("gamer")
    wrong_game = bot_pb2.ConnectRequest(hello=bot_pb2.Hello(token=token, games=["chess"]))
    assert await one(wrong_game) == grpc.StatusCode.INVALID_ARGUMENT


async def test_registration_needs_the_admin_token(arena: Arena) -> None:
    stub = registry_pb2_grpc.RegistryServiceStub(arena.channel)
    request = registry_pb2.RegisterBotRequest(name="sneaky")
    with pytest.raises(grpc.aio.AioRpcError) as denied:
        await stub.RegisterBot(request)
    assert denied.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as wrong:
        await stub.RegisterBot(request, metadata=(("authorization", "Bearer wrong"),))
    assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED
    token = await arena.register("fine")
    assert len(token) >= 40
    with pytest.raises(grpc.aio.AioRpcError) as taken:
        await arena.register("fine")
    assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS
    with pytest.raises(grpc.aio.AioRpcError) as bad:
        await arena.register("no spaces allowed")
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # Only the hash is kept.
    store = arena.node.registry._store
    assert token not in repr(vars(store))


async def test_health_and_reflection(arena: Arena) -> None:
    health: Any = health_pb2_grpc.HealthStub(arena.channel)  # the type stubs leave out its methods
    for service in ("", "arena.v1.BotService", "arena.v1.MatchService", "arena.v1.RegistryService"):
        response = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert response.status == health_pb2.HealthCheckResponse.SERVING
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    # The type stubs leave out its methods, and take only a sync channel (the generated class takes either).
    stub: Any = reflection_pb2_grpc.ServerReflectionStub(arena.channel)  # type: ignore[arg-type]

    async def ask() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    names = set()
    async for response in stub.ServerReflectionInfo(ask()):
        names |= {s.name for s in response.list_services_response.service}
    assert {"arena.v1.BotService", "arena.v1.MatchService", "arena.v1.RegistryService"} <= names


async def test_decisions_missed_while_away_cost_no_strike_and_the_end_is_told_on_return(arena: Arena) -> None:
    token = await arena.register("wanderer")
    first = RawBot(arena.address, token).start()
    await first.welcomed.wait()
    steady = await arena.connect("steady2")
    tc = TimeControl(decision_allowance=0.1, time_bank=0.0, strike_limit=1, disconnect_grace=30.0)
    match_id = await arena.start_match(["wanderer", "steady2"], tc=tc)
    await eventually(lambda: len(first.messages("action_request")) >= 2)
    await first.stop()
    # Away for the rest of the match: the fallback plays its seat, with no strike.
    end = await steady.wait_ended(match_id, 20)
    assert end.outcome.termination == common_pb2.TERMINATION_NORMAL
    assert not end.outcome.forfeited_seats
    record = await arena.record(match_id)
    away = [d for d in record.decisions if d.seat == 0 and d.fault == common_pb2.FAULT_DISCONNECTED]
    assert away
    assert not record.rejections
    second = RawBot(arena.address, token).start()
    told = await second.wait_ended(match_id, 10)
    assert told.outcome == end.outcome


async def test_calls_made_while_the_store_is_unreachable_are_unavailable_not_internal(
    redis_server: EmbeddedRedis, caplog: pytest.LogCaptureFixture
) -> None:
    """A trial's calls while Redis was down got INTERNAL ("the node logged why"), and gRPC logged
    each bot stream's ConnectionError as an unexpected error with its traceback: a store that is
    away is the caller's cue to try again, UNAVAILABLE, not a bug of the node."""
    async with limited_arena(redis_server) as arena:
        token = await arena.register("later")
        redis_server.stop()
        stub = match_pb2_grpc.MatchServiceStub(arena.channel)
        with pytest.raises(grpc.aio.AioRpcError) as record:
            await stub.GetMatchRecord(match_pb2.GetMatchRecordRequest(match_id="m-1"), timeout=30)
        assert record.value.code() == grpc.StatusCode.UNAVAILABLE, record.value
        assert "store" in (record.value.details() or "")
        bot = RawBot(f"127.0.0.1:{arena.server.port}", token).start()
        await eventually(lambda: bot.error is not None, 30)
        assert bot.error is not None and bot.error.code() == grpc.StatusCode.UNAVAILABLE, bot.error
        await bot.stop()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
