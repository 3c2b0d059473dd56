"""The direct links between sibling workers (arena.service.siblings) over real Unix sockets: messages
arrive in order with their raw payloads; a link that is closed leaves what it had not seen
acknowledged to be resent through Redis, and the receiver drops what it had handled already; a
sibling whose socket cannot be reached is relayed to through Redis from the start."""

from __future__ import annotations

import asyncio
import logging
import shutil
import struct
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from arena.service.siblings import (
    FALLBACK_FIELDS,
    MAX_FRAME,
    Message,
    SiblingLinks,
    decode_batch,
    encode_batch,
    socket_path,
)


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short private folder (a Unix socket's path is at most 107 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="arena-test-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Worker:
    """One worker's links, with the messages they delivered to it."""

    def __init__(self, folder: Path, node_id: str, sibling: str) -> None:
        self.delivered: list[Message] = []
        self.broken: list[str] = []
        self.links = SiblingLinks(
            node_id, folder, [sibling], lambda f, p: self.delivered.append((f, p)), self.broken.append
        )

    async def wait_for(self, count: int) -> None:
        for _ in range(200):
            if len(self.delivered) >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{len(self.delivered)} messages arrived, not {count}")


@pytest.fixture
async def pair(folder: Path) -> AsyncIterator[tuple[Worker, Worker]]:
    a, b = Worker(folder, "w.0", "w.1"), Worker(folder, "w.1", "w.0")
    await a.links.listen()
    await b.links.listen()
    yield a, b
    a.links.close()
    b.links.close()


def message(number: int) -> Message:
    return {"t": "request", "match": "m1", "seq": str(number)}, bytes([number, 0, 255]) * number


def test_a_batch_keeps_its_fields_and_raw_payloads() -> None:
    messages = [message(1), ({"t": "answer", "text": 'a "quoted" \x00 action ✓'}, None), message(3)]
    frame = encode_batch(7, messages)
    assert decode_batch(frame[4:]) == (7, messages)
    with pytest.raises(ValueError, match="past the frame"):
        decode_batch(frame[4:-1])


async def test_messages_go_over_the_link_in_order_and_are_acknowledged(pair: tuple[Worker, Worker]) -> None:
    a, b = pair
    for number in range(1, 6):
        assert await a.links.send("w.1", [message(number)])
    assert await a.links.send("w.1", [message(number) for number in range(6, 11)])
    await b.wait_for(10)
    assert b.delivered == [message(number) for number in range(1, 11)]
    for _ in range(200):
        if not a.links.links["w.1"].unacked:
            break
        await asyncio.sleep(0.01)
    assert not a.links.links["w.1"].unacked
    assert a.links.usable("w.1") and not a.links.usable("elsewhere")


async def test_a_closed_link_resends_what_was_not_acknowledged_and_the_receiver_drops_what_it_had(
    pair: tuple[Worker, Worker],
) -> None:
    a, b = pair
    assert await a.links.send("w.1", [message(1)])
    await b.wait_for(1)
    for _ in range(200):
        if not a.links.links["w.1"].unacked:
            break
        await asyncio.sleep(0.01)
    # Written, then the link closed before its acknowledgement is read: the sibling has them, the sender cannot know.
    assert await a.links.send("w.1", [message(number) for number in range(2, 6)])
    a.links.close()
    assert not a.links.usable("w.1")
    assert not await a.links.send("w.1", [message(6)])
    await b.wait_for(5)
    resent = a.links.take_unacked("w.1")
    assert [fields["seq"] for fields, _payload in resent] == ["2", "3", "4", "5"]
    assert all(set(FALLBACK_FIELDS) <= set(fields) for fields, _payload in resent)
    assert not a.links.take_unacked("w.1")  # taken once
    # What comes through Redis: the resent messages (all handled already), then the next one.
    fresh = [(fields, payload) for fields, payload in [*resent, message(6)] if not b.links.seen(fields)]
    assert fresh == [message(6)]
    assert b.delivered == [message(number) for number in range(1, 6)]


async def test_a_link_the_sibling_closes_says_so_and_hands_back_what_it_had_not_acknowledged(
    pair: tuple[Worker, Worker], caplog: pytest.LogCaptureFixture
) -> None:
    a, b = pair
    assert await a.links.send("w.1", [message(1)])
    await b.wait_for(1)
    b.links.close_incoming()
    for _ in range(200):
        if a.broken:
            break
        await asyncio.sleep(0.01)
    assert a.broken == ["w.1"] and not a.links.usable("w.1")
    assert "sibling link to w.1 broke (closed by the sibling): relaying to it through Redis" in caplog.text
    assert not await a.links.send("w.1", [message(2)])


async def test_a_sibling_whose_socket_cannot_be_reached_is_relayed_to_through_redis(
    folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a = Worker(folder, "w.0", "w.1")
    with caplog.at_level(logging.WARNING):
        assert not await a.links.send("w.1", [message(1)])
    assert not a.links.usable("w.1")
    assert not a.links.take_unacked("w.1")
    assert "sibling link to w.1 cannot be opened" in caplog.text
    assert "relaying to it through Redis" in caplog.text


async def test_a_link_from_a_stranger_or_with_a_bad_frame_is_closed_saying_why(
    pair: tuple[Worker, Worker], folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _a, b = pair
    hello = b'["intruder", "x"]'
    sibling = b'["w.0", "y"]'
    for frames, said in [
        (struct.pack("!I", len(hello)) + hello, "a link from 'intruder', which is not a sibling"),
        (
            struct.pack("!I", len(sibling)) + sibling + struct.pack("!I", 5) + b"nope!",
            "bad frame on the link from sibling w.0",
        ),
        (struct.pack("!I", MAX_FRAME + 1), "a frame of 67108865 bytes"),
    ]:
        reader, writer = await asyncio.open_unix_connection(str(socket_path(folder, "w.1")))
        writer.write(frames)
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the worker
        writer.close()
        assert said in caplog.text
    assert b.delivered == []
