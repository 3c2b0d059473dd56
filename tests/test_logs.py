"""No client can flood the log: repeated warnings and errors are rate-limited, client errors counted."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import grpc
import pytest

from arena import logs
from tests.grpc.harness import Arena


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """The arena's log handler on the root logger, writing to a buffer."""
    stream = io.StringIO()
    handler = logs.handler(stream)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


async def test_garbage_first_messages_are_counted_and_log_a_bounded_number_of_lines(
    arena: Arena, captured: io.StringIO
) -> None:
    count = 300
    async with grpc.aio.insecure_channel(arena.address) as channel:
        connect: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
            "/arena.v1.BotService/Connect", request_serializer=bytes
        )
        for _ in range(count):
            with pytest.raises(grpc.aio.AioRpcError):
                async for _ in connect(iter([b"\xff\xff\xff"])):
                    pass
    lines = captured.getvalue().splitlines()
    assert len(lines) <= 2 * logs.REPEAT_BURST, lines[:3]
    assert arena.node.metrics is not None
    refused = arena.node.metrics.hello_refused
    total = sum(refused.labels(reason)._value.get() for reason in ("undecodable", "locked_out"))
    assert total == count


def test_repeats_past_the_burst_are_dropped_and_counted_on_the_next_line() -> None:
    now = [0.0]
    stream = io.StringIO()
    handler = logs.handler(stream)
    handler.filters[:] = [logs.RepeatFilter(burst=5, window=60.0, clock=lambda: now[0])]
    log = logging.getLogger("grpc._cython.cygrpc.test")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.INFO)
    try:
        for i in range(1000):
            log.error("Unexpected [%s] raised by servicer method [%s]", "DecodeError", f"/m{i}")
        log.warning("another kind")
        log.info("info is never dropped")
        log.info("info is never dropped")
        now[0] = 61.0
        log.error("Unexpected [%s] raised by servicer method [%s]", "DecodeError", "/late")
    finally:
        log.removeHandler(handler)
        log.propagate = True
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [e["message"] for e in entries[5:]] == [
        "another kind",
        "info is never dropped",
        "info is never dropped",
        "Unexpected [DecodeError] raised by servicer method [/late]",
    ]
    assert entries[-1]["suppressed"] == 995
    assert "suppressed" not in entries[0]
