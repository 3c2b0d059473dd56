"""The closed sets of the outer layers are enums whose stored, wire and metric text is what it always
was, read back once at the edge with an error naming an unknown value."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import cast

import grpc
import prometheus_client
import pytest
import redis.asyncio as aioredis

from arena.errors import StoredDataError
from arena.grpc.convert import FAULTS
from arena.grpc.servicers import CLOSE_STATUS
from arena.metrics import ArenaMetrics
from arena.referee.match import EventKind
from arena.referee.record import DecisionRecord, Fault, RejectionRecord
from arena.referee.timecontrol import TimeControl
from arena.service.limits import StreamAbuse
from arena.service.relay import RelayKind
from arena.service.sessions import CloseReason
from arena.store.embedded import EmbeddedRedis
from arena.store.relay import RelayStore
from arena.store.specs import PlaySpec, SpecKind
from arena.v1 import common_pb2


@pytest.fixture
async def client(redis_server: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    redis = aioredis.Redis.from_url(redis_server.url)
    try:
        yield redis
    finally:
        await redis.aclose()


def test_faults_round_trip_through_a_stored_record_with_their_old_text() -> None:
    assert [f.value for f in Fault] == ["timeout", "invalid", "illegal", "disconnected", "forfeited"]
    for fault in [*Fault, None]:
        decision = DecisionRecord(3, 1, "play", 0.5, fault, 7)
        stored = json.loads(json.dumps(decision.to_dict()))
        assert stored["fallback"] == (fault.value if fault else "")
        assert DecisionRecord.from_dict(stored) == decision
    for fault in (f for f in Fault if f.is_strike):
        rejection = RejectionRecord(3, 1, 7, "nonsense", "why", fault, "play", 2)
        stored = json.loads(json.dumps(rejection.to_dict()))
        assert stored["fault"] == fault.value
        assert RejectionRecord.from_dict(stored) == rejection
    assert {f for f in Fault if f.is_strike} == {Fault.TIMEOUT, Fault.INVALID, Fault.ILLEGAL}
    with pytest.raises(StoredDataError, match="unknown fault 'sleepy'"):
        DecisionRecord.from_dict(DecisionRecord(0, 0, "a", 0.0).to_dict() | {"fallback": "sleepy"})


def test_every_fault_has_its_own_wire_value_and_metric_label() -> None:
    assert set(FAULTS) == {*Fault, None}
    assert len(set(FAULTS.values())) == len(FAULTS) and FAULTS[None] == common_pb2.FAULT_UNSPECIFIED
    metrics = ArenaMetrics()
    for fault in Fault:
        metrics.decision("5211", 0.1, fault)
        assert metrics.rejections.labels("5211", fault.value)._value.get() == 1
    metrics.decision("5211", 0.1, None)
    assert sum(metrics.decision_latency.labels("5211").counts) == len(Fault) + 1
    assert metrics.timeouts.labels("5211")._value.get() == 1
    assert [metrics.illegal_actions.labels("5211", k)._value.get() for k in ("invalid", "illegal")] == [1, 1]


def test_event_kinds_keep_their_stream_names() -> None:
    assert [k.value for k in EventKind] == ["started", "turn", "ended"]
    assert all(EventKind(f"{kind}") is kind for kind in EventKind)  # the web stream's "event: {kind}"


def test_each_close_reason_ends_a_stream_with_its_own_status() -> None:
    assert set(CLOSE_STATUS) <= set(CloseReason)
    assert {r for r in CloseReason if r not in CLOSE_STATUS} == {CloseReason.DISCONNECTED, CloseReason.BOT_CLOSED}
    assert CLOSE_STATUS[CloseReason.TOKEN_REVOKED] is grpc.StatusCode.UNAUTHENTICATED
    assert len({r.value for r in CloseReason}) == len(CloseReason)
    assert CloseReason.TOKEN_REVOKED.value == "the bot's token was revoked or rotated"


async def test_relay_kinds_round_trip_through_an_inbox(client: aioredis.Redis) -> None:
    store = RelayStore(client, "n1")
    await store.post("n1", [{"t": RelayKind.ADOPT.value}])  # the stream exists; read from after it
    [(last, _)] = await store.read("0", 10, 0)
    await store.post("n1", [{"t": kind.value, "match": "m"} for kind in RelayKind] + [{"t": "shout"}])
    entries = await store.read(last, 100, 0)
    texts = [fields["t"] for _, fields in entries]
    assert texts == [k.value for k in RelayKind] + ["shout"]
    assert texts[:-1] == [
        *("adopt", "adopted", "start", "request", "push", "end", "answer", "presence", "gone"),
        *("watch", "watched", "unwatch"),
    ]
    assert [RelayKind.parse(text) for text in texts[:-1]] == list(RelayKind)
    with pytest.raises(StoredDataError, match="unknown relay message kind 'shout'"):
        RelayKind.parse(texts[-1])


async def test_play_specs_round_trip_through_the_store(client: aioredis.Redis) -> None:
    specs = [
        PlaySpec(),
        PlaySpec(SpecKind.LADDER, "fool", 4, True, TimeControl(2.0, 5.0, 2, 3.0), {"wild_penalty": 3}),
    ]
    for index, spec in enumerate(specs):
        await client.set(f"spec:{index}", json.dumps(spec.to_dict()))
        stored = json.loads(cast(bytes, await client.get(f"spec:{index}")))
        assert PlaySpec.parse("L1", stored) == spec
    assert "kind" not in specs[0].to_dict() and specs[1].to_dict()["kind"] == "ladder"
    assert [k.value for k in SpecKind] == ["league", "ladder"]
    assert SpecKind.of({}) is SpecKind.LEAGUE
    with pytest.raises(StoredDataError, match="league 'L1': unknown spec kind 'cup'"):
        PlaySpec.parse("L1", {"kind": "cup"})
    with pytest.raises(StoredDataError, match="league 'L1' has a stored players_per_match that does not read: '2'"):
        PlaySpec.parse("L1", {"players_per_match": "2"})


def test_stream_abuses_are_the_client_error_labels() -> None:
    exposition = prometheus_client.generate_latest(ArenaMetrics().registry).decode()
    assert [a.value for a in StreamAbuse] == ["ping_flood"]
    for abuse in StreamAbuse:  # at 0 from the start
        assert f'arena_client_errors_total{{kind="{abuse.value}"}} 0.0' in exposition
