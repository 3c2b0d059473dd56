"""Prometheus metrics: real matches move the right counters; /metrics parses as the text format."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.request

import grpc
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arena.referee.timecontrol import TimeControl
from arena.v1 import bot_pb2, registry_pb2, registry_pb2_grpc
from tests.grpc.harness import Arena


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_matches_decisions_faults_and_errors_are_counted(arena: Arena) -> None:
    assert arena.node.metrics is not None
    answers = iter(["Z9", "G1 G1 G1 G1 G1"])

    def chooser(request: bot_pb2.ActionRequest) -> str:
        return next(answers, request.legal_actions[0])

    bots = [await arena.connect("m0", chooser=chooser), await arena.connect("m1")]
    silent = await arena.connect("m2", chooser=lambda request: None)
    first = await arena.start_match(["m0", "m1"], seed=1)
    fast = TimeControl(decision_allowance=0.05, time_bank=0.0, strike_limit=1, disconnect_grace=1.0)
    second = await arena.start_match(["m1", "m2"], seed=2, tc=fast)
    await bots[0].wait_ended(first)
    await silent.wait_ended(second)
    with_error = registry_pb2_grpc.RegistryServiceStub(arena.channel)
    with contextlib.suppress(grpc.aio.AioRpcError):
        await with_error.RegisterBot(registry_pb2.RegisterBotRequest(name="nope"))
    await asyncio.sleep(0.05)
    values = samples(generate_latest(arena.node.metrics.registry).decode())
    assert values[("arena_matches_started_total", (("game", "5211"),))] == 2
    assert values[("arena_matches_finished_total", (("game", "5211"), ("termination", "normal")))] == 1
    assert values[("arena_matches_finished_total", (("game", "5211"), ("termination", "timeout")))] == 1
    requests = sum(len(b.messages("action_request")) for b in (*bots, silent))
    assert values[("arena_decisions_total", (("game", "5211"),))] == requests
    assert values[("arena_decision_latency_seconds_count", (("game", "5211"),))] == requests
    assert values[("arena_timeouts_total", (("game", "5211"),))] == 1
    assert values[("arena_illegal_actions_total", (("game", "5211"), ("kind", "invalid")))] == 1
    assert values[("arena_illegal_actions_total", (("game", "5211"), ("kind", "illegal")))] == 1
    assert values[("arena_connected_bots", ())] == 3
    assert values[("arena_active_matches", ())] == 0
    assert values[("arena_grpc_errors_total", (("code", "PERMISSION_DENIED"), ("method", "RegisterBot")))] == 1
    # Bounded labels: no bot or match id anywhere.
    for _, labels in values:
        assert all(value not in ("m0", "m1", "m2", first, second) for _, value in labels)


async def test_the_metrics_endpoint_serves_the_text_format(arena: Arena) -> None:
    assert arena.node.metrics is not None
    port = arena.node.metrics.serve(0)
    text = await asyncio.to_thread(
        lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    )
    names = {family.name for family in text_string_to_metric_families(text)}
    assert {"arena_matches_started", "arena_decision_latency_seconds", "arena_queue_depth"} <= names


async def test_a_fresh_node_exposes_zeros_build_info_process_metrics_and_no_created_series(arena: Arena) -> None:
    assert arena.node.metrics is not None
    text = generate_latest(arena.node.metrics.registry).decode()
    assert "_created" not in text
    values = samples(text)
    from arena import __version__, catalogue

    for game in catalogue.names():
        assert values[("arena_matches_started_total", (("game", game),))] == 0
        assert values[("arena_timeouts_total", (("game", game),))] == 0
        assert values[("arena_matches_finished_total", (("game", game), ("termination", "normal")))] == 0
        assert values[("arena_rejections_total", (("fault", "timeout"), ("game", game)))] == 0
        assert values[("arena_illegal_actions_total", (("game", game), ("kind", "illegal")))] == 0
    assert values[("arena_hello_refused_total", (("reason", "bad_token"),))] == 0
    assert values[("arena_client_errors_total", (("kind", "ping_flood"),))] == 0
    info = [labels for (name, labels) in values if name == "arena_build_info"]
    assert info and ("version", __version__) in info[0]
    assert ("process_cpu_seconds_total", ()) in values and ("process_resident_memory_bytes", ()) in values
    assert any(name == "python_info" for name, _ in values)


async def test_grpc_calls_are_counted_by_service_method_and_code(arena: Arena) -> None:
    assert arena.node.metrics is not None
    stub = registry_pb2_grpc.RegistryServiceStub(arena.channel)
    with contextlib.suppress(grpc.aio.AioRpcError):
        await stub.RegisterBot(registry_pb2.RegisterBotRequest(name="nope"))
    await arena.register("yes")
    await arena.connect("bot1")
    await asyncio.sleep(0.05)
    values = samples(generate_latest(arena.node.metrics.registry).decode())

    def calls(service: str, method: str, code: str) -> float:
        key = ("arena_grpc_calls_total", (("code", code), ("method", method), ("service", service)))
        return values[key]

    assert calls("arena.v1.RegistryService", "RegisterBot", "PERMISSION_DENIED") == 1
    assert calls("arena.v1.RegistryService", "RegisterBot", "OK") == 2
    assert calls("arena.v1.MatchService", "ListMatches", "OK") == 0  # known methods start at zero
    assert calls("arena.v1.BotService", "Connect", "OK") == 0  # the bot's stream is still open
