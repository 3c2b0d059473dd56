"""Direct links between the sibling workers of one ``arena serve --workers N``.

The supervisor gives its workers a private folder (mode 0700); each worker listens there on a Unix
socket named after its node id, and sends relay messages for a sibling over one connection to the
sibling's socket (opened on the first message, kept), instead of through the sibling's Redis inbox.

A link carries frames, each a 4-byte big-endian length then its bytes. The first frame is the hello:
``[sender node id, link id]`` in JSON. Each further frame is a batch: a 4-byte length of its JSON
header ``[first sequence number, [[fields, payload length or -1], ...]]``, the header, then the
messages' payloads (the wire bytes for the bot), one after another, raw. The receiver hands each
message to the relay as it arrives, and every ``ACK_SECONDS`` (or ``ACK_EVERY`` messages) answers
with the sequence number of the last one it handled (8 bytes). Both ends read with ``recv_into``
into a buffer of their own (``asyncio.BufferedProtocol``), not a new 256 KiB one per read.

A link that cannot be opened or that breaks is not used again: the sender relays through the Redis
inbox from then on, first resending what the sibling had not acknowledged, in order, each message
tagged with the link's id and its sequence number (``FALLBACK_FIELDS``) so that the receiver drops
one it had already handled before the break.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import struct
import uuid
from collections import deque
from collections.abc import Callable, Collection
from pathlib import Path

log = logging.getLogger("arena.service.relay")  # the relay's log

Message = tuple[dict[str, str], bytes | None]
"""A relay message: its fields, and the wire payload for the bot it carries (if any)."""

LINK_FIELD, SEQUENCE_FIELD = "lk", "ls"
FALLBACK_FIELDS = (LINK_FIELD, SEQUENCE_FIELD)
"""The fields of a message that a broken link resent through Redis: the link's id, the message's number on it."""
MAX_FRAME = 64 * 1024 * 1024
"""A longer frame is not from a sibling: the link is closed."""
ACK_SECONDS = 0.05
ACK_EVERY = 1000
"""A receiver acknowledges what it handled this long after it came, or at once past this many messages."""

_LENGTH = struct.Struct("!I")
_ACK = struct.Struct("!Q")
_SAFE_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def socket_path(folder: Path, node_id: str) -> Path:
    """Where the worker ``node_id`` listens: its id, or a digest of an id unfit for a file name."""
    name = node_id if _SAFE_NAME.fullmatch(node_id) else hashlib.sha256(node_id.encode()).hexdigest()[:32]
    return folder / f"{name}.sock"


def encode_batch(first: int, messages: Collection[Message]) -> bytes:
    """One batch frame (with its length) of ``messages`` numbered from ``first``."""
    header = json.dumps(
        [first, [[fields, -1 if payload is None else len(payload)] for fields, payload in messages]],
        separators=(",", ":"),
    ).encode()
    body = b"".join(payload for _fields, payload in messages if payload is not None)
    return b"".join((_LENGTH.pack(4 + len(header) + len(body)), _LENGTH.pack(len(header)), header, body))


def decode_batch(frame: bytes) -> tuple[int, list[Message]]:
    """The first sequence number and the messages of a batch frame (without its length);
    raises ``ValueError`` for a frame that is not one."""
    (size,) = _LENGTH.unpack_from(frame)
    first, items = json.loads(frame[4 : 4 + size])
    offset = 4 + size
    messages: list[Message] = []
    for fields, length in items:
        if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
            raise ValueError("a message's fields are not text")
        if length < 0:
            messages.append((fields, None))
            continue
        if offset + length > len(frame):
            raise ValueError("a payload runs past the frame")
        messages.append((fields, frame[offset : offset + length]))
        offset += length
    return int(first), messages


class _Link(asyncio.BufferedProtocol):
    """This worker's connection to one sibling, with what it sent there and the sibling has not
    acknowledged; it reads the acknowledgements."""

    def __init__(self, links: SiblingLinks, node: str) -> None:
        self.links = links
        self.node = node
        self.id = uuid.uuid4().hex
        self.transport: asyncio.Transport | None = None
        self.sent = 0
        """The number of the last message sent."""
        self.unacked: deque[tuple[int, Message]] = deque()
        self.pending: list[Message] = []
        """Messages to write at the end of this turn of the event loop, in one frame."""
        self.broken = False
        self.buffer = bytearray(_ACK.size * 64)
        self.filled = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def put(self, message: Message) -> None:
        """Number the message and write it soon, with the others sent this turn."""
        self.sent += 1
        self.unacked.append((self.sent, message))
        self.pending.append(message)
        if len(self.pending) == 1:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        pending, self.pending = self.pending, []
        if not self.broken and self.transport is not None:
            self.transport.write(encode_batch(self.sent - len(pending) + 1, pending))

    def get_buffer(self, sizehint: int) -> memoryview:
        return memoryview(self.buffer)[self.filled :]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        whole = self.filled - self.filled % _ACK.size
        if whole:
            (handled,) = _ACK.unpack_from(self.buffer, whole - _ACK.size)  # the latest says it all
            self.buffer[: self.filled - whole] = self.buffer[whole : self.filled]
            self.filled -= whole
            while self.unacked and self.unacked[0][0] <= handled:
                self.unacked.popleft()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.broken:
            return  # closed here
        self.broken = True
        self.links.unusable.add(self.node)
        log.warning(
            "sibling link to %s broke (%s): relaying to it through Redis, resending %d unacknowledged messages",
            self.node,
            exc or "closed by the sibling",
            len(self.unacked),
        )
        self.links.broke(self.node)

    def close(self) -> None:
        """Closed by this worker (it is stopping), after writing what it was given."""
        if self.pending:
            self._flush()
        self.broken = True
        if self.transport is not None:
            self.transport.close()


class _Incoming(asyncio.BufferedProtocol):
    """A link from a sibling: its frames, handed to the relay as they arrive; acknowledged in a while."""

    def __init__(self, links: SiblingLinks) -> None:
        self.links = links
        self.transport: asyncio.Transport | None = None
        self.sender = ""
        self.link = ""
        self.buffer = bytearray(64 * 1024)
        self.filled = 0
        self.handled = 0
        self.acked = 0
        self.ack_soon: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.links.incoming.add(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buffer) - self.filled < 4096:
            self.buffer.extend(bytes(len(self.buffer)))  # room for a long frame
        return memoryview(self.buffer)[self.filled :]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        start = 0
        try:
            while self.filled - start >= 4:
                (size,) = _LENGTH.unpack_from(self.buffer, start)
                if size > MAX_FRAME:
                    raise ValueError(f"a frame of {size} bytes")
                if self.filled - start - 4 < size:
                    break
                self._frame(bytes(self.buffer[start + 4 : start + 4 + size]))
                start += 4 + size
        except (ValueError, TypeError, KeyError) as error:
            log.warning("bad frame on the link from sibling %s: %s: closing it", self.sender[:80] or "?", error)
            self.close()
            return
        if start:
            self.buffer[: self.filled - start] = self.buffer[start : self.filled]
            self.filled -= start
        if self.handled - self.acked >= ACK_EVERY:
            self._ack()
        elif self.handled > self.acked and self.ack_soon is None:
            self.ack_soon = asyncio.get_running_loop().call_later(ACK_SECONDS, self._ack)

    def _frame(self, frame: bytes) -> None:
        if not self.sender:
            sender, link = json.loads(frame)
            if sender not in self.links.siblings:
                raise ValueError(f"a link from {str(sender)[:80]!r}, which is not a sibling")
            self.sender, self.link = str(sender), str(link)
            return
        first, messages = decode_batch(frame)
        received = self.links.received
        for number, (fields, payload) in enumerate(messages, first):
            if number <= received.get(self.link, 0):
                continue
            received[self.link] = self.handled = number
            try:
                self.links.deliver(fields, payload)
            except Exception:
                log.exception("bad relay message %s from sibling %s", number, self.sender)

    def _ack(self) -> None:
        self.ack_soon = None
        if self.transport is not None and not self.transport.is_closing() and self.handled > self.acked:
            self.transport.write(_ACK.pack(self.handled))
            self.acked = self.handled

    def connection_lost(self, exc: Exception | None) -> None:
        self.links.incoming.discard(self)
        if self.ack_soon is not None:
            self.ack_soon.cancel()

    def close(self) -> None:
        """Acknowledge what was handled, and close."""
        if self.ack_soon is not None:
            self.ack_soon.cancel()
        self._ack()
        if self.transport is not None:
            self.transport.close()


class SiblingLinks:
    """This worker's socket for its siblings, and its links to theirs.

    ``deliver`` handles a message that came over a link (the relay's ``handle``); ``broke(node)`` is
    called when the link to ``node`` breaks (the relay then resends what ``take_unacked`` gives).
    """

    def __init__(
        self,
        node_id: str,
        folder: Path,
        siblings: Collection[str],
        deliver: Callable[[dict[str, str], bytes | None], None],
        broke: Callable[[str], None],
    ) -> None:
        self.node_id = node_id
        self.folder = folder
        self.siblings = frozenset(siblings) - {node_id}
        self.deliver = deliver
        self.broke = broke
        self.links: dict[str, _Link] = {}
        self.unusable: set[str] = set()
        """Siblings whose link could not be opened or broke: relayed to through Redis."""
        self.received: dict[str, int] = {}
        """The last message handled from each incoming link, by link id."""
        self.server: asyncio.Server | None = None
        self.incoming: set[_Incoming] = set()

    async def listen(self) -> None:
        """Listen on this worker's socket (raises ``OSError`` if it cannot)."""
        path = socket_path(self.folder, self.node_id)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        self.server = await asyncio.get_running_loop().create_unix_server(lambda: _Incoming(self), path)

    def usable(self, node: str) -> bool:
        """Whether messages for ``node`` go over a link (it is a sibling whose link has not failed)."""
        return node in self.siblings and node not in self.unusable

    def post(self, node: str, message: Message) -> bool:
        """Send ``message`` to the sibling ``node`` if its link is open; False if it is not (yet, or
        any more). Once taken it is the link's until acknowledged: if it breaks, ``take_unacked`` has it."""
        link = self.links.get(node)
        if link is None or link.broken:
            return False
        link.put(message)
        return True

    async def send(self, node: str, messages: list[Message]) -> bool:
        """Send ``messages`` to the sibling ``node``, opening the link first if need be. False if the
        link could not be opened or has broken (relay them through Redis). Once taken they are
        the link's until acknowledged: if it breaks, ``take_unacked`` has them."""
        link = self.links.get(node)
        if link is None:
            link = _Link(self, node)
            try:
                await asyncio.get_running_loop().create_unix_connection(
                    lambda: link, str(socket_path(self.folder, node))
                )
            except OSError as error:
                self.unusable.add(node)
                log.warning("sibling link to %s cannot be opened (%s): relaying to it through Redis", node, error)
                return False
            self.links[node] = link
            hello = json.dumps([self.node_id, link.id]).encode()
            assert link.transport is not None
            link.transport.write(_LENGTH.pack(len(hello)) + hello)
        if link.broken:
            return False
        for message in messages:
            link.put(message)
        return True

    def take_unacked(self, node: str) -> list[Message]:
        """What a broken link to ``node`` sent and the sibling did not acknowledge, in order, each
        tagged (``FALLBACK_FIELDS``) so the sibling drops what it had handled; then forgets it."""
        link = self.links.get(node)
        if link is None or not link.broken or not link.unacked:
            return []
        resent = [
            (fields | {LINK_FIELD: link.id, SEQUENCE_FIELD: str(number)}, payload)
            for number, (fields, payload) in link.unacked
        ]
        link.unacked.clear()
        return resent

    def seen(self, fields: dict[str, str]) -> bool:
        """Whether a message from the Redis inbox was resent by a broken link that had delivered it
        already; removes the fallback fields."""
        link, number = fields.pop(LINK_FIELD, None), fields.pop(SEQUENCE_FIELD, None)
        if link is None or number is None:
            return False
        try:
            return int(number) <= self.received.get(link, 0)
        except ValueError:
            return False

    def close(self) -> None:
        """Stop listening and close every link, both ways: what is sent from now on goes through
        Redis (with what the links had not seen acknowledged, which the siblings drop if they had it)."""
        self.close_incoming()
        self.unusable |= self.siblings
        for link in self.links.values():
            link.close()

    def close_incoming(self) -> None:
        """Stop listening, and close the links from the siblings (they relay to this worker through Redis)."""
        if self.server is not None:
            self.server.close()
        for incoming in list(self.incoming):
            incoming.close()
