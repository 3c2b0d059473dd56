"""Protobuf's wire format written directly, for the messages sent once a decision.

Building a message with the library and serializing it cost a decision request about 30 µs, a
sixth of the node's Python a decision behind its front (BENCHMARKS.md, "The hot path's encoding").
These helpers write a field's bytes exactly as upb's ``SerializeToString`` does: a proto3 scalar at
its default is left out, repeated scalars are packed, a set sub-message is written even if empty.
So a message written with them, its fields in number order, is the library's byte for byte (a
property ``tests/wire/test_encode.py`` checks against upb for every message written this way).

Each helper takes a field's *key* (``key(number, wire_type)``, computed once by its caller).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

VARINT: Final = 0
LEN: Final = 2
_MASK64: Final = (1 << 64) - 1
_SMALL: Final = tuple(bytes((value,)) for value in range(0x80))
_NANOS: Final = 1_000_000_000


def varint(value: int) -> bytes:
    """An unsigned varint; a negative int32 or int64 as protobuf writes it (ten bytes, two's complement)."""
    if 0 <= value < 0x80:
        return _SMALL[value]
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(number: int, wire_type: int) -> bytes:
    """A field's key: its number and wire type."""
    return varint((number << 3) | wire_type)


def key_of(message: type[Message], name: str) -> bytes:
    """The key of ``message``'s field ``name``, as upb writes it (a repeated number's is packed).

    Raises ``ValueError`` for a field these helpers do not write (fixed-width, floating or zigzag).
    """
    field = message.DESCRIPTOR.fields_by_name[name]
    if field.is_packed or field.type in _DELIMITED:
        return key(field.number, LEN)
    if field.type in _VARINTS:
        return key(field.number, VARINT)
    raise ValueError(f"{message.__name__}.{name} is not a varint or length-delimited field")


_DELIMITED: Final = frozenset((FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE))
_VARINTS: Final = frozenset(
    (
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_ENUM,
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
    )
)


def uint(field: bytes, value: int) -> bytes:
    """An integer or bool field (absent at 0 or False); ``field`` is its ``VARINT`` key."""
    return field + varint(value) if value else b""


def delimited(field: bytes, payload: bytes) -> bytes:
    """A length-delimited field holding ``payload``, written even when it is empty (a set
    sub-message, an item of a repeated string); ``field`` is its ``LEN`` key."""
    size = len(payload)
    return field + (_SMALL[size] if size < 0x80 else varint(size)) + payload


def text(field: bytes, value: str) -> bytes:
    """A string field (absent when empty)."""
    return delimited(field, value.encode()) if value else b""


def texts(field: bytes, values: Iterable[str]) -> bytes:
    """A repeated string field: every item, the empty ones too."""
    return b"".join([delimited(field, value.encode()) for value in values])


def packed(field: bytes, values: Sequence[int]) -> bytes:
    """A repeated integer field, packed (absent when there are none)."""
    try:
        body = bytes(values)  # each value a byte: its varint if under 0x80 (ASCII)
    except ValueError:  # negative, or 256 and above
        body = b"\x80"
    if not body.isascii():
        body = b"".join([varint(value) for value in values])
    return delimited(field, body) if body else b""


class Texts:
    """One string field's values, each encoded once: a repeated field's items (``items``) or a
    singular field's value (``one``, absent when empty, as ``text``). For fields whose values are
    few and come again and again (legal actions, match ids); at most ``limit`` are kept."""

    __slots__ = ("field", "known", "limit")

    def __init__(self, field: bytes, limit: int = 65_536) -> None:
        self.field, self.limit = field, limit
        self.known: dict[str, bytes] = {}

    def items(self, values: Sequence[str]) -> bytes:
        """``texts(field, values)``."""
        known = self.known
        try:
            return b"".join([known[value] for value in values])
        except KeyError:
            return b"".join([self._encode(value) for value in values])

    def one(self, value: str) -> bytes:
        """``text(field, value)``."""
        if not value:
            return b""
        found = self.known.get(value)
        return found if found is not None else self._encode(value)

    def _encode(self, value: str) -> bytes:
        found = self.known.get(value)
        if found is None:
            if len(self.known) >= self.limit:
                self.known.clear()
            found = self.known[value] = delimited(self.field, value.encode())
        return found


_SECONDS, _NANOS_FIELD = key(1, VARINT), key(2, VARINT)


def timestamp(nanoseconds: int) -> bytes:
    """A ``google.protobuf.Timestamp``'s fields, as ``Timestamp.FromNanoseconds`` sets them."""
    seconds, nanos = divmod(nanoseconds, _NANOS)
    return uint(_SECONDS, seconds) + uint(_NANOS_FIELD, nanos)


def duration(nanoseconds: int) -> bytes:
    """A ``google.protobuf.Duration``'s fields, as ``Duration.FromNanoseconds`` sets them (the
    nanoseconds take the sign of the seconds)."""
    seconds, nanos = divmod(nanoseconds, _NANOS)
    if seconds < 0 and nanos > 0:
        seconds, nanos = seconds + 1, nanos - _NANOS
    return uint(_SECONDS, seconds) + uint(_NANOS_FIELD, nanos)


def length_delimited(number: int, payload: bytes) -> bytes:
    """The wire bytes of a message (or bytes, or string) field number ``number`` holding ``payload``.

    Protobuf parses concatenated encodings as one message, merged: a sub-message's fields may arrive
    in several pieces and a repeated field's items in several runs. The hot path uses it to send
    parts encoded once (a round already played) beside the parts encoded for each request.
    """
    field = _KEYS.get(number)
    if field is None:
        field = _KEYS[number] = key(number, LEN)
    return delimited(field, payload)


_KEYS: dict[int, bytes] = {}
